import { randomBytes } from 'node:crypto';
import { openWithKeyEncryptionKey, sealWithKeyEncryptionKey, sealingKeyIdOf } from './keyEncryptionKeySealing';
import { parseKeyEncryptionKey } from './parseKeyEncryptionKey';

const kek = () => parseKeyEncryptionKey(randomBytes(32).toString('hex'))!;

describe('sealing with a key-encryption key', () => {
  const plaintext = randomBytes(40);
  const [current, old] = [kek(), kek()];

  it('names the key in front, hides the plaintext, and opens with that key for the same purpose only', () => {
    const stored = sealWithKeyEncryptionKey(plaintext, current, 'thing a:1');
    expect(stored).toMatch(new RegExp(`^kek1:${current.id}:[A-Za-z0-9_-]+$`));
    expect(stored).not.toContain(plaintext.toString('base64url'));
    expect(sealingKeyIdOf(stored)).toBe(current.id);
    expect(openWithKeyEncryptionKey(stored, [current], 'thing a:1')).toEqual(plaintext);
    expect(openWithKeyEncryptionKey(stored, [undefined, old, current], 'thing a:1')).toEqual(plaintext);
    expect(openWithKeyEncryptionKey(stored, [current], 'thing a:2')).toBeUndefined();
    expect(openWithKeyEncryptionKey(stored, [old], 'thing a:1')).toBeUndefined();
    expect(sealWithKeyEncryptionKey(plaintext, current, 'thing a:1')).not.toBe(stored);
  });

  it('opens nothing that is not sealed, truncated or altered', () => {
    const stored = sealWithKeyEncryptionKey(plaintext, current, 'p');
    expect(sealingKeyIdOf('plain value')).toBeUndefined();
    expect(openWithKeyEncryptionKey('plain value', [current], 'p')).toBeUndefined();
    expect(openWithKeyEncryptionKey(`kek1:${current.id}`, [current], 'p')).toBeUndefined();
    expect(openWithKeyEncryptionKey(`kek1:${current.id}:short`, [current], 'p')).toBeUndefined();
    const flipped = stored.slice(0, -2) + (stored.at(-2) === 'A' ? 'B' : 'A') + stored.at(-1);
    expect(openWithKeyEncryptionKey(flipped, [current], 'p')).toBeUndefined();
  });
});
