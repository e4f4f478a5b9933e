import { randomBytes } from 'node:crypto';
import { parseKeyEncryptionKey } from '../../core/parseKeyEncryptionKey';
import { newWebhookSecret } from './newWebhookSecret';
import { openWebhookSecret, sealWebhookSecret } from './webhookSecretSealing';

const kek = (id: string) => ({ id, key: randomBytes(32) });

describe('webhook secrets at rest', () => {
  const secret = newWebhookSecret();

  it('are whsec_ and 32 random bytes in base64', () => {
    expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(Buffer.from(secret.slice(6), 'base64')).toHaveLength(32);
    expect(newWebhookSecret()).not.toBe(secret);
  });

  it('are stored as they are without a key-encryption key', () => {
    const none = { current: undefined, previous: [] };
    expect(sealWebhookSecret(secret, none, 'app', 'wh1')).toBe(secret);
    expect(openWebhookSecret(secret, none, 'app', 'wh1')).toBe(secret);
  });

  it('are sealed with the current key, open with it or a previous one, and not in another row', () => {
    const current = kek('a1');
    const sealed = sealWebhookSecret(secret, { current, previous: [] }, 'app', 'wh1');
    expect(sealed).toMatch(/^kek1:a1:/);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(openWebhookSecret(sealed, { current, previous: [] }, 'app', 'wh1')).toBe(secret);
    expect(openWebhookSecret(sealed, { current: kek('b2'), previous: [current] }, 'app', 'wh1')).toBe(secret);
    expect(openWebhookSecret(sealed, { current, previous: [] }, 'app', 'wh2')).toBeUndefined();
    expect(openWebhookSecret(sealed, { current, previous: [] }, 'other', 'wh1')).toBeUndefined();
    expect(openWebhookSecret(sealed, { current: kek('b2'), previous: [] }, 'app', 'wh1')).toBeUndefined();
    expect(openWebhookSecret(`${sealed.slice(0, -4)}AAAA`, { current, previous: [] }, 'app', 'wh1')).toBeUndefined();
  });

  it('open secrets sealed before the sealing was shared with token keys (same prefix and additional data)', () => {
    const fixed = parseKeyEncryptionKey('00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff')!;
    const stored = 'kek1:58bef76e:oY4l28-q5g_Ua1PrMeH2rZmhcZHZZKGG4ZoVRwgJEv73ifOOVCfd2VU3A_pVV5lU6YFGpfWSlS1AByemwasj0bRy';
    expect(openWebhookSecret(stored, { current: fixed, previous: [] }, 'app1', 'ep_0123456789abcdef01234567')).toBe('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
  });
});

