import { openWithKeyEncryptionKey, sealWithKeyEncryptionKey, sealingKeyIdOf } from '../../core/keyEncryptionKeySealing';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';

// A webhook secret signs what the service sends, so whoever reads it can forge webhooks. It is
// stored as token keys are (core/keyEncryptionKeySealing.ts): with TOKEN_KEY_ENCRYPTION_KEY set,
// sealed under that key with the endpoint's app and id in the additional data (a sealed secret
// moved to another row does not open); without it, as it is.

/** Names what is sealed: byte for byte what rows already in databases were sealed with. */
const purpose = (tenant: string, endpointId: string) => `webhook secret ${tenant}:${endpointId}`;

/** How a webhook secret is stored: sealed with the current key-encryption key, else as it is. */
export function sealWebhookSecret(secret: string, encryption: TokenKeyEncryption, tenant: string, endpointId: string): string {
  const kek = encryption.current;
  return kek ? sealWithKeyEncryptionKey(Buffer.from(secret, 'utf8'), kek, purpose(tenant, endpointId)) : secret;
}

/** The secret of a stored value; undefined when the key that sealed it is not configured or the value does not open. */
export function openWebhookSecret(stored: string, encryption: TokenKeyEncryption, tenant: string, endpointId: string): string | undefined {
  if (sealingKeyIdOf(stored) === undefined) return stored;
  return openWithKeyEncryptionKey(stored, [encryption.current, ...encryption.previous], purpose(tenant, endpointId))?.toString('utf8');
}
