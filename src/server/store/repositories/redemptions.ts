import type { Db } from '..';
import type { HotCredential, Queries } from '../sql/queries';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** What a `RedemptionRepository` is built from. */
export interface RedemptionRepositoryDeps {
  db: Db;
  queries: Queries;
  outbox: WebhookOutbox;
}

/**
 * Single-use ids (ceremony sessions, verify tokens, register tokens), redeemed by one insert of
 * the hot path's into the redeemed-token ids, whose primary key (app, id) refuses a second.
 * Redemptions go with the others of their turn (one commit for all of them on PostgreSQL); every
 * method hands its call straight to the hot path, so a request costs what it did.
 */
export class RedemptionRepository {
  private readonly db: Db;
  private readonly queries: Queries;
  private readonly outbox: WebhookOutbox;

  constructor(deps: RedemptionRepositoryDeps) {
    this.db = deps.db;
    this.queries = deps.queries;
    this.outbox = deps.outbox;
  }

  /** Redeems an id that no webhook reports (a ceremony's session): one insert; false when it was redeemed before. */
  redeem(appId: string, tokenId: string, expiresAt: number): Promise<boolean> {
    return this.queries.redeemToken(appId, tokenId, expiresAt, []);
  }

  /**
   * Redeems a token whose use `report` reports (a verify): the insert and the report's deliveries
   * in one unit. False when it was redeemed before, and then nothing is written or reported.
   */
  async redeemAndReport(appId: string, tokenId: string, expiresAt: number, report: WebhookEvent): Promise<boolean> {
    return this.outbox.reported(appId, report, (deliveries) => this.queries.redeemToken(appId, tokenId, expiresAt, deliveries), (redeemed) => redeemed);
  }

  /**
   * The use of a token that stays reusable (a magic link's verify) redeems nothing: only the
   * report's deliveries are written, in one insert of their own (none when nobody subscribes).
   */
  async reportUnredeemed(appId: string, report: WebhookEvent): Promise<void> {
    await this.outbox.reportAlone(appId, report);
  }

  /**
   * Redeems a session's id and reads the passkey that answered it (signin/complete), both at once;
   * the id is redeemed whether or not the passkey exists.
   */
  redeemAndFindCredential(appId: string, tokenId: string, expiresAt: number, descriptorId: string): Promise<{ redeemed: boolean; credential: HotCredential | undefined }> {
    return this.queries.redeemTokenAndFindCredential(appId, tokenId, expiresAt, descriptorId);
  }

  /** Whether an id was redeemed: one primary-key read. */
  isRedeemed(appId: string, tokenId: string): Promise<boolean> {
    return this.queries.isTokenRedeemed(appId, tokenId);
  }

  /**
   * Housekeeping, never on a request: deletes the ids that expired before `before` (epoch ms),
   * which can no longer be presented, in one statement through Prisma by their `expiresAt` index.
   */
  async sweep(before: number): Promise<void> {
    await this.db.redeemedToken.deleteMany({ where: { expiresAt: { lt: new Date(before) } } });
  }
}
