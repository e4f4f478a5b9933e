import { takeTurns } from '../../core/takeTurns';
import { MAX_PENDING_FOR_REQUESTED_SENDS } from '../../core/webhookEventTypes';
import type { Db, NewWebhookDelivery } from '..';
import { claimWebhookDeliveries, type ClaimedDelivery, type WebhookClaim } from '../claimWebhookDeliveries';
import { lockAppRow } from '../lockAppRow';
import type { Provider } from '../migrate';
import { insertWebhookAttempts, markWebhookDeliveriesDelivered, type WebhookAttemptRow } from '../recordWebhookAttempts';
import { renewWebhookClaims } from '../renewWebhookClaims';
import { rowsOf, type WebhookData, type WebhookOutbox } from './webhookOutbox';
import type { WebhookOutboxQuota } from './webhookOutboxQuota';

/** What a `WebhookDeliveryRepository` is built from. */
export interface WebhookDeliveryRepositoryDeps {
  db: Db;
  /** Which database: the raw statements differ, and a requested send holds the app's row on PostgreSQL. */
  provider: Provider;
  outbox: WebhookOutbox;
  quota: WebhookOutboxQuota;
}

/** A delivery as its log shows it, with its attempts, oldest first. */
export interface LoggedWebhookDelivery {
  id: string;
  webhookId: string | null;
  eventType: string;
  state: string;
  createdAt: Date;
  attempts: number;
  nextAttemptAt: Date;
  lastStatus: number | null;
  lastError: string | null;
  attemptLog: { at: Date; status: number | null; error: string | null; durationMs: number }[];
}

/** What a replay copies of the delivery it replays. */
export interface ReplayedDelivery {
  endpointId: string;
  eventType: string;
  payload: string;
  /** The replayed event's `webhook-id`: null when it was not itself a replay. */
  webhookId: string | null;
}

/** A test event or a replay: queued (with its ids), or refused by the endpoint's pending limit or the app's outbox quota. */
export type RequestedSend =
  | { queued: true; id: string; webhookId: string }
  | { queued: false; reason: 'pending_limit'; pending: number }
  | { queued: false; reason: 'outbox_quota'; quota: number };

/** How a delivery the worker holds ends this attempt: sent again later (`nextAttemptAt`) or failed. */
export interface WebhookDeliveryOutcome {
  state?: 'failed';
  attempts?: number;
  lastStatus?: number | null;
  lastError: string | null;
  nextAttemptAt?: Date;
}

/**
 * The outbox's rows: the worker's claims, leases and records (the raw statements of
 * claimWebhookDeliveries, renewWebhookClaims and recordWebhookAttempts, Prisma for the rest), each
 * endpoint's delivery log, and the deliveries asked for (a test event, a replay).
 */
export class WebhookDeliveryRepository {
  /** One app's requested sends, one at a time in this process (the app's row lock serialises them across replicas). */
  private readonly inTurn = takeTurns();

  private readonly db: Db;
  private readonly provider: Provider;
  private readonly outbox: WebhookOutbox;
  private readonly quota: WebhookOutboxQuota;

  constructor(deps: WebhookDeliveryRepositoryDeps) {
    this.db = deps.db;
    this.provider = deps.provider;
    this.outbox = deps.outbox;
    this.quota = deps.quota;
  }

  // The worker's.

  /** Runs of due deliveries for the worker's free slots, under a lease: two statements (see claimWebhookDeliveries). */
  claim(claim: WebhookClaim): Promise<ClaimedDelivery[]> {
    return claimWebhookDeliveries(this.db, this.provider, claim);
  }

  /** Moves on the lease of what `workerId` still holds of these: one statement, by primary key, whatever their number. */
  renew(workerId: string, leaseUntil: number, ids: string[]): Promise<void> {
    return renewWebhookClaims(this.db, this.provider, workerId, leaseUntil, ids);
  }

