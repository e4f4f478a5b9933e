import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from './parseKeyEncryptionKey';

// What TOKEN_KEY_ENCRYPTION_KEY protects (token keys, webhook secrets) is stored sealed the same
// way: AES-256-GCM (node:crypto) with a random 96-bit nonce, additional data naming what the value
// is and which row holds it (a sealed value moved to another row, or read as another kind of
// secret, does not open), and the id of the key-encryption key in front, so that a rotation can
// tell which key opens a row. GCM rather than AES key wrap (RFC 3394): node:crypto has both, but
// only GCM takes additional data. Stored form: `kek1:<key id>:<base64url(nonce | ciphertext | tag)>`.
// Values already in databases are in exactly this form: the prefix and the additional data must
// never change.

/** What every sealed value starts with (and no plain base64 value can: it has no ':'). */
export const SEALED_PREFIX = 'kek1:';
const PREFIX = SEALED_PREFIX;
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** `purpose` says what is sealed and where it lives, e.g. `token key <app>:<keyId>`. */
const additionalData = (purpose: string) => Buffer.from(`passwordless-selfhost ${purpose}`);

/** The id of the key-encryption key a stored value is sealed with; undefined for a value stored as it is. */
export function sealingKeyIdOf(stored: string): string | undefined {
  if (!stored.startsWith(PREFIX)) return undefined;
  return stored.slice(PREFIX.length).split(':')[0];
}

/** `plaintext` sealed with `kek`, bound to `purpose`. */
export function sealWithKeyEncryptionKey(plaintext: Buffer, kek: KeyEncryptionKey, purpose: string): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(purpose));
  const sealed = Buffer.concat([nonce, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${kek.id}:${sealed.toString('base64url')}`;
}

/**
 * The plaintext of a sealed value, opened with whichever of `keys` it names. Undefined when that
 * key is not among them, or the value does not open (altered, another purpose or row). Callers
 * check `sealingKeyIdOf` first: a value without the prefix is not sealed.
 */
export function openWithKeyEncryptionKey(stored: string, keys: readonly (KeyEncryptionKey | undefined)[], purpose: string): Buffer | undefined {
  const kekId = sealingKeyIdOf(stored);
  const kek = kekId === undefined ? undefined : keys.find((k) => k?.id === kekId);
  if (!kek) return undefined;
  const sealed = Buffer.from(stored.slice(PREFIX.length + kek.id.length + 1), 'base64url');
  if (sealed.length <= NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek.key, sealed.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(purpose));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    return undefined;
  }
}
