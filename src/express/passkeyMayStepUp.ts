import type { SignInWay } from './sessionValues';

/** What the session recorded of the sign-in that opened it (see accountSession.ts). */
export interface SessionProof {
  /** How the session was opened. */
  via: SignInWay;
  /**
   * The passkey the session's own sign-up made (`via` 'sign-up'), or the one added in the
   * recovered session (`via` 'recovery'); base64url. Undefined for a passkey sign-in.
   */
  madePasskeyId?: string;
}

/**
 * Whether a passkey may confirm a step-up in a session: only one at least `minAgeSeconds` old at
 * `at`, in any session, whoever opened it; so a passkey made with a stolen session, or with a
 * password alone, confirms nothing until the owner, told of it, has had that long to remove it
 * (a fresh sign-in with that passkey is no exception, nor is a session opened after it was made).
 * The one exception is the session of the sign-up or the recovery that made the passkey: the
 * owner of the mailbox is still on the page that made it. `session` is undefined for a session the
 * middleware did not open (a host's own login route). Every time is the service's (a passkey's
 * creation, a token's issue), epoch ms, so the host's clock plays no part.
 */
export function passkeyMayStepUp(passkey: { id: string; createdAt: number }, session: SessionProof | undefined, minAgeSeconds: number, at: number): boolean {
  if (!Number.isFinite(passkey.createdAt)) return false;
  if (session && session.via !== 'sign-in' && session.madePasskeyId !== undefined && passkey.id === session.madePasskeyId) return true;
  return at - passkey.createdAt >= minAgeSeconds * 1000;
}
