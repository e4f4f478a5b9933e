import { inSpan } from '../../core/telemetry/tracing';
import { verifyAuthenticationResponse, type AuthenticationResponseJSON, type AuthenticatorTransport } from '@simplewebauthn/server';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { MAX_ORIGIN_LENGTH, MAX_PURPOSE_LENGTH, MAX_RPID_LENGTH, boundedString, ciObject, looseString } from '../../core/validation';
import type { CredentialRepository } from '../../store/repositories';
import { descriptorOf } from '../../webauthn/descriptors';
import { normaliseCredentialId } from '../../webauthn/encoding';
import { resolveCeremonyOrigin } from '../../webauthn/origins';
import { base64UrlString, ceremonyRequestFields, publicKeyCredentialSchema } from '../../webauthn/responseSchemas';
import type { ClientContext } from './clientContext';
import { describeVerificationFailure } from '../../webauthn/verificationFailure';
import { responseOriginRefusal } from '../../webauthn/responseOriginRefusal';
import { expectationsOf } from '../../webauthn/expectations';
import type { AliasService } from '../users/aliases';
import type { AppFeaturesCache } from '../apps/appFeaturesCache';
import type { AuthConfigService } from '../authConfigs';
import { expectedUserTag, isExpectedUser, type ChallengeStore } from './challenges';
import type { EventLog } from '../events/eventLog';
import { MAX_ALLOW_CREDENTIALS, sessionSchema, type SigninSession } from '../tokens/sessionTokens';
import type { TokenService } from '../tokens/tokenService';
import { newVerifyPayload } from '../tokens/verifyTokens';
import { decoyAllowList } from './decoyAllowList';
import { signinExtensionInputs } from '../../webauthn/passkeyExtensions';
import { decoyPrfSalt } from '../../webauthn/prfSalt';

export const signinBeginSchema = ciObject({
  userId: looseString().nullish(),
  alias: looseString().nullish(),
  purpose: boundedString(MAX_PURPOSE_LENGTH).nullish(),
  origin: boundedString(MAX_ORIGIN_LENGTH).nullish(),
  rpid: boundedString(MAX_RPID_LENGTH).nullish(),
});

export const signinCompleteSchema = ciObject({
  ...ceremonyRequestFields,
  response: publicKeyCredentialSchema({
    authenticatorData: base64UrlString,
    clientDataJSON: base64UrlString,
    signature: base64UrlString,
    userHandle: z.string().nullish(),
  }),
});

const failure = (detail: string) => new ApiError('signin_complete_error', { detail });

/** What a `SigninService` is built from. */
export interface SigninServiceDeps {
  credentials: CredentialRepository;
  tokens: TokenService;
  challenges: ChallengeStore;
  aliases: AliasService;
  features: AppFeaturesCache;
  authConfigs: AuthConfigService;
  events: EventLog;
  now?: () => number;
}

export class SigninService {
  private readonly credentials: CredentialRepository;
  private readonly tokens: TokenService;
  private readonly challenges: ChallengeStore;
  private readonly aliases: AliasService;
  private readonly features: AppFeaturesCache;
  private readonly authConfigs: AuthConfigService;
  private readonly events: EventLog;
  private readonly now: () => number;

  constructor(deps: SigninServiceDeps) {
    this.credentials = deps.credentials;
    this.tokens = deps.tokens;
    this.challenges = deps.challenges;
    this.aliases = deps.aliases;
    this.features = deps.features;
    this.authConfigs = deps.authConfigs;
    this.events = deps.events;
    this.now = deps.now ?? Date.now;
  }

  /**
   * Options for `navigator.credentials.get`. A name (userId or alias) that has no passkeys, because
   * nobody has it or its user has none, gets a decoy allow list: stable for the name, shaped like a
   * real one, made with the same queries as a real answer (an unknown alias still asks for
   * credentials) from a secret cached with the app's token keys. So the answer does not tell who
   * has an account. Such a sign-in cannot complete: only a passkey of the named user may answer it.
   */
  async begin(appId: string, input: z.output<typeof signinBeginSchema>) {
    const { origin, rpId } = resolveCeremonyOrigin(input.origin ?? undefined, input.rpid ?? undefined, (await this.features.get(appId)).allowedOrigins);
    const config = await this.authConfigs.resolve(appId, input.purpose);
    const named = Boolean(input.userId || input.alias);
    const userId = input.userId || (input.alias ? await this.aliases.userIdOf(appId, input.alias) : undefined);
    const { challenge, sid, exp } = this.challenges.issue();
    // A named sign-in may only be answered by that user's passkey. '' is nobody's userId: an
    // unknown alias costs the same query as a known one, and gets a tag just the same.
    const credentials = named ? await this.credentials.descriptorsOf(appId, userId ?? '', MAX_ALLOW_CREDENTIALS) : [];
    const decoyKey = named ? await this.tokens.decoyKeyOf(appId) : undefined;
    const decoys = decoyKey && credentials.length === 0 ? decoyAllowList(decoyKey, userId ? `user:${userId}` : `alias:${input.alias}`) : undefined;
    const allowCredentials = decoys ?? credentials.map((c) => descriptorOf(c.descriptorId, c.transports));
    // Decoys get salts too (derived, stable), so a PRF request does not tell them from real passkeys.
    const salts = decoys ? decoys.map((d) => ({ id: d.id, prfSalt: decoyPrfSalt(decoyKey!, d.id) })) : credentials.map((c) => ({ id: c.descriptorId, prfSalt: c.prfSalt }));
    const extensions = signinExtensionInputs(config.extensions, salts);
    const session: SigninSession = {
      app: appId,
      exp,
      ceremony: 'authentication',
      challenge,
      sid,
      origin,
      rpId,
      userVerification: config.userVerification,
      purpose: config.purpose,
      ttlSeconds: config.timeToLiveSeconds,
      allow: allowCredentials.map((c) => c.id),
      ...(decoyKey ? { expectedUser: expectedUserTag(decoyKey, sid, userId ?? '') } : {}),
    };
    return {
      session: await this.tokens.issue('session', session),
      data: {
        challenge,
        timeout: this.challenges.timeoutMs,
        rpId,
        allowCredentials,
        userVerification: config.userVerification,
        ...(extensions ? { extensions } : {}),
      },
    };
  }

