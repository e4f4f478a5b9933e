import type { Request } from 'express';
import { requireSessionValues, sessionValuesOf } from './sessionValues';

/**
 * Notes, right after the host's own password sign-in (`req.logIn`), that `userId` proved their
 * password in this session now (host time): the one proof that lets the session ask for the
 * automatic passkey upgrade (see routes/upgrade.ts).
 */
export function recordPasswordSignIn(req: Request, userId: string, now: number): void {
  requireSessionValues(req).passwordlessPasswordSignIn = { userId, at: now };
}

/**
 * Takes the password sign-in of `userId` from the session if it is at most `withinSeconds` old:
 * true once per password sign-in, so that one password proof offers one upgrade. A stale or
 * another user's record is dropped too.
 */
export function takeFreshPasswordSignIn(req: Request, userId: string, withinSeconds: number, now: number): boolean {
  const session = sessionValuesOf(req);
  const record = session?.passwordlessPasswordSignIn;
  if (!session || !record) return false;
  delete session.passwordlessPasswordSignIn;
  return record.userId === userId && record.at <= now && now - record.at <= withinSeconds * 1000;
}
