import { createHmac } from 'node:crypto';

/** A key-encryption key: 32 bytes, and the short id stored beside what it wraps. */
export interface KeyEncryptionKey {
  /** Not secret: 8 hex characters derived from the key, so a stored value names the key that opens it. */
  id: string;
  key: Buffer;
}

const KEY_BYTES = 32;

/**
 * TOKEN_KEY_ENCRYPTION_KEY as configured: 32 random bytes written as 64 hex characters, or as
 * base64 / base64url (what `generate-key token-encryption` prints). Undefined for anything else.
 */
export function parseKeyEncryptionKey(text: string): KeyEncryptionKey | undefined {
  const value = text.trim();
  let key: Buffer | undefined;
  if (/^[0-9a-fA-F]{64}$/.test(value)) key = Buffer.from(value, 'hex');
  else if (/^[A-Za-z0-9+/_-]{43}=?$/.test(value)) key = Buffer.from(value.replace(/=$/, '').replace(/\+/g, '-').replace(/\//g, '_'), 'base64url');
  if (!key || key.length !== KEY_BYTES) return undefined;
  return { id: createHmac('sha256', key).update('passwordless-selfhost key-encryption-key id').digest('hex').slice(0, 8), key };
}
