import type { Request } from 'express';
import type { VerifiedUser } from './apiTypes';
import { credentialIdOf } from './credentialIdOf';
import type { SessionProof } from './passkeyMayStepUp';
import { requireSessionValues, sessionValuesOf, type SignInWay } from './sessionValues';
import { noteSession } from './sessions/noteSession';

/**
 * Notes, right after `req.logIn`, how the session of `verified.userId` was opened: the way, the
 * host's time (for how fresh it is), and the passkey of the proof (the one signed in with, or the
 * one a sign-up made).
 */
export function recordSignIn(req: Request, verified: Pick<VerifiedUser, 'userId' | 'credentialId'>, via: SignInWay, now: number): void {
  requireSessionValues(req).passwordlessSignIn = { userId: verified.userId, via, at: now, credentialId: credentialIdOf(verified) };
  noteSession(req, verified.userId, now, true);
}

/** What the session recorded of the sign-in of `userId`, if the middleware opened it. */
export function sessionProof(req: Request, userId: string): SessionProof | undefined {
  const record = sessionValuesOf(req)?.passwordlessSignIn;
  if (record?.userId !== userId) return undefined;
  const madePasskeyId = record.via === 'sign-up' ? record.credentialId : record.via === 'recovery' ? record.addedPasskeyId : undefined;
  return { via: record.via, ...(madePasskeyId === undefined ? {} : { madePasskeyId }) };
}

/**
 * Notes that the recovered session of `userId` added the passkey `id` (the browser reported it):
 * the first one is the passkey "the recovery made", which may step up in this session at once.
 */
export function notePasskeyAddedAfterRecovery(req: Request, userId: string, id: string): void {
  const record = sessionValuesOf(req)?.passwordlessSignIn;
  if (record?.userId === userId && record.via === 'recovery' && record.addedPasskeyId === undefined) record.addedPasskeyId = id;
}

/**
 * Whether a sign-up or a recovery opened this session of `userId` within the last `withinSeconds`:
 * the owner of the mailbox just proved itself, and may add a passkey without stepping up (a
 * recovered user has none that works; a new user is still on the page that made the first).
 */
export function freshAccountSession(req: Request, userId: string, withinSeconds: number, now: number): boolean {
  const record = sessionValuesOf(req)?.passwordlessSignIn;
  if (!record || record.userId !== userId || record.via === 'sign-in') return false;
  return record.at <= now && now - record.at <= withinSeconds * 1000;
}
