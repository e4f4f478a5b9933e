import { createHmac } from 'node:crypto';

/** The header the doctor sends to the host's diagnostic route. */
export const DOCTOR_HEADER = 'Passwordless-Doctor';

/**
 * `<unix seconds>.<HMAC-SHA256 of the time under the ApiSecret>`: proves to the host that the
 * caller holds its ApiSecret, within a few minutes, without sending the secret.
 */
export function doctorProof(apiSecret: string, nowMs: number): string {
  const seconds = Math.floor(nowMs / 1000);
  return `${seconds}.${createHmac('sha256', apiSecret).update(`passwordless-doctor:${seconds}`).digest('base64url')}`;
}
