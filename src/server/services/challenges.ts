import { randomBytes } from 'node:crypto';
import type { Db } from '../store';

export type Ceremony = 'registration' | 'authentication';

/** Browser-side ceremony timeout we advertise (WebAuthn `timeout`). */
export const CEREMONY_TIMEOUT_MS = 60_000;
/** The server keeps a challenge a little longer than the browser waits, for the round trip back. */
export const CHALLENGE_TTL_MS = CEREMONY_TIMEOUT_MS + 30_000;

/**
 * Single-use challenges. Deleting the row is what consumes it, in one conditional statement,
 * before any verification runs: a replayed or raced completion finds nothing to delete, even
 * when the first attempt failed verification.
 */
export class ChallengeStore {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  /** 32 random bytes (the spec asks for at least 16), base64url. */
  async issue(tenant: string, ceremony: Ceremony): Promise<{ challenge: string; expiresAt: number }> {
    const challenge = randomBytes(32).toString('base64url');
    const expiresAt = this.now() + CHALLENGE_TTL_MS;
    await this.db.challenge.create({ data: { id: challenge, tenant, ceremony, expiresAt: new Date(expiresAt) } });
    return { challenge, expiresAt };
  }

  /** True exactly once per issued challenge, and only before it expires. */
  async consume(tenant: string, ceremony: Ceremony, challenge: string): Promise<boolean> {
    const { count } = await this.db.challenge.deleteMany({ where: { id: challenge, tenant, ceremony, expiresAt: { gt: new Date(this.now()) } } });
    return count === 1;
  }

  /** Housekeeping: drops expired challenges and redeemed-token ids that can no longer matter. */
  async sweep(): Promise<void> {
    const now = new Date(this.now());
    await this.db.challenge.deleteMany({ where: { expiresAt: { lt: now } } });
    await this.db.redeemedToken.deleteMany({ where: { expiresAt: { lt: now } } });
  }
}
