import { randomBytes } from 'node:crypto';

/** A signing secret in Standard Webhooks' form: `whsec_` and the base64 of 32 random bytes. */
export function newWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
