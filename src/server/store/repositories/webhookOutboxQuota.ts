import type { Logger } from 'pino';
import { TtlCache } from '../../core/ttlCache';
import type { Db } from '..';

/** How long an app's count of pending deliveries is trusted before it is counted again (in the background). */
const RECOUNT_AFTER_MS = 10_000;

interface Count {
  pending: number;
  /** performance.now() of the count: a cache's age, not a business rule, so the service's injectable clock does not move it. */
  countedAt: number;
}

/** What a `WebhookOutboxQuota` is built from. */
export interface WebhookOutboxQuotaDeps {
  db: Db;
  limit: number;
  logger: Logger;
}

/**
 * The per-app outbox quota (WEBHOOK_OUTBOX_QUOTA): how many pending deliveries an app may have.
 * A test event or a replay is checked against an exact count, in the transaction that writes it; an
 * event that a change reports is checked against the app's last count plus what was queued here
 * since, so that the change's request never waits for a count (a count older than 10 s is made
 * again in the background, one small indexed count per app). What would pass the quota is not
 * queued: the change itself goes ahead.
 */
export class WebhookOutboxQuota {
  private readonly counts = new TtlCache<string, Count>({ ttlMs: 600_000, maxEntries: 10_000 });
  private readonly recounting = new Set<string>();

  private readonly db: Db;
  readonly limit: number;
  private readonly logger: Logger;

  constructor(deps: WebhookOutboxQuotaDeps) {
    this.db = deps.db;
    this.limit = deps.limit;
    this.logger = deps.logger;
  }

  /** The app's pending deliveries now, counted over its endpoints' (endpointId, state, createdAt) index. */
  async pendingOf(appId: string): Promise<number> {
    const endpoints = await this.db.webhookEndpoint.findMany({ where: { tenant: appId }, select: { id: true } });
    const pending = endpoints.length === 0 ? 0 : await this.db.webhookDelivery.count({ where: { endpointId: { in: endpoints.map((e) => e.id) }, state: 'pending', tenant: appId } });
    this.counted(appId, pending);
    return pending;
  }

  /** The app's pending deliveries as a unit just counted them (a test event's or a replay's). */
  counted(appId: string, pending: number): void {
    this.counts.set(appId, { pending, countedAt: performance.now() });
  }

  /**
   * Whether `more` deliveries of the app's would pass its quota, by what is known without waiting;
   * when they would not, they are counted as queued.
   */
  wouldPass(appId: string, more: number): boolean {
    const known = this.counts.get(appId);
    if (known === undefined || performance.now() - known.countedAt > RECOUNT_AFTER_MS) this.recount(appId);
    if (known === undefined) return false;
    if (known.pending + more > this.limit) return true;
    known.pending += more;
    return false;
  }

  private recount(appId: string): void {
    if (this.recounting.has(appId)) return;
    this.recounting.add(appId);
    const before = this.counts.get(appId)?.pending;
    this.pendingOf(appId)
      .then((pending) => {
        if (pending >= this.limit && (before === undefined || before < this.limit)) {
          this.logger.warn({ appId, pending, quota: this.limit }, "an app's webhook outbox is full: its new events are not queued until it drains");
        }
      })
      .catch((error: unknown) => this.logger.warn({ err: { name: (error as Error).name, message: (error as Error).message }, appId }, 'webhook outbox count failed'))
      .finally(() => this.recounting.delete(appId));
  }
}
