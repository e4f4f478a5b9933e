import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { takeTurns } from '../../core/takeTurns';
import { ciObject, queryInt } from '../../core/validation';
import { MAX_PENDING_FOR_REQUESTED_SENDS } from '../../core/webhookEventTypes';
import type { Db, NewWebhookDelivery } from '../../store';
import { lockAppRow } from '../../store/lockAppRow';
import type { Provider } from '../../store/migrate';
import { rowsOf, type WebhookOutbox } from '../../store/repositories/webhookOutbox';
import type { WebhookOutboxQuota } from '../../store/repositories/webhookOutboxQuota';

const MAX_PAGE = 100;
/** The ids the service makes; any other text (a path id) names nothing, without asking the database. */
const ENDPOINT_ID = /^ep_[0-9a-f]{24}$/;
const DELIVERY_ID = /^msg_[0-9a-f]{36}$/;
const id = (what: string) => z.string({ message: `must be a ${what} id` }).min(1, 'is required').max(64, 'must be at most 64 characters');

/** GET …/deliveries: an endpoint's deliveries, newest first. */
export const deliveryLogQuerySchema = ciObject({
  id: id('webhook'),
  limit: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, `must be between 1 and ${MAX_PAGE}`).max(MAX_PAGE, `must be between 1 and ${MAX_PAGE}`).optional()),
});
export const adminDeliveryLogQuerySchema = ciObject({
  limit: queryInt(z.number({ message: 'must be a whole number' }).int().min(1, `must be between 1 and ${MAX_PAGE}`).max(MAX_PAGE, `must be between 1 and ${MAX_PAGE}`).optional()),
});
/** POST …/redeliver: which delivery to send again. */
export const redeliverSchema = ciObject({ deliveryId: id('delivery') });

/** What a `WebhookDeliveryLog` is built from. */
export interface WebhookDeliveryLogDeps {
  db: Db;
  /** Which database: the checks and the write hold the app's row on PostgreSQL. */
  provider: Provider;
  outbox: WebhookOutbox;
  quota: WebhookOutboxQuota;
}

/**
 * What happened to an endpoint's webhooks, for its app and the operator: each delivery with its
 * state, next try and every attempt (status or error, duration); a delivery sent again on request,
 * and a test event. What is sent on request is bounded: per app by the rate limit on the two routes
 * (http/middleware/rateLimits.ts), per endpoint by its pending deliveries, and by the app's outbox
 * quota.
 */
export class WebhookDeliveryLog {
  /** One app's requested sends, one at a time in this process (the app's row lock serialises them across replicas). */
  private readonly inTurn = takeTurns();

  private readonly db: Db;
  private readonly provider: Provider;
  private readonly outbox: WebhookOutbox;
  private readonly quota: WebhookOutboxQuota;

  constructor(deps: WebhookDeliveryLogDeps) {
    this.db = deps.db;
    this.provider = deps.provider;
    this.outbox = deps.outbox;
    this.quota = deps.quota;
  }

  /** The endpoint's latest deliveries, newest first, each with its attempts, oldest first. */
  async list(appId: string, endpointId: string, limit = 20) {
    await this.assertEndpoint(appId, endpointId);
    const deliveries = await this.db.webhookDelivery.findMany({
      where: { tenant: appId, endpointId },
      orderBy: [{ createdAt: 'desc' }, { id: 'desc' }],
      take: limit,
      include: { attemptLog: { orderBy: { at: 'asc' }, select: { at: true, status: true, error: true, durationMs: true } } },
    });
    return deliveries.map((d) => ({
      id: d.id,
      webhookId: d.webhookId ?? d.id,
      eventType: d.eventType,
      state: d.state,
      createdAt: d.createdAt.toISOString(),
      attempts: d.attempts,
      nextAttemptAt: d.state === 'pending' ? d.nextAttemptAt.toISOString() : null,
      lastStatus: d.lastStatus,
      lastError: d.lastError,
      attemptLog: d.attemptLog.map((a) => ({ at: a.at.toISOString(), status: a.status, error: a.error, durationMs: a.durationMs })),
    }));
  }

