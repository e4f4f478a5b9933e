import { parseKeyEncryptionKey } from '../core/parseKeyEncryptionKey';
import { consoleSecrets } from './consoleSecrets';

const kek = (byte: number) => parseKeyEncryptionKey(Buffer.alloc(32, byte).toString('hex'))!;
const secretsOf = (result: ReturnType<typeof consoleSecrets>) => ('secrets' in result ? result.secrets.map((s) => s.toString('hex')) : result.refused);

describe('consoleSecrets', () => {
  it('derives the current secret and one per previous key from the key-encryption keys, the same every time', () => {
    const rotating = { tokenKeyEncryption: { current: kek(2), previous: [kek(1)] }, publicUrl: 'https://auth.example.com' };
    const [current, previous] = secretsOf(consoleSecrets(rotating)) as string[];
    expect(secretsOf(consoleSecrets({ ...rotating, tokenKeyEncryption: { current: kek(1), previous: [] } }))).toEqual([previous]);
    expect(current).not.toBe(previous);
    expect(secretsOf(consoleSecrets(rotating))).toEqual([current, previous]);
    // Not the key itself: the key seals token keys, the console's secret is of its own.
    expect(current).not.toBe(kek(2).key.toString('hex'));
  });

  it('holds a random secret in memory without a key-encryption key only when PUBLIC_URL is this machine', () => {
    const none = { current: undefined, previous: [] };
    for (const publicUrl of ['http://localhost:7001', 'http://127.0.0.1:7001', 'http://[::1]:7001']) {
      expect(consoleSecrets({ tokenKeyEncryption: none, publicUrl }, () => Buffer.alloc(32, 9))).toEqual({ secrets: [Buffer.alloc(32, 9)], inMemory: true });
    }
    for (const publicUrl of ['https://auth.example.com', 'http://10.0.0.5:7001', 'http://localhost.example.com']) {
      expect(secretsOf(consoleSecrets({ tokenKeyEncryption: none, publicUrl }))).toMatch(/TOKEN_KEY_ENCRYPTION_KEY is not set/);
    }
  });
});
