import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { MAX_ORIGIN_LENGTH, MAX_PURPOSE_LENGTH, MAX_RPID_LENGTH, boundedString, ciObject, customerUserId, looseString, optionalSeconds } from '../../core/validation';
import type { RedemptionRepository, WebhookEvent } from '../../store/repositories';
import type { AppFeaturesCache } from '../apps/appFeaturesCache';
import type { EventLog } from '../events/eventLog';
import type { SignInTally } from '../reporting/signInTally';
import type { TokenService } from '../tokens/tokenService';
import { newVerifyPayload, verificationResult, verifyTokenPayloadSchema } from '../tokens/verifyTokens';

const MAX_GENERATED_TTL_SECONDS = 604_800;

export const verifyTokenSchema = ciObject({ token: looseString().nullish() });

export const generateTokenSchema = ciObject({
  userId: customerUserId(),
  timeToLive: optionalSeconds(MAX_GENERATED_TTL_SECONDS),
  purpose: boundedString(MAX_PURPOSE_LENGTH).nullish(),
  origin: boundedString(MAX_ORIGIN_LENGTH).nullish(),
  rpid: boundedString(MAX_RPID_LENGTH).nullish(),
});

/** What a `VerificationService` is built from. */
export interface VerificationServiceDeps {
  redemptions: RedemptionRepository;
  tokens: TokenService;
  features: AppFeaturesCache;
  events: EventLog;
  /** Counts each successful verify by method, in memory (written in batches). */
  signIns: SignInTally;
  now?: () => number;
}

/**
 * `/signin/verify` and `/signin/generate-token`. Passkey and generated tokens are single-use: the
 * first verify records the token id (one insert), a second verify is refused. Magic-link tokens
 * stay reusable until they expire, as the spec promises.
 */
export class VerificationService {
  private readonly redemptions: RedemptionRepository;
  private readonly tokens: TokenService;
  private readonly features: AppFeaturesCache;
  private readonly events: EventLog;
  private readonly signIns: SignInTally;
  private readonly now: () => number;

  constructor(deps: VerificationServiceDeps) {
    this.redemptions = deps.redemptions;
    this.tokens = deps.tokens;
    this.features = deps.features;
    this.events = deps.events;
    this.signIns = deps.signIns;
    this.now = deps.now ?? Date.now;
  }

  async verify(appId: string, input: z.output<typeof verifyTokenSchema>) {
    const payload = await this.tokens.open('verify', input.token, appId, verifyTokenPayloadSchema);
    // The token itself never goes in a webhook: who signed in, how and where.
    const report: WebhookEvent = {
      type: 'signin.verified',
      data: { userId: payload.userId, type: payload.type, credentialId: payload.credentialId, purpose: payload.purpose, rpId: payload.rpId, origin: payload.origin },
    };
    if (payload.type !== 'magic_link') {
      if (!(await this.redemptions.redeemAndReport(appId, payload.tokenId, payload.exp, report))) throw new ApiError('token_already_used');
    } else {
      // A magic link stays reusable: its verify redeems nothing, and only reports.
      await this.redemptions.reportUnredeemed(appId, report);
    }
    this.signIns.count(appId, payload.type);
    this.events.record(appId, { type: 'ApiUserSignInVerified', message: `A ${payload.type} token was verified.`, subject: payload.userId, performedBy: payload.userId });
    return verificationResult(payload);
  }

  async generate(appId: string, input: z.output<typeof generateTokenSchema>): Promise<string> {
    if (!(await this.features.get(appId)).isGenerateSignInTokenEndpointEnabled) throw new ApiError('generate_token_disabled');
    const payload = newVerifyPayload(
      {
        app: appId,
        type: 'generated_signin',
        ttlSeconds: input.timeToLive ?? 120,
        userId: input.userId,
        rpId: input.rpid ?? null,
        origin: input.origin ?? null,
        device: null,
        country: null,
        nickname: null,
        credentialId: null,
        purpose: input.purpose || 'sign-in',
        backupEligible: null,
        backupState: null,
      },
      this.now(),
    );
    this.events.record(appId, { type: 'ApiUserSigninTokenCreated', message: 'A sign-in token was generated.', subject: input.userId, performedBy: input.userId });
    return this.tokens.issue('verify', payload);
  }
}
