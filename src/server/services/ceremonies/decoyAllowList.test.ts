import { randomBytes } from 'node:crypto';
import { decoyAllowList } from './decoyAllowList';

describe('decoyAllowList', () => {
  const secret = randomBytes(32);

  it('is the same for the same app and name, and differs between names and between apps', () => {
    expect(decoyAllowList(secret, 'user:alice')).toEqual(decoyAllowList(Buffer.from(secret), 'user:alice'));
    expect(decoyAllowList(secret, 'user:alice')).not.toEqual(decoyAllowList(secret, 'user:bob'));
    expect(decoyAllowList(randomBytes(32), 'user:alice')).not.toEqual(decoyAllowList(secret, 'user:alice'));
  });

  it('looks like a real list: one or two public-key descriptors with ids of providers\' lengths, one passkey more often', () => {
    const lists = Array.from({ length: 2000 }, (_, i) => decoyAllowList(secret, `alias:person${i}@example.com`));
    const counts = lists.map((l) => l.length);
    const lengths = new Set(lists.flat().map((d) => Buffer.from(d.id, 'base64url').length));
    expect(new Set(counts)).toEqual(new Set([1, 2]));
    const ones = counts.filter((c) => c === 1).length;
    expect(ones).toBeGreaterThan(1300);
    expect(ones).toBeLessThan(1700);
    expect(lengths).toEqual(new Set([16, 20, 32, 64]));
    for (const descriptor of lists.flat()) {
      expect(Object.keys(descriptor)).toEqual(['type', 'id']);
      expect(descriptor.type).toBe('public-key');
      expect(descriptor.id).toMatch(/^[A-Za-z0-9_-]+$/);
    }
    // Two decoys of one list are two passkeys.
    for (const list of lists.filter((l) => l.length === 2)) expect(list[0].id).not.toBe(list[1].id);
  });
});
