import { randomBytes } from 'node:crypto';
import { parseKeyEncryptionKey } from './parseKeyEncryptionKey';

describe('parseKeyEncryptionKey', () => {
  const bytes = randomBytes(32);

  it.each([
    ['hex', bytes.toString('hex')],
    ['upper-case hex', bytes.toString('hex').toUpperCase()],
    ['base64', bytes.toString('base64')],
    ['base64url', bytes.toString('base64url')],
  ])('reads 32 bytes written as %s, with the same id', (_form, text) => {
    const parsed = parseKeyEncryptionKey(text);
    expect(parsed?.key.equals(bytes)).toBe(true);
    expect(parsed?.id).toBe(parseKeyEncryptionKey(bytes.toString('hex'))?.id);
    expect(parsed?.id).toMatch(/^[0-9a-f]{8}$/);
  });

  it('gives different keys different ids', () => {
    expect(parseKeyEncryptionKey(randomBytes(32).toString('hex'))?.id).not.toBe(parseKeyEncryptionKey(bytes.toString('hex'))?.id);
  });

  it.each([
    ['a password', 'correct horse battery staple'],
    ['16 bytes', randomBytes(16).toString('hex')],
    ['33 bytes', randomBytes(33).toString('base64')],
    ['hex with a stray character', `${bytes.toString('hex').slice(0, 63)}g`],
    ['empty', ''],
  ])('refuses %s', (_what, text) => {
    expect(parseKeyEncryptionKey(text)).toBeUndefined();
  });
});
