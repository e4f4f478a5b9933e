import type { Request } from 'express';

/** What the middleware keeps in the visitor's express-session, each under its own key. */
export interface SessionValues {
  /** A sign-up whose passkey does not exist yet (see pendingSignUp.ts). */
  passwordlessPendingSignUp?: import('./pendingSignUp').PendingSignUp;
  /** When the signed-in user last stepped up, per purpose: `{userId, at}` (epoch ms). */
  passwordlessStepUps?: Record<string, { userId: string; at: number }>;
}

/** The request's session, typed for the middleware's own values; undefined without express-session. */
export function sessionValuesOf(req: Request): SessionValues | undefined {
  return (req as Request & { session?: SessionValues }).session;
}

/** The session, or an error naming the set-up mistake (express-session not mounted before the routes). */
export function requireSessionValues(req: Request): SessionValues {
  const session = sessionValuesOf(req);
  if (!session) throw new Error('express-session must be mounted before the passwordless routes.');
  return session;
}
