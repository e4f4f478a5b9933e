import { randomBytes } from 'node:crypto';
import { verifyAuthenticationResponse, verifyRegistrationResponse, type AuthenticationResponseJSON, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { createCredential, getAssertion, type AssertOptions, type CreateOptions } from '../../../test/support/softwareAuthenticator';
import { describeVerificationFailure } from './verificationFailure';

const CHALLENGE = 'the-challenge-of-this-session';
const ORIGIN = 'https://app.example.com';
const RPID = 'app.example.com';

const REASON = {
  challenge: "The response does not answer this session's challenge.",
  origin: 'The response was made for a different origin.',
  rpId: 'The response was made for a different RP ID.',
  userVerification: 'User verification was required but the authenticator did not perform it.',
  userPresence: 'The authenticator did not confirm user presence.',
  counter: 'The signature counter did not increase: this authenticator may have been cloned.',
  backup: 'The authenticator reported inconsistent backup flags.',
  type: 'The response is for a different kind of ceremony.',
  attestation: 'The attestation statement could not be verified.',
  signature: 'The signature could not be verified.',
  malformed: 'The authenticator response is malformed or could not be verified.',
};

/** What SimpleWebAuthn throws for `promise` (fails the test if it verifies). */
async function thrown(promise: Promise<unknown>): Promise<Error> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof Error)) throw new Error('SimpleWebAuthn accepted the response');
  return error;
}

/** SimpleWebAuthn's own error for a registration made with `made`, checked with `checked`. */
function registrationError(made: Partial<CreateOptions>, checked: { requireUserVerification?: boolean } = {}) {
  const { response } = createCredential({ challenge: CHALLENGE, rpId: RPID, origin: ORIGIN, userHandle: 'dXNlcg', ...made });
  const body = response.response as { AttestationObject: string; clientDataJson: string };
  return thrown(
    verifyRegistrationResponse({
      response: { ...response, response: { attestationObject: body.AttestationObject, clientDataJSON: body.clientDataJson } } as unknown as RegistrationResponseJSON,
      expectedChallenge: CHALLENGE,
      expectedOrigin: ORIGIN,
      expectedRPID: RPID,
      requireUserVerification: checked.requireUserVerification ?? false,
    }),
  );
}

/** SimpleWebAuthn's own error for an assertion made with `made`, for a credential whose stored counter is `storedCounter`. */
function authenticationError(made: Partial<AssertOptions>, checked: { requireUserVerification?: boolean; storedCounter?: number } = {}) {
  const { credential } = createCredential({ challenge: CHALLENGE, rpId: RPID, origin: ORIGIN, userHandle: 'dXNlcg' });
  const assertion = getAssertion(credential, { challenge: CHALLENGE, rpId: RPID, origin: ORIGIN, ...made });
  const body = assertion.response as { authenticatorData: string; clientDataJson: string; signature: string };
  return thrown(
    verifyAuthenticationResponse({
      response: { ...assertion, response: { authenticatorData: body.authenticatorData, clientDataJSON: body.clientDataJson, signature: body.signature } } as unknown as AuthenticationResponseJSON,
      expectedChallenge: CHALLENGE,
      expectedOrigin: ORIGIN,
      expectedRPID: RPID,
      requireUserVerification: checked.requireUserVerification ?? false,
      credential: { id: credential.idB64, publicKey: new Uint8Array(credential.cosePublicKey), counter: checked.storedCounter ?? 0 },
    }),
  );
}