  /**
   * Attempt rows, one statement whatever their number; when it fails (a delivery gone meanwhile, its
   * endpoint deleted) the deliveries still there are read and their attempts written alone.
   */
  async recordAttempts(attempts: WebhookAttemptRow[]): Promise<void> {
    try {
      await insertWebhookAttempts(this.db, this.provider, attempts);
    } catch {
      const existing = new Set((await this.db.webhookDelivery.findMany({ where: { id: { in: attempts.map((a) => a.deliveryId) }, tenant: attempts[0].tenant }, select: { id: true } })).map((d) => d.id));
      await insertWebhookAttempts(this.db, this.provider, attempts.filter((a) => existing.has(a.deliveryId)));
    }
  }

  /** Deliveries of one app answered with one status, still held by `workerId`, marked delivered: one statement. */
  markDelivered(tenant: string, workerId: string, status: number, ids: string[]): Promise<void> {
    return markWebhookDeliveriesDelivered(this.db, this.provider, tenant, workerId, status, ids);
  }

  /**
   * Back to pending, unclaimed, what `workerId` holds of these (one update by primary key). With
   * `dueFrom`, the first of them is first made due no earlier than then (one more update).
   */
  async release(tenant: string, workerId: string, ids: string[], dueFrom?: Date): Promise<void> {
    if (ids.length === 0) return;
    if (dueFrom) await this.db.webhookDelivery.updateMany({ where: { id: ids[0], tenant, claimedBy: workerId, nextAttemptAt: { lt: dueFrom } }, data: { nextAttemptAt: dueFrom } });
    await this.db.webhookDelivery.updateMany({ where: { id: { in: ids }, tenant, claimedBy: workerId }, data: { leaseUntil: null, claimedBy: null } });
  }

  /**
   * The new state of the deliveries `workerId` still holds of these, then the attempts of those
   * (plain statements, not a transaction: a crash between the two loses an attempt's log line, not
   * a delivery): a read of which are held, one update, and the attempts' insert.
   */
  async finish(tenant: string, workerId: string, ids: string[], outcome: WebhookDeliveryOutcome, attempts: WebhookAttemptRow[]): Promise<void> {
    const held = (await this.db.webhookDelivery.findMany({ where: { id: { in: ids }, tenant, claimedBy: workerId }, select: { id: true } })).map((d) => d.id);
    if (held.length === 0) return;
    const { count } = await this.db.webhookDelivery.updateMany({ where: { id: { in: held }, tenant, claimedBy: workerId }, data: { ...outcome, leaseUntil: null, claimedBy: null } });
    const kept = attempts.filter((a) => held.includes(a.deliveryId));
    if (count > 0 && kept.length > 0) await this.recordAttempts(kept);
  }

  /**
   * The receiver answered 410 Gone: in one transaction, the attempt, the delivery failed (if
   * `workerId` still holds it), the endpoint disabled for `disabledReason`, and every delivery it
   * still had pending failed.
   */
  async recordGone(attempt: WebhookAttemptRow, outcome: WebhookDeliveryOutcome, workerId: string, endpointId: string, disabledReason: string): Promise<void> {
    const tenant = attempt.tenant;
    await this.db.$transaction(async (tx) => {
      await tx.webhookAttempt.create({ data: { ...attempt, at: new Date(attempt.at) } });
      await tx.webhookDelivery.updateMany({ where: { id: attempt.deliveryId, tenant, claimedBy: workerId }, data: { ...outcome, leaseUntil: null, claimedBy: null, state: 'failed' } });
      await tx.webhookEndpoint.updateMany({ where: { id: endpointId, tenant }, data: { enabled: false, disabledReason } });
      await tx.webhookDelivery.updateMany({ where: { endpointId, tenant, state: 'pending' }, data: { state: 'failed', lastError: 'the endpoint was disabled (410 Gone)', leaseUntil: null, claimedBy: null } });
    });
  }

