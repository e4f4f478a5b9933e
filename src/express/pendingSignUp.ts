import type { Request } from 'express';
import { requireSessionValues, sessionValuesOf } from './sessionValues';

/**
 * A sign-up whose passkey does not exist yet. It lives in the visitor's session only: nothing is
 * written to the user store until its `passkey_register` token comes back at login, so an
 * abandoned or squatted sign-up leaves no user behind, and an email address is only claimed by
 * whoever completes a passkey ceremony for it.
 */
export interface PendingSignUp {
  /** The userId the service registers the passkey under (a random UUID), the user's id once created. */
  userId: string;
  email: string;
  username: string;
  displayName: string;
  /** Aliases the visitor asked for, kept only when the host allows visitor aliases. */
  aliases: string[];
  /** Epoch ms; after it the sign-up is gone (`Register__Expiration`). */
  expiresAt: number;
}

/** Keeps `signUp` as the session's one pending sign-up (a newer one replaces an older). */
export function holdSignUp(req: Request, signUp: PendingSignUp): void {
  requireSessionValues(req).passwordlessPendingSignUp = signUp;
}

/** The session's pending sign-up for `userId`, if it has one that has not expired. */
export function pendingSignUpFor(req: Request, userId: string, now = Date.now()): PendingSignUp | undefined {
  const signUp = sessionValuesOf(req)?.passwordlessPendingSignUp;
  return signUp && signUp.userId === userId && signUp.expiresAt > now ? signUp : undefined;
}

/** Forgets the session's pending sign-up (completed, or refused for good). */
export function dropSignUp(req: Request): void {
  const session = sessionValuesOf(req);
  if (session) delete session.passwordlessPendingSignUp;
}
