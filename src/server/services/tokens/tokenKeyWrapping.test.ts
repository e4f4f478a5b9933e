import { randomBytes } from 'node:crypto';
import { parseKeyEncryptionKey } from '../../core/parseKeyEncryptionKey';
import { storableKeyMaterial, unwrapKeyMaterial, wrapKeyMaterial, wrappingKeyIdOf } from './tokenKeyWrapping';

const kek = () => parseKeyEncryptionKey(randomBytes(32).toString('hex'))!;

describe('token key wrapping', () => {
  const material = randomBytes(32).toString('base64');
  const [current, old] = [kek(), kek()];

  it('wraps so that the stored value shows nothing of the key, and opens again with the same key-encryption key', () => {
    const stored = wrapKeyMaterial(material, current, 'app1', 7);
    expect(stored).toMatch(new RegExp(`^kek1:${current.id}:[A-Za-z0-9_-]+$`));
    expect(stored).not.toContain(material);
    expect(stored).not.toContain(Buffer.from(material, 'base64').toString('base64url'));
    expect(wrappingKeyIdOf(stored)).toBe(current.id);
    expect(unwrapKeyMaterial(stored, { current, previous: [] }, 'app1', 7)).toBe(material);
    // A fresh nonce each time.
    expect(wrapKeyMaterial(material, current, 'app1', 7)).not.toBe(stored);
  });

  it('opens a value wrapped with a previous key during a rotation', () => {
    const stored = wrapKeyMaterial(material, old, 'app1', 7);
    expect(unwrapKeyMaterial(stored, { current, previous: [old] }, 'app1', 7)).toBe(material);
    expect(unwrapKeyMaterial(stored, { current, previous: [] }, 'app1', 7)).toBeUndefined();
  });

  it('does not open without the key, for another row, or altered', () => {
    const stored = wrapKeyMaterial(material, current, 'app1', 7);
    expect(unwrapKeyMaterial(stored, { current: undefined, previous: [] }, 'app1', 7)).toBeUndefined();
    expect(unwrapKeyMaterial(stored, { current, previous: [] }, 'app2', 7)).toBeUndefined();
    expect(unwrapKeyMaterial(stored, { current, previous: [] }, 'app1', 8)).toBeUndefined();
    const flipped = stored.slice(0, -2) + (stored.at(-2) === 'A' ? 'B' : 'A') + stored.at(-1);
    expect(unwrapKeyMaterial(flipped, { current, previous: [] }, 'app1', 7)).toBeUndefined();
    expect(unwrapKeyMaterial(`kek1:${current.id}:short`, { current, previous: [] }, 'app1', 7)).toBeUndefined();
  });

  it('reads plain rows as they are, and stores new ones wrapped only when a key-encryption key is set', () => {
    expect(unwrapKeyMaterial(material, { current, previous: [] }, 'app1', 7)).toBe(material);
    expect(wrappingKeyIdOf(material)).toBeUndefined();
    expect(storableKeyMaterial(material, { current: undefined, previous: [] }, 'app1', 7)).toBe(material);
    expect(wrappingKeyIdOf(storableKeyMaterial(material, { current, previous: [] }, 'app1', 7))).toBe(current.id);
  });

  it('opens rows wrapped before the sealing was shared with webhook secrets (same prefix and additional data)', () => {
    const fixed = parseKeyEncryptionKey('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff')!;
    const stored = 'kek1:58bef76e:wlUG5v8fI-nVQW8uLGH7MecDtWjXJWmYUQLKFg__rEPDnPiKtx84YacZ67S9srNWVtvTY2G6dHEuyA42';
    expect(unwrapKeyMaterial(stored, { current: fixed, previous: [] }, 'app1', 7)).toBe('q83vEjRWeJASNFZ4kBI0VniQEjRWeJASNFZ4kBI0Vng=');
  });
});
