import type { Request } from 'express';

/** How the signed-in user's session was opened: a passkey sign-in, the end of a sign-up, or a recovery link. */
export type SignInWay = 'sign-in' | 'sign-up' | 'recovery';

/** What the middleware keeps in the visitor's express-session, each under its own key. */
export interface SessionValues {
  /** A sign-up whose passkey does not exist yet (see pendingSignUp.ts). */
  passwordlessPendingSignUp?: import('./pendingSignUp').PendingSignUp;
  /**
   * How this session was signed in (see accountSession.ts): the way, when by the host's clock, the
   * passkey of it (base64url), and for a recovery the first passkey the session added.
   */
  passwordlessSignIn?: { userId: string; via: SignInWay; at: number; credentialId?: string; addedPasskeyId?: string };
  /** When the signed-in user last stepped up, per purpose, and with which passkey (epoch ms, credential id). */
  passwordlessStepUps?: Record<string, { userId: string; at: number; credentialId?: string }>;
  /** The host's own password sign-in of `userId`, by the host's clock, and the id the service spends it under (see passwordSignIn.ts). */
  passwordlessPasswordSignIn?: { userId: string; at: number; proofId?: string };
  /** Whose session this is, where it runs and when it was opened and last seen, for the session list (see sessions/noteSession.ts). */
  passwordlessSession?: import('./sessions/noteSession').SessionRecord;
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
