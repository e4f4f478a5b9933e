/** What the session recorded of the sign-in that opened it (see accountSession.ts). */
export interface SessionProof {
  /** When the service issued the token that signed the session in (epoch ms, the service's clock). */
  provenAt: number;
  /** The passkey that signed it in, or that the sign-up made (base64url). */
  credentialId?: string;
}

/**
 * Whether a passkey may confirm a step-up in a session: the passkey that opened the session, one
 * that existed before it, or one at least `minAgeSeconds` old at `at`. So a stolen session cannot
 * add a passkey and at once step up with it to delete the owner's passkeys; and the owner, told of
 * the new passkey, has that long to remove it. `session` is undefined for a session the middleware
 * did not open (a host's own login route): then only the age counts. Every time is the service's
 * (a passkey's creation, a token's issue), epoch ms, so the host's clock plays no part.
 */
export function passkeyMayStepUp(passkey: { id: string; createdAt: number }, session: SessionProof | undefined, minAgeSeconds: number, at: number): boolean {
  if (!Number.isFinite(passkey.createdAt)) return false;
  if (session && (passkey.id === session.credentialId || passkey.createdAt < session.provenAt)) return true;
  return at - passkey.createdAt >= minAgeSeconds * 1000;
}