describe('describeVerificationFailure', () => {
  // The errors the installed SimpleWebAuthn really throws, so that a release that rewords one shows here.
  it.each([
    ['a registration for another challenge', () => registrationError({ challenge: 'another-challenge' }), REASON.challenge],
    ['a registration from another origin', () => registrationError({ origin: 'https://evil.example.org' }), REASON.origin],
    ['a registration for another RP ID', () => registrationError({ rpId: 'evil.example.org' }), REASON.rpId],
    ['a registration without user verification where it is required', () => registrationError({ userVerified: false }, { requireUserVerification: true }), REASON.userVerification],
    ['a registration without user presence', () => registrationError({ userPresent: false, userVerified: false }), REASON.userPresence],
    ['a registration answering a sign-in (webauthn.get)', () => registrationError({ type: 'webauthn.get' }), REASON.type],
    ['a registration backed up but not backup-eligible', () => registrationError({ backupEligible: false, backupState: true }), REASON.backup],
    ['an assertion for another challenge', () => authenticationError({ challenge: 'another-challenge' }), REASON.challenge],
    ['an assertion from another origin', () => authenticationError({ origin: 'https://evil.example.org' }), REASON.origin],
    ['an assertion for another RP ID', () => authenticationError({ rpId: 'evil.example.org' }), REASON.rpId],
    ['an assertion without user verification where it is required', () => authenticationError({ userVerified: false }, { requireUserVerification: true }), REASON.userVerification],
    ['an assertion whose counter went back', () => authenticationError({ counter: 3 }, { storedCounter: 7 }), REASON.counter],
    ['an assertion answering a registration (webauthn.create)', () => authenticationError({ type: 'webauthn.create' }), REASON.type],
    ['an assertion backed up but not backup-eligible', () => authenticationError({ backupEligible: false, backupState: true }), REASON.backup],
    ['an assertion without user presence', () => authenticationError({ userPresent: false, userVerified: false }), REASON.userPresence],
    ['a registration from an origin whose name holds another check\'s word', () => registrationError({ origin: 'https://challenge.example.org' }), REASON.origin],
  ])('explains %s', async (_label, fail, reason) => {
    const error = await fail();
    expect({ library: error.message, explained: describeVerificationFailure(error) }).toEqual({ library: error.message, explained: reason });
  });

  // Messages of SimpleWebAuthn 14 that the software authenticator cannot provoke, as the library writes them.
  it.each([
    ['Custom challenge verifier returned false for registration response challenge "abc"', REASON.challenge],
    ['Unexpected cross-origin authentication response top origin of "https://evil.example.org", expected: https://app.example.com', REASON.origin],
    ['None attestation had unexpected attestation statement', REASON.attestation],
    ['Unsupported Attestation Format: fido-u3f', REASON.attestation],
    ['No attestation signature provided in attestation statement (Packed)', REASON.attestation],
    ['Certificate is not yet valid or expired', REASON.attestation],
    ['Credential response signature was not a base64url string', REASON.signature],
    ['Authenticator data was 3 bytes, expected at least 37 bytes', REASON.malformed],
    ['Leftover bytes detected while parsing authenticator data', REASON.malformed],
    ['Credential ID was not base64url-encoded', REASON.malformed],
    ['Unexpected public key alg "-65535", expected one of "-8,-7,-257"', 'The authenticator used a public-key algorithm this service does not accept.'],
    ['Attestation challenge was not equal to client data hash (Android Key)', REASON.attestation],
    ['Unexpected registration response origin "https://a.example.org", expected one of: https://challenge.example.com, https://counter.example.com', REASON.origin],
  ])('explains "%s"', (message, reason) => {
    expect(describeVerificationFailure(new Error(message))).toBe(reason);
  });

  it('never repeats what the library quoted (values from the request)', async () => {
    const origin = `https://${randomBytes(6).toString('hex')}.example.org`;
    const error = await registrationError({ origin });
    expect(error.message).toContain(origin);
    expect(describeVerificationFailure(error)).not.toContain(origin);
  });

  it.each([
    ['a thrown string', 'challenge mismatch'],
    ['undefined', undefined],
    ['an object with a message', { message: 'Unexpected RP ID hash' }],
  ])('answers the general explanation for %s, which is not an Error', (_label, value) => {
    expect(describeVerificationFailure(value)).toBe(REASON.malformed);
  });
});
