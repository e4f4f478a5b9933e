import { createHmac, type KeyObject } from 'node:crypto';

/**
 * The `webhook-signature` value of one secret (Standard Webhooks `v1`): base64 of HMAC-SHA256 over
 * `id.timestamp.payload`, the timestamp in whole seconds. The same bytes as the `standardwebhooks`
 * package's `sign` (its test holds them equal), made with node's crypto: the package signs with a
 * JavaScript SHA-256, which cost the delivery worker more than the rest of a signature's work.
 * Receivers still verify with the package.
 */
export function signStandardWebhook(key: KeyObject, id: string, timestamp: Date, payload: string): string {
  return `v1,${createHmac('sha256', key).update(`${id}.${Math.floor(timestamp.getTime() / 1000)}.${payload}`).digest('base64')}`;
}
