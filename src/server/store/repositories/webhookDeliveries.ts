import { takeTurns } from '../../core/takeTurns';
import { MAX_PENDING_FOR_REQUESTED_SENDS } from '../../core/webhookEventTypes';
import type { Db, NewWebhookDelivery } from '..';
import type { SqlDriver } from '../sql/driver';
import { webhookDeliveryStep } from '../sql/units';
import type { WebhookData, WebhookOutbox } from './webhookOutbox';
import type { WebhookOutboxQuota } from './webhookOutboxQuota';

/** What a `WebhookDeliveryRepository` is built from. */
export interface WebhookDeliveryRepositoryDeps {
  db: Db;
  sql: SqlDriver;
  outbox: WebhookOutbox;
  quota: WebhookOutboxQuota;
}

export interface WebhookClaim {
  /** Epoch milliseconds. */
  now: number;
  leaseUntil: number;
  workerId: string;
  /** How many endpoints one claim serves at most (the worker's free slots). */
  limit: number;
  /** How many of an endpoint's pending deliveries, in order from its oldest, one claim takes. */
  runLength: number;
  /** Endpoints of one app this worker sends to at once, at most, those it already sends to counted. */
  perApp: number;
  /** How many endpoints of each app this worker is sending to now. */
  sending: ReadonlyMap<string, number>;
}

/** What a claim took: each delivery, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  /** The `webhook-id` it is sent with: its own id, or for a replay the replayed event's. */
  webhookId: string;
  tenant: string;
  endpointId: string;
  payload: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date;
  /** The traceparent of the span that queued it, when that change was traced. */
  traceContext?: string;
}

/** One attempt of a delivery, as the log keeps it. */
export interface WebhookAttemptRow {
  id: string;
  tenant: string;
  deliveryId: string;
  /** Epoch milliseconds. */
  at: number;
  status: number | null;
  error: string | null;
  durationMs: number;
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

/** The outbox's backlog as `backlog(cap)` counts it: a count above `cap` means "more than cap". */
export interface WebhookBacklog {
  /** Pending deliveries (queued, waiting for a retry, or being sent), up to cap + 1. */
  pending: number;
  /** Of those, the ones whose next attempt time has come, up to cap + 1. */
  due: number;
  /** The earliest next attempt of a pending delivery; null when none is pending. */
  earliestNextAttemptAt: Date | null;
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
 * The outbox's rows: the worker's claims, leases and records (statements of the SQL layer, one per
 * step whatever the number of rows), each endpoint's delivery log (Prisma), and the deliveries asked
 * for (a test event, a replay).
 */
export class WebhookDeliveryRepository {
  /** One app's requested sends, one at a time in this process (the app's row lock serialises them across replicas). */
  private readonly inTurn = takeTurns();

  private readonly db: Db;
  private readonly sql: SqlDriver;
  private readonly outbox: WebhookOutbox;
  private readonly quota: WebhookOutboxQuota;

  constructor(deps: WebhookDeliveryRepositoryDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
    this.outbox = deps.outbox;
    this.quota = deps.quota;
  }

  // The worker's.

