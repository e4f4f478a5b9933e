import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type { TokenKeyEncryption } from '../tokens/tokenKeyWrapping';

// A webhook secret signs what the service sends, so whoever reads it can forge webhooks. It is
// stored as token keys are (tokenKeyWrapping.ts): with TOKEN_KEY_ENCRYPTION_KEY set, sealed with
// AES-256-GCM under that key, the endpoint's app and id as additional data (a sealed secret
// moved to another row does not open), the key's id in front; without it, as it is.

const PREFIX = 'kek1:';
const NONCE_BYTES = 12;
const TAG_BYTES = 16;

const additionalData = (tenant: string, endpointId: string) => Buffer.from(`passwordless-selfhost webhook secret ${tenant}:${endpointId}`);

/** How a webhook secret is stored: sealed with the current key-encryption key, else as it is. */
export function sealWebhookSecret(secret: string, encryption: TokenKeyEncryption, tenant: string, endpointId: string): string {
  const kek = encryption.current;
  if (!kek) return secret;
  const nonce = randomBytes(NONCE_BYTES);
  const cipher = createCipheriv('aes-256-gcm', kek.key, nonce, { authTagLength: TAG_BYTES });
  cipher.setAAD(additionalData(tenant, endpointId));
  const sealed = Buffer.concat([nonce, cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return `${PREFIX}${kek.id}:${sealed.toString('base64url')}`;
}

/** The secret of a stored value; undefined when the key that sealed it is not configured or the value does not open. */
export function openWebhookSecret(stored: string, encryption: TokenKeyEncryption, tenant: string, endpointId: string): string | undefined {
  if (!stored.startsWith(PREFIX)) return stored;
  const [kekId, body] = stored.slice(PREFIX.length).split(':');
  const kek = [encryption.current, ...encryption.previous].find((k) => k?.id === kekId);
  if (!kek || body === undefined) return undefined;
  const sealed = Buffer.from(body, 'base64url');
  if (sealed.length <= NONCE_BYTES + TAG_BYTES) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', kek.key, sealed.subarray(0, NONCE_BYTES), { authTagLength: TAG_BYTES });
    decipher.setAAD(additionalData(tenant, endpointId));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    return Buffer.concat([decipher.update(sealed.subarray(NONCE_BYTES, sealed.length - TAG_BYTES)), decipher.final()]).toString('utf8');
  } catch {
    return undefined;
  }
}
