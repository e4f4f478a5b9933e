import { createHmac, timingSafeEqual } from 'node:crypto';

/** How far the proof's time may be from the host's: a copied header is worth nothing after this. */
export const DOCTOR_PROOF_WINDOW_SECONDS = 300;

/**
 * Whether `header` is a {@link doctorProof} under `apiSecret` made within the window of `nowMs`.
 * The MAC is compared as the text it must be, in constant time: decoding the given text first
 * would accept other spellings of the same bytes (the last of 43 base64url characters carries two
 * unused bits, so four characters decode alike there).
 */
export function isDoctorProof(header: string | undefined, apiSecret: string, nowMs: number): boolean {
  const match = header === undefined ? null : /^(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(header);
  if (!match) return false;
  const seconds = Number(match[1]);
  if (Math.abs(nowMs / 1000 - seconds) > DOCTOR_PROOF_WINDOW_SECONDS) return false;
  const expected = Buffer.from(createHmac('sha256', apiSecret).update(`passwordless-doctor:${seconds}`).digest('base64url'));
  return timingSafeEqual(expected, Buffer.from(match[2]));
}