  /**
   * Claims, for up to `limit` endpoints whose oldest pending delivery is due, a run of their pending
   * deliveries with a lease: the head and up to `runLength - 1` that follow it, which the worker then
   * sends in order over one connection. A delivery whose worker died comes back once its lease has
   * passed (a live worker renews the leases of what it holds).
 *
   * Which endpoints: each endpoint's oldest pending delivery (only it may be sent first, so an
   * endpoint gets its deliveries in order and one at a time), if it is due and not held, found from
   * the endpoints (one probe of the (endpointId, state, createdAt) index per endpoint and one
   * primary-key read; written as `id IN (heads) AND state = 'pending' AND nextAttemptAt <= now`,
   * SQLite walked the (state, nextAttemptAt) index over every due delivery instead, and a claim's cost
   * grew with the backlog). Among them, turns between apps: an app's endpoints are numbered in the
   * order they have waited, after those this worker already sends to for it, and the claim takes every
   * app's first turn before any app's second, never past `perApp`, the longest waiting first within a
   * turn. So one app's endpoints never take every slot, and an app with few endpoints waiting goes
   * before the fifth endpoint of an app with many.
 *
   * The heads are claimed first (`claimWebhookHeads`); on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so that replicas claim
   * at once without waiting for each other and each head goes to one of them (SQLite has one writer,
   * so the statement alone is enough there). Only the holder of an endpoint's head claims what
   * follows it, and nobody else claims a delivery of that endpoint while its head is held: the run
   * is the endpoint's pending deliveries from the oldest, with no gap (one held under a lease was
   * claimed with the head that came back, under the same lease; `claimWebhookFollowers`, composed of
   * one index range per head). A follower is claimed whether or
   * not it is due: the worker stops the run at the first that is not (a delivery held back on
   * purpose), so that nothing after it goes first.
   */
  async claim(claim: WebhookClaim): Promise<ClaimedDelivery[]> {
    const { codec } = this.sql;
    const limit = Math.max(1, Math.floor(claim.limit));
    const perApp = Math.max(1, Math.floor(claim.perApp));
    const followers = Math.max(0, Math.floor(claim.runLength) - 1);
    const [leaseUntil, now] = [codec.time(claim.leaseUntil), codec.time(claim.now)];
    const sending = JSON.stringify(Object.fromEntries([...claim.sending].filter(([, count]) => count > 0).map(([tenant, count]) => [tenant, Math.floor(count)])));
    const heads = await this.sql.writeAll('claimWebhookHeads', { leaseUntil, workerId: claim.workerId, now, sending, perApp, limit });
    if (heads.length === 0 || followers === 0) return heads.map(this.claimedOf);
    const endpoints = Object.fromEntries(heads.map((head, i) => [`endpoint${i}`, head.endpointId]));
    const following = await this.sql.composed('claimWebhookFollowers', heads.length, { leaseUntil, workerId: claim.workerId, now, followers, ...endpoints });
    return [...heads, ...following].map(this.claimedOf);
  }

  private readonly claimedOf = (row: Record<string, unknown>): ClaimedDelivery => ({
    id: row.id as string,
    webhookId: (row.webhookId as string | null) ?? (row.id as string),
    tenant: row.tenant as string,
    endpointId: row.endpointId as string,
    payload: row.payload as string,
    attempts: Number(row.attempts),
    createdAt: new Date(this.sql.codec.timeOf(row.createdAt)),
    nextAttemptAt: new Date(this.sql.codec.timeOf(row.nextAttemptAt)),
    ...(typeof row.traceContext === 'string' ? { traceContext: row.traceContext } : {}),
  });

  /**
   * Moves on the lease of what `workerId` still holds of these: one statement, by primary key,
   * whatever their number. What a live worker does every third of a lease, so that its claims
   * outlast any attempt while a dead worker's lapse within one lease. A delivery another worker
   * holds now, or that was recorded meanwhile, is left alone.
   */
  async renew(workerId: string, leaseUntil: number, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.write('renewWebhookClaims', { leaseUntil: this.sql.codec.time(leaseUntil), workerId, ids: JSON.stringify(ids) });
  }

  /**
   * Attempt rows, one statement whatever their number; when it fails (a delivery gone meanwhile, its
   * endpoint deleted) the deliveries still there are read and their attempts written alone.
   */
  async recordAttempts(attempts: WebhookAttemptRow[]): Promise<void> {
    try {
      await this.insertAttempts(attempts);
    } catch {
      const existing = new Set((await this.db.webhookDelivery.findMany({ where: { id: { in: attempts.map((a) => a.deliveryId) }, tenant: attempts[0].tenant }, select: { id: true } })).map((d) => d.id));
      await this.insertAttempts(attempts.filter((a) => existing.has(a.deliveryId)));
    }
  }

