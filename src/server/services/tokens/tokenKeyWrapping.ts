import { openWithKeyEncryptionKey, sealWithKeyEncryptionKey, sealingKeyIdOf } from '../../core/keyEncryptionKeySealing';
import type { KeyEncryptionKey } from '../../core/parseKeyEncryptionKey';

// Token keys (TokenKey.keyMaterial) are what every token's MAC key is derived from, so whoever
// reads them can mint tokens. With TOKEN_KEY_ENCRYPTION_KEY set they are stored wrapped
// (core/keyEncryptionKeySealing.ts), the key's app and id in the additional data, so a wrapped key
// moved to another row does not open. Rows written without a key-encryption key are plain base64
// and are still read, so an existing database keeps working.

/** The configured key-encryption keys: the current one wraps (none: plain), every one unwraps. */
export interface TokenKeyEncryption {
  current: KeyEncryptionKey | undefined;
  previous: readonly KeyEncryptionKey[];
}

export const NO_TOKEN_KEY_ENCRYPTION: TokenKeyEncryption = { current: undefined, previous: [] };

/** Names what is sealed: byte for byte what rows already in databases were sealed with. */
const purpose = (tenant: string, keyId: number) => `token key ${tenant}:${keyId}`;

/** The id of the key-encryption key a stored value is wrapped with; undefined for a plain one. */
export const wrappingKeyIdOf = sealingKeyIdOf;

/** `material` (base64, as generated) wrapped with `kek` for the row (tenant, keyId). */
export function wrapKeyMaterial(material: string, kek: KeyEncryptionKey, tenant: string, keyId: number): string {
  return sealWithKeyEncryptionKey(Buffer.from(material, 'base64'), kek, purpose(tenant, keyId));
}

/**
 * The key material of a stored value: a plain one as it is, a wrapped one opened with whichever
 * configured key it names. Undefined when that key is not configured, or the value does not open
 * (altered, or moved from another row).
 */
export function unwrapKeyMaterial(stored: string, encryption: TokenKeyEncryption, tenant: string, keyId: number): string | undefined {
  if (wrappingKeyIdOf(stored) === undefined) return stored;
  return openWithKeyEncryptionKey(stored, [encryption.current, ...encryption.previous], purpose(tenant, keyId))?.toString('base64');
}

/** How a new token key is stored: wrapped with the current key-encryption key, else plain. */
export function storableKeyMaterial(material: string, encryption: TokenKeyEncryption, tenant: string, keyId: number): string {
  return encryption.current ? wrapKeyMaterial(material, encryption.current, tenant, keyId) : material;
}
