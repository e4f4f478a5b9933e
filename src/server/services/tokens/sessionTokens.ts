import { z } from 'zod';
import { ATTESTATIONS, MAX_ALIASES, USER_VERIFICATIONS } from '../../../shared/vocabulary';
import { MAX_TOKEN_LIFETIME_MS, payloadText, tokenPayload } from './tokenService';

// `session_` tokens: what `/register/begin` and `/signin/begin` promised the browser, handed back
// by `/register/complete` and `/signin/complete`. Both ceremonies share the token kind, so one
// schema (`sessionSchema`) checks either and `ceremony` tells them apart.

/** The most credentials a sign-in offers; longer allow lists are cut to the most recently used. */
export const MAX_ALLOW_CREDENTIALS = 64;

const ceremonyFields = {
  challenge: payloadText(),
  /** The single-use id redeemed when the ceremony completes (see `ChallengeStore`); a session without one is invalid. */
  sid: payloadText(),
  origin: payloadText(),
  rpId: payloadText(),
  userVerification: z.enum(USER_VERIFICATIONS),
};

const registrationSessionSchema = tokenPayload({
  ...ceremonyFields,
  ceremony: z.literal('registration'),
  userId: payloadText().min(1),
  attestation: z.enum(ATTESTATIONS),
  aliases: z.array(payloadText().min(1)).max(MAX_ALIASES),
  aliasHashing: z.boolean(),
  /** The register_ token the ceremony began with, redeemed when its passkey is stored, and when that token expires. */
  registerTokenId: payloadText(),
  registerTokenExp: z.number(),
  /** Begun as a conditional create from an upgrade token: complete accepts a passkey without the user-present flag. */
  conditional: z.literal(true).optional(),
});
export type RegistrationSession = z.output<typeof registrationSessionSchema>;

const signinSessionSchema = tokenPayload({
  ...ceremonyFields,
  ceremony: z.literal('authentication'),
  purpose: z.string(),
  /** Lifetime of the verify token the sign-in yields. */
  ttlSeconds: z.number().int().min(1).max(MAX_TOKEN_LIFETIME_MS / 1000),
  /** Credential ids offered; empty for discoverable sign-in. */
  allow: z.array(z.string()).max(MAX_ALLOW_CREDENTIALS),
  /** For a sign-in that named a user: a MAC of that userId (`expectedUserTag`), which the passkey's owner must match. */
  expectedUser: payloadText().optional(),
});
export type SigninSession = z.output<typeof signinSessionSchema>;

export const sessionSchema = z.discriminatedUnion('ceremony', [registrationSessionSchema, signinSessionSchema]);
