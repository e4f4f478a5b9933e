import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { KeyEncryptionKey } from '../../core/parseKeyEncryptionKey';

// Token keys (TokenKey.keyMaterial) are what every token's MAC key is derived from, so whoever
// reads them can mint tokens. With TOKEN_KEY_ENCRYPTION_KEY set they are stored wrapped:
// AES-256-GCM (node:crypto) with a random 96-bit nonce, the key's app and id as additional data (a
// wrapped key moved to another row does not open), and the id of the key-encryption key in front,
// so that a rotation can tell which key opens a row. GCM rather than AES key wrap (RFC 3394):
// node:crypto has both, but only GCM takes additional data. Rows written without a
// key-encryption key are plain base64 and are still read, so an existing database keeps working.

const PREFIX = 'kek1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

/** The configured key-encryption keys: the current one wraps (none: plain), every one unwraps. */
export interface TokenKeyEncryption {
  current: KeyEncryptionKey | undefined;
  previous: readonly KeyEncryptionKey[];
}

export const NO_TOKEN_KEY_ENCRYPTION: TokenKeyEncryption = { current: undefined, previous: [] };

const additionalData = (tenant: string, keyId: number) => Buffer.from(`passwordless-selfhost token key ${tenant}:${keyId}`);

/** The id of the key-encryption key a stored value is wrapped with; undefined for a plain one. */
export function wrappingKeyIdOf(stored: string): string | undefined {
  if (!stored.startsWith(PREFIX)) return undefined;
  return stored.slice(PREFIX.length).split(':')[0];
}

/** `material` (base64, as generated) wrapped with `kek` for the row (tenant, keyId). */
export function wrapKeyMaterial(material: string, kek: KeyEncryptionKey, tenant: string, keyId: number): string {
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(tenant, keyId));
  const sealed = Buffer.concat([nonce, cipher.update(Buffer.from(material, 'base64')), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${kek.id}:${sealed.toString('base64url')}`;
}

/**
 * The key material of a stored value: a plain one as it is, a wrapped one opened with whichever
 * configured key it names. Undefined when that key is not configured, or the value does not open
 * (altered, or moved from another row).
 */
export function unwrapKeyMaterial(stored: string, encryption: TokenKeyEncryption, tenant: string, keyId: number): string | undefined {
  const kekId = wrappingKeyIdOf(stored);
  if (kekId === undefined) return stored;
  const kek = [encryption.current, ...encryption.previous].find((k) => k?.id === kekId);
  if (!kek) return undefined;
  const sealed = Buffer.from(stored.slice(PREFIX.length + kekId.length + 1), 'base64url');
  if (sealed.length <= NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek.key, sealed.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(tenant, keyId));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('base64');
  } catch {
    return undefined;
  }
}

/** How a new token key is stored: wrapped with the current key-encryption key, else plain. */
export function storableKeyMaterial(material: string, encryption: TokenKeyEncryption, tenant: string, keyId: number): string {
  return encryption.current ? wrapKeyMaterial(material, encryption.current, tenant, keyId) : material;
}