  /**
   * Verifies an assertion in two database round trips: redeem the session and load the credential
   * (both at once), then update its counter conditionally. Returns a `verify_` token.
   */
  async complete(appId: string, input: z.output<typeof signinCompleteSchema>, client: ClientContext): Promise<string> {
    const session = await this.tokens.open('session', input.session, appId, sessionSchema);
    if (session.ceremony !== 'authentication') throw new ApiError('invalid_session', { detail: 'This session belongs to a registration, not a sign-in.' });
    if (!input.origin) throw new ApiError('missing_origin');
    const { response } = input;
    const credentialId = normaliseCredentialId(response.rawId);
    if (!credentialId || normaliseCredentialId(response.id) !== credentialId) throw failure('The credential id is missing or differs between id and rawId.');

    const { consumed, credential } = await this.challenges.consumeWithCredential(appId, session, credentialId);
    if (!consumed) throw new ApiError('challenge_already_used');
    if (session.allow.length > 0 && !session.allow.includes(credentialId)) throw failure('This passkey was not one of those offered for this sign-in.');
    if (!credential) throw new ApiError('unknown_credential', { extras: { credentialId: response.id } });
    const expected = session.expectedUser === undefined || isExpectedUser(await this.tokens.decoyKeyOf(appId), session.sid, session.expectedUser, credential.userId);
    if (!expected) throw failure('This passkey does not belong to the user this sign-in was started for.');
    const userHandle = response.response.userHandle;
    if (userHandle && normaliseCredentialId(userHandle) !== credential.userHandle) throw failure('The user handle does not match the passkey owner.');

    const storedCounter = credential.signatureCounter;
    let verification;
    try {
      verification = await inSpan('webauthn verify assertion', () => verifyAuthenticationResponse({
        response: response as unknown as AuthenticationResponseJSON,
        ...expectationsOf(session),
        credential: {
          id: credential.descriptorId,
          publicKey: new Uint8Array(Buffer.from(credential.publicKey, 'base64url')),
          counter: storedCounter,
          transports: JSON.parse(credential.transports) as AuthenticatorTransport[],
        },
      }));
    } catch (error) {
      throw new ApiError('signin_complete_error', { detail: describeVerificationFailure(error), logged: responseOriginRefusal(error, session, response.response.clientDataJSON) });
    }
    if (!verification.verified) throw failure('The signature could not be verified.');
    const info = verification.authenticationInfo;
    const backupEligible = info.credentialDeviceType === 'multiDevice';
    if (backupEligible !== credential.backupEligible) throw failure('The authenticator reported a different backup eligibility than at registration.');

    // Conditional on the counter we read, so two racing sign-ins with one counter value cannot both
    // pass; with the app's webhook deliveries (none: the statement alone), in one unit.
    const recorded = await inSpan('credential counter update', () => this.credentials.recordUse(
      {
        tenant: appId,
        descriptorId: credentialId,
        storedCounter,
        newCounter: info.newCounter,
        backupState: info.credentialBackedUp,
        uvInitialized: credential.uvInitialized || info.userVerified,
        usedAt: this.now(),
        lastUsedDay: credential.lastUsedDay,
        device: client.device,
        country: client.country,
      },
      {
        type: 'signin.completed',
        data: { userId: credential.userId, credentialId, purpose: session.purpose, rpId: session.rpId, origin: session.origin, userVerified: info.userVerified },
      },
    ));
    if (!recorded) throw failure('The signature counter did not increase: this authenticator may have been cloned.');
    // Both buffered in memory and written in batches: no round trip here.
    this.authConfigs.markUsed(appId, session.purpose);
    this.events.record(appId, { type: 'ApiUserSignInCompleted', message: `A sign-in (${session.purpose}) completed.`, subject: credential.userId, performedBy: credential.userId });

    return this.tokens.issue(
      'verify',
      newVerifyPayload(
        {
          app: appId,
          type: 'passkey_signin',
          ttlSeconds: session.ttlSeconds,
          userId: credential.userId,
          rpId: session.rpId,
          origin: session.origin,
          device: client.device,
          country: client.country,
          nickname: credential.nickname,
          credentialId,
          purpose: session.purpose,
          backupEligible,
          backupState: info.credentialBackedUp,
        },
        this.now(),
      ),
    );
  }
}
