import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { timeOrderedUuid } from '../../core/timeOrderedUuid';
import type { HotCredential, RedemptionRepository } from '../../store/repositories';

/** Browser-side ceremony timeout we advertise by default (WebAuthn `timeout`; CEREMONY_TIMEOUT_SECONDS). */
export const DEFAULT_CEREMONY_TIMEOUT_MS = 60_000;

/** What a ceremony's session token carries of its challenge (see `sessionTokens.ts`). */
export interface IssuedChallenge {
  /** 32 random bytes, base64url: what the authenticator signs. */
  challenge: string;
  /** The session's single-use id, redeemed when the ceremony completes. */
  sid: string;
  /** When the challenge expires, epoch milliseconds (the session token's `exp`). */
  exp: number;
}

/** A sign-in's binding to the user it named, as the session carries it: a MAC, so the browser does not learn the userId. */
export const expectedUserTag = (secret: Buffer, sid: string, userId: string): string =>
  createHmac('sha256', secret).update('expected-user').update('\u0000').update(sid).update('\u0000').update(userId).digest().subarray(0, 16).toString('base64url');

/** Whether the tag a session carries names this user, in constant time. */
export function isExpectedUser(secret: Buffer, sid: string, tag: string, userId: string): boolean {
  const expected = Buffer.from(expectedUserTag(secret, sid, userId));
  const given = Buffer.from(tag);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** What a `ChallengeStore` is built from. */
export interface ChallengeStoreDeps {
  redemptions: RedemptionRepository;
  now?: () => number;
  /** The ceremony timeout the browser is told (WebAuthn `timeout`). */
  timeoutMs?: number;
}

/**
 * Single-use challenges, kept in the session token rather than in a table. `begin` writes nothing:
 * the challenge, its expiry and a single-use id (`sid`, time-ordered) travel in the signed session
 * token, and completing the ceremony redeems the sid (one insert into the redeemed-token ids, as a
 * verify token is redeemed) before any verification runs, so a replayed or raced completion is
 * refused even when the first attempt failed verification. A flood of `begin` calls costs the
 * database nothing, and a sign-in one write instead of two.
 */
export class ChallengeStore {
  /** The server keeps a challenge half as long again as the browser waits, for the round trip back. */
  private readonly ttlMs: number;

  private readonly redemptions: RedemptionRepository;
  private readonly now: () => number;
  readonly timeoutMs: number;

  constructor(deps: ChallengeStoreDeps) {
    this.redemptions = deps.redemptions;
    this.now = deps.now ?? Date.now;
    this.timeoutMs = deps.timeoutMs ?? DEFAULT_CEREMONY_TIMEOUT_MS;
    this.ttlMs = Math.round(this.timeoutMs * 1.5);
  }

  /** 32 random bytes (the spec asks for at least 16), base64url, and the session's single-use id. */
  issue(): IssuedChallenge {
    const now = this.now();
    return { challenge: randomBytes(32).toString('base64url'), sid: timeOrderedUuid(now), exp: now + this.ttlMs };
  }

  /**
   * Redeems the session's single-use id and reads the passkey that answered it (signin/complete),
   * both at once. `consumed` is false when the session was used before.
   */
  async consumeWithCredential(appId: string, session: IssuedChallenge, credentialId: string): Promise<{ consumed: boolean; credential: HotCredential | undefined }> {
    const { redeemed, credential } = await this.redemptions.redeemAndFindCredential(appId, session.sid, session.exp, credentialId);
    return { consumed: redeemed, credential };
  }

  /** Redeems the session's single-use id (register/complete): true exactly once per session. */
  consume(appId: string, session: IssuedChallenge): Promise<boolean> {
    return this.redemptions.redeem(appId, session.sid, session.exp);
  }

  /**
   * Housekeeping, in the background (never on a request): drops the redeemed ids (sessions' and
   * tokens') that can no longer matter, through their `expiresAt` index.
   */
  sweep(): Promise<void> {
    return this.redemptions.sweep(this.now());
  }
}