  /**
   * A replay of a delivery, queued behind the endpoint's others: a delivery of its own (its own
   * attempts in the log) with the same body and the same `webhook-id` as the event it replays, as
   * Standard Webhooks has it: the id names the event, so a receiver that de-duplicates on it handles
   * the event once however often it comes.
   */
  async redeliver(appId: string, deliveryId: string): Promise<{ id: string; webhookId: string }> {
    if (!DELIVERY_ID.test(deliveryId)) throw new ApiError('webhook_delivery_not_found');
    const original = await this.db.webhookDelivery.findFirst({ where: { tenant: appId, id: deliveryId }, select: { endpointId: true, eventType: true, payload: true, webhookId: true } });
    if (!original) throw new ApiError('webhook_delivery_not_found');
    await this.assertEndpoint(appId, original.endpointId);
    // The body as it was first sent (its timestamp is when the event happened); a replay of a replay keeps the first id.
    const [fresh] = this.outbox.deliveriesTo(appId, [original.endpointId], original.eventType, {});
    const copy = { ...fresh, payload: original.payload, webhookId: original.webhookId ?? deliveryId };
    await this.queue(appId, copy);
    return { id: copy.id, webhookId: copy.webhookId };
  }

  /** A `webhook.test` event to the endpoint, whatever it subscribes to. */
  async sendTest(appId: string, endpointId: string): Promise<{ id: string; webhookId: string }> {
    await this.assertEndpoint(appId, endpointId);
    const [delivery] = this.outbox.deliveriesTo(appId, [endpointId], 'webhook.test', { endpointId });
    await this.queue(appId, delivery);
    return { id: delivery.id, webhookId: delivery.id };
  }

  /**
   * Writes a delivery asked for (a test, a replay) if its endpoint has fewer than 100 pending and
   * the app is under its outbox quota: checked and written in one transaction that holds the app's
   * row (PostgreSQL; SQLite's connection runs one at a time), so concurrent requests take turns and
   * none passes a limit. In this process they take turns before the transaction, so that a burst
   * waits here and not on pooled connections.
   */
  private async queue(appId: string, delivery: NewWebhookDelivery): Promise<void> {
    await this.inTurn(appId, () => this.write(appId, delivery));
    this.outbox.written([delivery]);
  }

  private async write(appId: string, delivery: NewWebhookDelivery): Promise<void> {
    await this.db.$transaction(async (tx) => {
      await lockAppRow(tx, this.provider, appId);
      const waiting = await tx.webhookDelivery.count({ where: { endpointId: delivery.endpointId, state: 'pending', tenant: appId } });
      if (waiting >= MAX_PENDING_FOR_REQUESTED_SENDS) {
        this.outbox.notQueued('pending_limit', 1);
        throw new ApiError('webhook_pending_limit_reached', {
          detail: `The endpoint has ${waiting} pending deliveries; a test event or a replay is queued only while it has fewer than ${MAX_PENDING_FOR_REQUESTED_SENDS}. They go first: see GET /webhooks/deliveries.`,
        });
      }
      if ((await this.quota.pendingOf(appId, tx)) >= this.quota.limit) {
        this.outbox.notQueued('outbox_quota', 1);
        throw new ApiError('webhook_outbox_quota_exceeded', {
          detail: `The app has ${this.quota.limit} pending deliveries, as many as it may (WEBHOOK_OUTBOX_QUOTA); new ones are queued once they are sent or given up.`,
        });
      }
      await tx.webhookDelivery.createMany({ data: rowsOf([delivery]) });
    });
  }

  private async assertEndpoint(appId: string, endpointId: string): Promise<void> {
    if (!ENDPOINT_ID.test(endpointId) || !(await this.db.webhookEndpoint.findFirst({ where: { tenant: appId, id: endpointId }, select: { id: true } }))) throw new ApiError('webhook_not_found');
  }
}
