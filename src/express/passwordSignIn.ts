import { randomBytes } from 'node:crypto';
import type { Request } from 'express';
import { requireSessionValues, sessionValuesOf } from './sessionValues';

/**
 * Notes, right after the host's own password sign-in (`req.logIn`), that `userId` proved their
 * password in this session now (host time), with a random id for that proof: the proof lets the
 * session get one registration token (the automatic upgrade, or an added passkey) within
 * `freshSessionSeconds`, and the id is what the service redeems, once, when that token is made
 * (see accountToken.ts): so one proof makes one token even when requests race.
 */
export function recordPasswordSignIn(req: Request, userId: string, now: number): void {
  requireSessionValues(req).passwordlessPasswordSignIn = { userId, at: now, proofId: randomBytes(18).toString('base64url') };
}

/**
 * The id of this session's password proof of `userId` if it is at most `withinSeconds` old (and
 * not known to be spent); else undefined. It is not spent here: the service spends it with the
 * token it makes, atomically (reading and deleting it in the session is not atomic: two requests
 * of one session both read it before either saves).
 */
export function freshPasswordProof(req: Request, userId: string, withinSeconds: number, now: number): string | undefined {
  const record = sessionValuesOf(req)?.passwordlessPasswordSignIn;
  if (!record || record.userId !== userId || typeof record.proofId !== 'string') return undefined;
  return record.at <= now && now - record.at <= withinSeconds * 1000 ? record.proofId : undefined;
}

/** Forgets the session's password proof: spent (by this request or a racing one), so later requests need not ask the service. */
export function forgetPasswordProof(req: Request): void {
  const session = sessionValuesOf(req);
  if (session) delete session.passwordlessPasswordSignIn;
}
