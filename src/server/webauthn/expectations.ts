import type { UserVerification } from '../../shared/vocabulary';

/** What a ceremony session promised the browser, which the response must now match. */
export interface CeremonySession {
  challenge: string;
  origin: string;
  rpId: string;
  userVerification: UserVerification;
}

/** SimpleWebAuthn's `expected*` options for a session. */
export function expectationsOf(session: CeremonySession) {
  return {
    expectedChallenge: session.challenge,
    expectedOrigin: session.origin,
    expectedRPID: session.rpId,
    requireUserVerification: session.userVerification === 'required',
  };
}
