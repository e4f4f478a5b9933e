import { randomBytes } from 'node:crypto';
import type { Db, HotPath } from '../../store';

export type Ceremony = 'registration' | 'authentication';

/** Browser-side ceremony timeout we advertise by default (WebAuthn `timeout`; CEREMONY_TIMEOUT_SECONDS). */
export const DEFAULT_CEREMONY_TIMEOUT_MS = 60_000;

/**
 * Single-use challenges. Deleting the row is what consumes it, in one conditional statement,
 * before any verification runs: a replayed or raced completion finds nothing to delete, even
 * when the first attempt failed verification.
 */
export class ChallengeStore {
  /** The server keeps a challenge half as long again as the browser waits, for the round trip back. */
  private readonly ttlMs: number;

  constructor(
    private readonly db: Db,
    private readonly hot: HotPath,
    private readonly now: () => number = Date.now,
    /** The ceremony timeout the browser is told (WebAuthn `timeout`). */
    readonly timeoutMs = DEFAULT_CEREMONY_TIMEOUT_MS,
  ) {
    this.ttlMs = Math.round(timeoutMs * 1.5);
  }

  /**
   * 32 random bytes (the spec asks for at least 16), base64url. `expectedUserId` binds a sign-in
   * to the user it named; it stays on the server.
   */
  async issue(appId: string, ceremony: Ceremony, expectedUserId: string | null = null): Promise<{ challenge: string; expiresAt: number }> {
    const challenge = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + this.ttlMs;
    await this.hot.insertChallenge({ id: challenge, tenant: appId, ceremony, expiresAt, expectedUserId });
    return { challenge, expiresAt };
  }

  /** A challenge issued as `issue` does, and the owner's passkeys read with it (one round trip on PostgreSQL). */
  async issueWithCredentials(
    appId: string,
    ceremony: Ceremony,
    expectedUserId: string | null,
    owner: { userId: string; limit: number },
  ): Promise<{ challenge: string; expiresAt: number; credentials: { descriptorId: string; transports: string }[] }> {
    const challenge = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + this.ttlMs;
    const credentials = await this.hot.insertChallengeAndFindUserCredentials({ id: challenge, tenant: appId, ceremony, expiresAt, expectedUserId }, owner.userId, owner.limit);
    return { challenge, expiresAt, credentials };
  }

  /** `consume`, and the passkey that answered read with it (one round trip on PostgreSQL). */
  async consumeWithCredential(appId: string, ceremony: Ceremony, challenge: string, credentialId: string) {
    return this.hot.deleteChallengeAndFindCredential(appId, ceremony, challenge, this.now(), credentialId);
  }

  /**
   * Succeeds exactly once per issued challenge, and only before it expires: one
   * `DELETE ... RETURNING`. Returns what was bound to the challenge, or undefined.
   */
  async consume(appId: string, ceremony: Ceremony, challenge: string): Promise<{ expectedUserId: string | null } | undefined> {
    return this.hot.deleteChallenge(appId, ceremony, challenge, this.now());
  }

  /**
   * Housekeeping, in the background (never on a request): drops expired challenges and
   * redeemed-token ids that can no longer matter. Both delete through their `expiresAt` index.
   */
  async sweep(): Promise<void> {
    const now = new Date(this.now());
    await this.db.challenge.deleteMany({ where: { expiresAt: { lt: now } } });
    await this.db.redeemedToken.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
