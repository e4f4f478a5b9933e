/**
 * The registration and sign-in vocabulary of the wire: what `/register/token` and the
 * authentication configurations accept, spelled once for the service that checks it and the
 * middleware that sends it (its `Register__*` settings).
 */

/** WebAuthn user verification (`userVerification`, `userVerificationRequirement`). */
export const USER_VERIFICATIONS = ['preferred', 'required', 'discouraged'] as const;
export type UserVerification = (typeof USER_VERIFICATIONS)[number];

/** Attestation conveyance; `direct` and `indirect` need a plan that allows attestation. */
export const ATTESTATIONS = ['none', 'direct', 'indirect'] as const;
export type Attestation = (typeof ATTESTATIONS)[number];

/** Authenticator attachment; `any` leaves it to the browser. */
export const AUTHENTICATOR_TYPES = ['any', 'platform', 'cross-platform'] as const;
export type AuthenticatorType = (typeof AUTHENTICATOR_TYPES)[number];

/** Aliases of one user (the spec's limits): at most this many, each at most this long. */
export const MAX_ALIASES = 10;
export const MAX_ALIAS_LENGTH = 250;