  /** A run's attempts in one statement, from one JSON array: two statements record a run (this and `markDelivered`). */
  private async insertAttempts(attempts: WebhookAttemptRow[]): Promise<void> {
    if (attempts.length === 0) return;
    await this.sql.write('insertWebhookAttempts', { attempts: JSON.stringify(attempts.map((a) => ({ ...a, at: this.sql.codec.time(a.at) }))) });
  }

  /** Deliveries of one app answered with one status, still held by `workerId`, marked delivered: one statement. */
  async markDelivered(tenant: string, workerId: string, status: number, ids: string[]): Promise<void> {
    if (ids.length === 0) return;
    await this.sql.write('markWebhookDeliveriesDelivered', { tenant, workerId, status, ids: JSON.stringify(ids) });
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

  // The operator's health page.

  /**
   * The outbox's backlog over every app, bounded whatever its size: the first `cap + 1` pending
   * deliveries in the order of the (state, nextAttemptAt) index (one range of it, read in order and
   * cut by LIMIT, so a backlog of millions costs what `cap` rows do). From them: how many are
   * pending and how many due (each up to `cap + 1`, which means "more than cap"), and the earliest
   * next attempt. (Prisma's `count` with `take` orders its subquery by the primary key, which would
   * make the database look at every pending row; this read does not.)
   */
  async backlog(cap: number, now: Date): Promise<WebhookBacklog> {
    const rows = await this.db.webhookDelivery.findMany({
      where: { state: 'pending' },
      orderBy: { nextAttemptAt: 'asc' },
      take: Math.max(0, Math.floor(cap)) + 1,
      select: { nextAttemptAt: true },
    });
    const due = rows.findIndex((row) => row.nextAttemptAt.getTime() > now.getTime());
    return { pending: rows.length, due: due === -1 ? rows.length : due, earliestNextAttemptAt: rows[0]?.nextAttemptAt ?? null };
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
   * outbox quota: checked and written in one unit that first holds the app's row (`lockApp`), so
   * concurrent requests take turns and none passes a limit: the lock, both exact counts in one
   * statement, the insert only if neither refuses. In this process they take turns before the unit,
   * so that a burst waits here and not on pooled connections. A refusal writes nothing and is
   * counted as not queued; the worker is woken after the commit.
   */
  private async queue(appId: string, delivery: NewWebhookDelivery): Promise<RequestedSend> {
    const limits = { tenant: appId, endpointId: delivery.endpointId, maxPending: MAX_PENDING_FOR_REQUESTED_SENDS, quota: this.quota.limit };
    const outcome = await this.inTurn(appId, () =>
      this.sql.unit([
        { statement: 'lockApp', params: { tenant: appId } },
        { statement: 'requestedSendRoom', params: limits, as: 'room' },
        { ...webhookDeliveryStep([delivery], this.sql.codec), onlyIf: { step: 'room', column: 'refusal', equals: 0 } },
      ]),
    );
    const room = outcome.ok ? outcome.kept.room : undefined;
    if (!room) throw new Error('a requested webhook send found no room row');
    const [refusal, endpointPending, appPending] = [Number(room.refusal), Number(room.endpointPending), Number(room.appPending)];
    const sent: RequestedSend =
      refusal === 0
        ? { queued: true, id: delivery.id, webhookId: delivery.webhookId ?? delivery.id }
        : refusal === 1
          ? { queued: false, reason: 'pending_limit', pending: endpointPending }
          : { queued: false, reason: 'outbox_quota', quota: this.quota.limit };
    this.quota.counted(appId, sent.queued ? appPending + 1 : appPending);
    if (sent.queued) this.outbox.wake([delivery]);
    else this.outbox.notQueued(sent.reason, 1);
    return sent;
  }
}