  /** Deletes these deliveries of the app (their endpoint is gone): one statement. */
  async deleteOrphans(tenant: string, ids: string[]): Promise<void> {
    await this.db.webhookDelivery.deleteMany({ where: { id: { in: ids }, tenant } });
  }

  /** Retention: attempts before `before`, and finished deliveries created before it (two statements). */
  async sweep(before: Date): Promise<void> {
    await this.db.webhookAttempt.deleteMany({ where: { at: { lt: before } } });
    await this.db.webhookDelivery.deleteMany({ where: { state: { in: ['delivered', 'failed'] }, createdAt: { lt: before } } });
  }

  // The delivery log's.

  /** The endpoint's latest deliveries, newest first, each with its attempts, oldest first: one read by the
   * (tenant, endpointId, createdAt) index and Prisma's read of their attempts. */
  list(appId: string, endpointId: string, limit: number): Promise<LoggedWebhookDelivery[]> {
    return this.db.webhookDelivery.findMany({
      where: { tenant: appId, endpointId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
      include: { attemptLog: { orderBy: { at: 'asc' }, select: { at: true, status: true, error: true, durationMs: true } } },
    });
  }

  /** What a replay of this delivery copies; undefined when the app has no such delivery. One primary-key read. */
  async toReplay(appId: string, deliveryId: string): Promise<ReplayedDelivery | undefined> {
    return (await this.db.webhookDelivery.findFirst({ where: { tenant: appId, id: deliveryId }, select: { endpointId: true, eventType: true, payload: true, webhookId: true } })) ?? undefined;
  }

  /** A `webhook.test` event to the endpoint, whatever it subscribes to, within the limits (see `queue`). */
  sendTest(appId: string, endpointId: string, data: WebhookData): Promise<RequestedSend> {
    const [delivery] = this.outbox.deliveriesTo(appId, [endpointId], 'webhook.test', data);
    return this.queue(appId, delivery);
  }

  /**
   * A replay, within the limits (see `queue`): a delivery of its own with the replayed one's body as
   * it was first sent and the `webhook-id` of the event (a replay of a replay keeps the first).
   */
  replay(appId: string, deliveryId: string, original: ReplayedDelivery): Promise<RequestedSend> {
    const [fresh] = this.outbox.deliveriesTo(appId, [original.endpointId], original.eventType, {});
    return this.queue(appId, { ...fresh, payload: original.payload, webhookId: original.webhookId ?? deliveryId });
  }

  /**
   * Writes a delivery asked for if its endpoint has fewer than 100 pending and the app is under its
   * outbox quota: checked and written in one transaction that holds the app's row (PostgreSQL;
   * SQLite's connection runs one at a time), so concurrent requests take turns and none passes a
   * limit: the lock, the endpoint's pending count, the app's (exact) count, the insert. In this
   * process they take turns before the transaction, so that a burst waits here and not on pooled
   * connections. A refusal writes nothing and is counted as not queued; the worker is woken after
   * the commit.
   */
  private async queue(appId: string, delivery: NewWebhookDelivery): Promise<RequestedSend> {
    const sent = await this.inTurn(appId, () =>
      this.db.$transaction(async (tx): Promise<RequestedSend> => {
        await lockAppRow(tx, this.provider, appId);
        const pending = await tx.webhookDelivery.count({ where: { endpointId: delivery.endpointId, state: 'pending', tenant: appId } });
        if (pending >= MAX_PENDING_FOR_REQUESTED_SENDS) return { queued: false, reason: 'pending_limit', pending };
        if ((await this.quota.pendingOf(appId, tx)) >= this.quota.limit) return { queued: false, reason: 'outbox_quota', quota: this.quota.limit };
        await tx.webhookDelivery.createMany({ data: rowsOf([delivery]) });
        return { queued: true, id: delivery.id, webhookId: delivery.webhookId ?? delivery.id };
      }),
    );
    if (sent.queued) this.outbox.written([delivery]);
    else this.outbox.notQueued(sent.reason, 1);
    return sent;
  }
}
