import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far the proof's time may be from the host's: a copied header is worth nothing after this. */
export const DOCTOR_PROOF_WINDOW_SECONDS = 300;

/** Whether `header` is a {@link doctorProof} under `apiSecret` made within the window of `nowMs`. */
export function isDoctorProof(header: string | undefined, apiSecret: string, nowMs: number): boolean {
  const match = header === undefined ? null : /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(header);
  if (!match) return false;
  const seconds = Number(match[1]);
  if (Math.abs(nowMs / 1000 - seconds) > DOCTOR_PROOF_WINDOW_SECONDS) return false;
  const expected = createHmac('sha256', apiSecret).update(`passwordless-doctor:${seconds}`).digest();
  return timingSafeEqual(expected, Buffer.from(match[2], 'base64url'));
}
