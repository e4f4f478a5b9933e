import { createHmac, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import type { PendingSignUp } from './pendingSignUp';

/**
 * What an email-verification link carries of the sign-up it verifies, so that the link works in
 * whichever browser opens it: the pending sign-up itself, `expiresAt` being the link's own end.
 * The middleware signs it with a key derived from the app's secret, so nobody can forge or alter
 * one, and the service's magic-link token in the same link proves the mailbox was reached.
 * Nothing is stored until the link is used.
 */
export type SignUpClaim = PendingSignUp;

const claimSchema = z.object({
  u: z.string().min(1).max(64),
  e: z.string().max(254),
  n: z.string().max(256),
  d: z.string().max(256),
  a: z.array(z.string().max(250)).max(10).default([]),
  x: z.number().int(),
});

const keyOf = (apiSecret: string) => createHmac('sha256', 'passwordless-selfhost sign-up link').update(apiSecret).digest();
const macOf = (key: Buffer, payload: string) => createHmac('sha256', key).update(payload).digest();

/** `<base64url JSON>.<base64url HMAC>`, short enough for a URL. */
export function signSignUpClaim(claim: SignUpClaim, apiSecret: string): string {
  const payload = Buffer.from(JSON.stringify({ u: claim.userId, e: claim.email, n: claim.username, d: claim.displayName, ...(claim.aliases.length ? { a: claim.aliases } : {}), x: claim.expiresAt })).toString('base64url');
  return `${payload}.${macOf(keyOf(apiSecret), payload).toString('base64url')}`;
}

/** The claim of a link this app signed, or undefined for anything altered, forged, malformed or expired. */
export function openSignUpClaim(value: unknown, apiSecret: string, now = Date.now()): SignUpClaim | undefined {
  if (typeof value !== 'string' || value.length > 2048) return undefined;
  const [payload, mac, extra] = value.split('.');
  if (!payload || !mac || extra !== undefined) return undefined;
  const expected = macOf(keyOf(apiSecret), payload);
  const given = Buffer.from(mac, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let parsed: z.output<typeof claimSchema>;
  try {
    parsed = claimSchema.parse(JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')));
  } catch {
    return undefined;
  }
  if (parsed.x <= now) return undefined;
  return { userId: parsed.u, email: parsed.e, username: parsed.n, displayName: parsed.d, aliases: parsed.a, expiresAt: parsed.x };
}
