import { inSpan } from '../../core/telemetry/tracing';
import { ATTESTATIONS, AUTHENTICATOR_TYPES, MAX_ALIASES, USER_VERIFICATIONS } from '../../../shared/vocabulary';
import { verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { utcDayOf } from '../../core/utcDay';
import { MAX_NAME_LENGTH, MAX_ORIGIN_LENGTH, MAX_RPID_LENGTH, boundedString, ciEnum, ciObject, customerUserId, looseBoolean, looseString } from '../../core/validation';
import type { CredentialRepository, PasskeyRegistration, RedemptionRepository, RegistrationRepository, WebhookEvent } from '../../store/repositories';
import { appDeletedMeanwhile } from '../../core/storeProblem';
import { SUPPORTED_ALGORITHM_IDS } from '../../webauthn/algorithms';
import { toBase64Url, userHandleOf } from '../../webauthn/encoding';
import { resolveCeremonyOrigin } from '../../webauthn/origins';
import { isUsablePublicKey } from '../../webauthn/publicKey';
import { descriptorOf } from '../../webauthn/descriptors';
import { base64UrlString, ceremonyRequestFields, publicKeyCredentialSchema } from '../../webauthn/responseSchemas';
import type { ClientContext } from './clientContext';
import { describeVerificationFailure } from '../../webauthn/verificationFailure';
import { responseOriginRefusal } from '../../webauthn/responseOriginRefusal';
import { expectationsOf } from '../../webauthn/expectations';
import { ALIAS_WRITE_ATTEMPTS, aliasConflict, aliasListSchema, newAliases, type AliasService } from '../users/aliases';
import { attestationAllowed, type AppFeaturesCache } from '../apps/appFeaturesCache';
import type { ChallengeStore } from './challenges';
import type { EventLog } from '../events/eventLog';
import type { AuthenticatorPolicy } from '../authenticators/authenticatorPolicy';
import { sessionSchema, type RegistrationSession } from '../tokens/sessionTokens';
import { MAX_TOKEN_LIFETIME_MS, payloadText, tokenPayload, type TokenService } from '../tokens/tokenService';
import { newVerifyPayload, type VerifyTokenPayload } from '../tokens/verifyTokens';
import { assertRegisterTokenUnused, registerTokenAlreadyUsed, registerTokenIdOf, spendProof } from './registerTokenRedemption';
import { passkeyName } from '../../core/passkeyName';
import { registrationExtensionInputs, registrationExtensionsSchema } from '../../webauthn/passkeyExtensions';
import { newPrfSalt } from '../../webauthn/prfSalt';
import { conditionalCreateAllowed } from './conditionalCreateAllowed';

const DEFAULT_REGISTER_TTL_MS = 120_000;
/** A `proofId`: what a caller may spend once per app (see registerTokenSchema). */
const PROOF_ID = /^[A-Za-z0-9_-]{16,128}$/;
const VERIFY_TOKEN_TTL_SECONDS = 120;
const MAX_CREDENTIAL_ID_BYTES = 1023;
/** The most passkeys `excludeCredentials` names (the user's most recently used): a cap on what one begin reads. */
const MAX_EXCLUDE_CREDENTIALS = 256;
const TRANSPORTS = ['ble', 'cable', 'hybrid', 'internal', 'nfc', 'smart-card', 'usb'];

// Reference accepts 'CrossPlatform', 'cross-platform', 0 and 1 for the attachment.
const authenticatorType = z.preprocess((v) => {
  if (v === 0 || v === '0') return 'platform';
  if (v === 1 || v === '1') return 'cross-platform';
  return typeof v === 'string' ? v.toLowerCase().replace(/^crossplatform$/, 'cross-platform') : v;
}, z.enum(AUTHENTICATOR_TYPES, { message: `must be one of: ${AUTHENTICATOR_TYPES.join(', ')}` }));

/** An empty or null optional field means the default. */
export const emptyToUndefined = (v: unknown) => (v === '' || v === null ? undefined : v);

/** Rules of the `/register/token` fields that the older API generation (`/v3`) shares, some under another name. */
export const registerTokenFields = {
  userId: customerUserId(),
  username: boundedString(MAX_NAME_LENGTH).pipe(z.string().min(1, 'is required')),
  displayName: boundedString(MAX_NAME_LENGTH).nullish(),
  // Validated in the service: an unknown value is `invalid_attestation`, as the reference answers.
  attestation: z.preprocess(emptyToUndefined, looseString().optional()),
  expiresAt: z.preprocess(
    emptyToUndefined,
    z.iso.datetime({ offset: true, local: true, precision: undefined, message: 'must be an ISO 8601 UTC timestamp' }).optional(),
  ),
};

/** `POST /register/token`: the spec's registration request table. */
export const registerTokenSchema = ciObject({
  userId: registerTokenFields.userId,
  username: registerTokenFields.username,
  displayName: registerTokenFields.displayName,
  attestation: registerTokenFields.attestation,
  authenticatorType: z.preprocess(emptyToUndefined, authenticatorType.optional()),
  discoverable: z.preprocess(emptyToUndefined, looseBoolean().optional()),
  userVerification: z.preprocess(emptyToUndefined, ciEnum(USER_VERIFICATIONS).optional()),
  expiresAt: registerTokenFields.expiresAt,
  aliases: z.preprocess(emptyToUndefined, aliasListSchema.optional()),
  aliasHashing: z.preprocess(emptyToUndefined, looseBoolean().optional()),
  hints: z.preprocess(emptyToUndefined, z.array(ciEnum(['security-key', 'client-device', 'hybrid'])).max(3, 'must contain at most 3 hints').optional()),
  /** Ours: the WebAuthn extensions register/begin asks the browser for (prf, largeBlob, credProps). */
  extensions: z.preprocess(emptyToUndefined, registrationExtensionsSchema.optional()),
  /**
   * Ours (issue 35): the token is for the automatic upgrade after a password sign-in, and its
   * ceremony may be begun as a conditional create, whose passkey may lack the user-present flag.
   * Carried inside the token's MAC.
   */
  upgrade: z.preprocess(emptyToUndefined, looseBoolean().optional()),
  /**
   * Ours (issue 45): the id of a proof of the user that the caller spends on this token (the
   * Express middleware's fresh password sign-in): redeemed once per app, atomically, as the token
   * is made, so that one proof makes one token however many requests race with it.
   */
  proofId: z.preprocess(emptyToUndefined, z.string().regex(PROOF_ID, 'must be 16 to 128 characters of A-Z, a-z, 0-9, - and _').optional()),
});

/** What a `register_` token carries from `/register/token` to `/register/begin`. */
const registerTokenPayloadSchema = tokenPayload({
  // May be empty only in a token this service did not issue: `/register/begin` answers missing_userid.
  userId: payloadText(),
  username: z.string(),
  displayName: z.string(),
  attestation: z.enum(ATTESTATIONS),
  authenticatorType: z.enum(AUTHENTICATOR_TYPES),
  discoverable: z.boolean(),
  userVerification: z.enum(USER_VERIFICATIONS),
  aliases: z.array(payloadText().min(1)).max(MAX_ALIASES),
  aliasHashing: z.boolean(),
  hints: z.array(z.string()),
  // Absent in tokens issued before extensions existed: the default (credProps only).
  extensions: registrationExtensionsSchema.optional(),
  /** An upgrade token (see registerTokenSchema); absent in tokens issued before it existed. */
  upgrade: z.boolean().optional(),
});
export type RegisterTokenPayload = z.output<typeof registerTokenPayloadSchema>;

export const registerBeginSchema = ciObject({
  token: looseString().nullish(),
  origin: boundedString(MAX_ORIGIN_LENGTH).nullish(),
  rpid: boundedString(MAX_RPID_LENGTH).nullish(),
  /**
   * Ours (issue 35): `conditional` begins the ceremony as a conditional create
   * (`navigator.credentials.create({mediation: 'conditional'})`); only an upgrade token may.
   */
  mediation: z.preprocess(emptyToUndefined, ciEnum(['conditional']).optional()),
});

export const registerCompleteSchema = ciObject({
  ...ceremonyRequestFields,
  nickname: looseString().pipe(passkeyName).nullish(),
  response: publicKeyCredentialSchema({
    attestationObject: base64UrlString,
    clientDataJSON: base64UrlString,
    transports: z.array(z.string()).max(10).nullish(),
  }),
});

function parseAttestation(value: string | undefined): RegisterTokenPayload['attestation'] {
  const normalised = (value ?? 'none').toLowerCase();
  const known = ATTESTATIONS.find((a) => a === normalised);
  if (known) return known;
  throw new ApiError('invalid_attestation', { detail: "attestation must be 'none', 'direct' or 'indirect'." });
}

/** What a `RegistrationService` is built from. */
export interface RegistrationServiceDeps {
  registrations: RegistrationRepository;
  credentials: CredentialRepository;
  redemptions: RedemptionRepository;
  tokens: TokenService;
  challenges: ChallengeStore;
  aliases: AliasService;
  features: AppFeaturesCache;
  events: EventLog;
  now: () => number;
  /** The FIDO metadata's and the app's word on the authenticator, asked before anything is stored. */
  authenticators: AuthenticatorPolicy;
}

export class RegistrationService {
  private readonly registrations: RegistrationRepository;
  private readonly credentials: CredentialRepository;
  private readonly redemptions: RedemptionRepository;
  private readonly tokens: TokenService;
  private readonly challenges: ChallengeStore;
  private readonly aliases: AliasService;
  private readonly features: AppFeaturesCache;
  private readonly events: EventLog;
  private readonly now: () => number;
  private readonly authenticators: AuthenticatorPolicy;

  constructor(deps: RegistrationServiceDeps) {
    this.registrations = deps.registrations;
    this.credentials = deps.credentials;
    this.redemptions = deps.redemptions;
    this.tokens = deps.tokens;
    this.challenges = deps.challenges;
    this.aliases = deps.aliases;
    this.features = deps.features;
    this.events = deps.events;
    this.now = deps.now;
    this.authenticators = deps.authenticators;
  }

  private async assertAttestationAllowed(appId: string, attestation: RegisterTokenPayload['attestation']): Promise<void> {
    if (attestation === 'none') return;
    if (!attestationAllowed(await this.features.get(appId))) {
      throw new ApiError('attestation_not_supported_on_plan', { detail: "Direct and indirect attestation need the enterprise plan; use 'none'." });
    }
  }

  /**
   * The early answer, as the reference gives it: a new user while the app is at its maxUsers. One
   * read of the kept count (never a count of the app's users). It is advice only: the limit itself
   * holds where a user comes into existence, when register/complete stores their first passkey.
   */
  private async assertUserCapacity(appId: string, userId: string): Promise<void> {
    // The cached features say whether the app limits its users at all; the read has the fresh limit.
    if ((await this.features.get(appId)).maxUsers === null) return;
    const capacity = await this.registrations.capacity(appId, userId);
    if (!capacity) throw appDeletedMeanwhile();
    if (capacity.maxUsers !== null && !capacity.hasPasskey && capacity.userCount >= capacity.maxUsers) throw maxUsersReached();
  }

  async createToken(appId: string, input: z.output<typeof registerTokenSchema>): Promise<string> {
    const attestation = parseAttestation(input.attestation);
    const now = this.now();
    const expiresAt = input.expiresAt === undefined ? now + DEFAULT_REGISTER_TTL_MS : parseUtc(input.expiresAt);
    if (expiresAt <= now || expiresAt > now + MAX_TOKEN_LIFETIME_MS) {
      throw new ApiError('validation_failed', { extras: { errors: { expiresAt: ['The expiresAt field must be in the future and at most 30 days away.'] } } });
    }
    await this.assertAttestationAllowed(appId, attestation);
    const aliases = input.aliases ?? [];
    await this.aliases.assertAvailable(appId, input.userId, aliases);
    await this.assertUserCapacity(appId, input.userId);
    const payload: RegisterTokenPayload = {
      app: appId,
      exp: expiresAt,
      userId: input.userId,
      username: input.username,
      displayName: input.displayName || input.username,
      attestation,
      authenticatorType: input.authenticatorType ?? 'any',
      discoverable: input.discoverable ?? true,
      userVerification: input.userVerification ?? 'preferred',
      aliases,
      aliasHashing: input.aliasHashing ?? true,
      hints: input.hints ?? [],
      ...(input.extensions && Object.keys(input.extensions).length > 0 ? { extensions: input.extensions } : {}),
      ...(input.upgrade ? { upgrade: true } : {}),
    };
    // Last, once nothing else can refuse the token: a proof is spent only on a token that is made.
    if (input.proofId !== undefined) await spendProof(this.redemptions, appId, input.proofId, now);
    const token = await this.tokens.issue('register', payload);
    this.events.record(appId, { type: 'ApiAuthUserRegistered', message: 'A registration token was created.', subject: input.userId, performedBy: input.userId });
    return token;
  }

  async begin(appId: string, input: z.output<typeof registerBeginSchema>) {
    const registration = await this.tokens.open('register', input.token, appId, registerTokenPayloadSchema);
    const { origin, rpId } = resolveCeremonyOrigin(input.origin ?? undefined, input.rpid ?? undefined, (await this.features.get(appId)).allowedOrigins);
    await this.assertAttestationAllowed(appId, registration.attestation);
    if (!registration.userId) throw new ApiError('missing_userid');
    const conditional = conditionalCreateAllowed(input.mediation, registration.upgrade === true);
    const registerTokenId = registerTokenIdOf(input.token as string);
    // Both reads at once (on PostgreSQL they leave in one write).
    const [, existing] = await Promise.all([
      assertRegisterTokenUnused(this.redemptions, appId, registerTokenId),
      this.credentials.descriptorsOf(appId, registration.userId, MAX_EXCLUDE_CREDENTIALS),
    ]);
    const { challenge, sid, exp } = this.challenges.issue();
    this.events.record(appId, { type: 'ApiAuthPasskeyRegistrationBegan', message: 'A passkey registration began.', subject: registration.userId, performedBy: registration.userId });
    const session: RegistrationSession = {
      app: appId,
      exp,
      ceremony: 'registration',
      challenge,
      sid,
      origin,
      rpId,
      userId: registration.userId,
      userVerification: registration.userVerification,
      attestation: registration.attestation,
      aliases: registration.aliases,
      aliasHashing: registration.aliasHashing,
      registerTokenId,
      registerTokenExp: registration.exp,
      // Inside the session's MAC: complete may skip the user-present check only for this ceremony.
      ...(conditional ? { conditional: true } : {}),
    };
    return {
      session: await this.tokens.issue('session', session),
      data: {
        rp: { id: rpId, name: rpId },
        user: { id: userHandleOf(registration.userId), name: registration.username, displayName: registration.displayName },
        challenge,
        pubKeyCredParams: SUPPORTED_ALGORITHM_IDS.map((alg) => ({ type: 'public-key', alg })),
        timeout: this.challenges.timeoutMs,
        attestation: registration.attestation,
        authenticatorSelection: {
          ...(registration.authenticatorType === 'any' ? {} : { authenticatorAttachment: registration.authenticatorType }),
          residentKey: registration.discoverable ? 'required' : 'discouraged',
          requireResidentKey: registration.discoverable,
          userVerification: registration.userVerification,
        },
        excludeCredentials: existing.map((c) => descriptorOf(c.descriptorId, c.transports)),
        extensions: registrationExtensionInputs(registration.extensions),
        hints: registration.hints,
      },
    };
  }

  async complete(appId: string, input: z.output<typeof registerCompleteSchema>, client: ClientContext): Promise<string> {
    const session = await this.tokens.open('session', input.session, appId, sessionSchema);
    if (session.ceremony !== 'registration') throw new ApiError('invalid_session', { detail: 'This session belongs to a sign-in, not a registration.' });
    if (!input.origin) throw new ApiError('missing_origin');
    if (!(await this.challenges.consume(appId, session))) throw new ApiError('challenge_already_used');

    const { response } = input;
    const credentialIdBytes = Buffer.from(response.rawId, 'base64url');
    if (credentialIdBytes.length === 0 || credentialIdBytes.length > MAX_CREDENTIAL_ID_BYTES || Buffer.from(response.id, 'base64url').toString('base64url') !== credentialIdBytes.toString('base64url')) {
      throw new ApiError('fido2_invalid_registration', { detail: 'The credential id is missing, longer than 1023 bytes, or differs between id and rawId.' });
    }
    let verification;
    try {
      verification = await inSpan('webauthn verify attestation', () =>
        verifyRegistrationResponse({
          response: response as unknown as RegistrationResponseJSON,
          ...expectationsOf(session),
          // A conditional create (an upgrade token's, begun as one) may be made without the user
          // present; every other registration needs them. User verification is unchanged.
          requireUserPresence: session.conditional !== true,
          supportedAlgorithmIDs: SUPPORTED_ALGORITHM_IDS,
        }),
      );
    } catch (error) {
      throw new ApiError('fido2_invalid_registration', { detail: describeVerificationFailure(error), logged: responseOriginRefusal(error, session, response.response.clientDataJSON) });
    }
    if (!verification.verified) throw new ApiError('fido2_invalid_registration', { detail: 'The attestation could not be verified.' });
    const info = verification.registrationInfo;
    const credentialId = toBase64Url(credentialIdBytes);
    if (info.credential.id !== credentialId) {
      throw new ApiError('fido2_invalid_registration', { detail: 'The credential id in the attestation differs from rawId.' });
    }
    if (!isUsablePublicKey(info.credential.publicKey)) {
      throw new ApiError('fido2_invalid_registration', { detail: 'The public key is not a valid key for its algorithm.' });
    }
    await this.authenticators.assertAllowed(appId, { aaguid: info.aaguid, fmt: info.fmt, attestation: session.attestation, attestationObject: info.attestationObject });
    const extensionResults = response.clientExtensionResults ?? response.extensions ?? {};
    const rk = (extensionResults.credProps as { rk?: unknown } | undefined)?.rk;
    const prfEnabled = (extensionResults.prf as { enabled?: unknown } | undefined)?.enabled;
    const transports = (response.response.transports ?? []).filter((t) => TRANSPORTS.includes(t));
    const backupEligible = info.credentialDeviceType === 'multiDevice';
    const now = this.now();

    const registration: PasskeyRegistration = {
      tenant: appId,
      credential: {
        descriptorId: credentialId,
        userId: session.userId,
        userHandle: userHandleOf(session.userId),
        publicKey: toBase64Url(info.credential.publicKey),
        signatureCounter: info.credential.counter,
        attestationFmt: info.fmt,
        aaGuid: info.aaguid,
        transports: JSON.stringify(transports),
        rpid: session.rpId,
        origin: session.origin,
        country: client.country,
        device: client.device,
        nickname: input.nickname ?? '',
        backupEligible,
        backupState: info.credentialBackedUp,
        isDiscoverable: typeof rk === 'boolean' ? rk : null,
        uvInitialized: info.userVerified,
        createdAt: now,
        lastUsedAt: now,
        lastUsedDay: utcDayOf(now),
        // Every passkey gets its salt, asked for PRF or not: a sign-in configuration may ask later.
        prfSalt: newPrfSalt(),
        prfEnabled: typeof prfEnabled === 'boolean' ? prfEnabled : null,
        madeByUpgrade: session.conditional === true,
      },
      aliases: session.aliases.length > 0 ? newAliases(appId, session.aliases, session.aliasHashing) : undefined,
      // Single use: the token is redeemed with the passkey it registered, or not at all.
      redeemedToken: { tokenId: session.registerTokenId, expiresAt: session.registerTokenExp },
    };
    const report: WebhookEvent = {
      type: 'passkey.registered',
      data: {
        userId: session.userId,
        credentialId,
        nickname: input.nickname ?? '',
        aaGuid: info.aaguid,
        backupEligible,
        backupState: info.credentialBackedUp,
        rpId: session.rpId,
        origin: session.origin,
        createdAt: new Date(now).toISOString(),
        upgrade: session.conditional === true,
      },
    };
    // One unit (see RegistrationRepository.store): the passkey, the user's aliases and row, the
    // app's user count within its maxUsers, and the webhook deliveries that report it.
    for (let attempt = 1; ; attempt++) {
      const stored = await this.registrations.store(registration, report);
      if (stored.ok) break;
      if (stored.failure === 'token_already_used') throw registerTokenAlreadyUsed();
      if (stored.failure === 'max_users_reached') throw maxUsersReached('The app reached its maxUsers while this passkey was being made; it was not stored.');
      if (stored.failure === 'credential_exists') throw new ApiError('fido2_invalid_registration', { detail: 'This passkey is already registered with this application.' });
      // An alias: another user's (409 now), or a race with this user's own alias write (worth another go).
      await this.aliases.assertAvailable(appId, session.userId, session.aliases);
      if (attempt === ALIAS_WRITE_ATTEMPTS) throw aliasConflict();
    }

    const payload: VerifyTokenPayload = newVerifyPayload(
      {
        app: appId,
        type: 'passkey_register',
        ttlSeconds: VERIFY_TOKEN_TTL_SECONDS,
        userId: session.userId,
        rpId: session.rpId,
        origin: session.origin,
        device: client.device,
        country: client.country,
        nickname: input.nickname ?? '',
        credentialId,
        purpose: null,
        backupEligible,
        backupState: info.credentialBackedUp,
      },
      this.now(),
    );
    this.events.record(appId, { type: 'ApiAuthPasskeyRegistrationCompleted', message: 'A passkey was registered.', subject: session.userId, performedBy: session.userId });
    return this.tokens.issue('verify', payload);
  }
}

const maxUsersReached = (detail = "The app has as many users as its maxUsers allows; a new user's passkey cannot be registered.") => new ApiError('max_users_reached', { detail });

/** An ISO timestamp without an offset is UTC, as the spec says all timestamps are. */
function parseUtc(iso: string): number {
  return Date.parse(/([zZ]|[+-]\d\d:?\d\d)$/.test(iso) ? iso : `${iso}Z`);
}
