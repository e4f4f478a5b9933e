import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, queryInt } from '../../core/validation';
import { MAX_PENDING_FOR_REQUESTED_SENDS } from '../../core/webhookEventTypes';
import type { RequestedSend, WebhookBacklog, WebhookDeliveryRepository, WebhookEndpointRepository } from '../../store/repositories';
import type { EventLog } from '../events/eventLog';
import { UNKNOWN_USER } from '../events/eventTypes';

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
  deliveries: WebhookDeliveryRepository;
  endpoints: WebhookEndpointRepository;
  now?: () => number;
  events: EventLog;
}

/** How far the backlog's counts go: past this the health page says "more than". */
export const BACKLOG_COUNT_CAP = 1000;

/**
 * What happened to an endpoint's webhooks, for its app and the operator: each delivery with its
 * state, next try and every attempt (status or error, duration); a delivery sent again on request,
 * and a test event. What is sent on request is bounded: per app by the rate limit on the two routes
 * (http/middleware/rateLimits.ts), per endpoint by its pending deliveries, and by the app's outbox
 * quota (both checked where the delivery is written, behind the app's lock). What is queued on
 * request is recorded in the app's event log with `by`, who asked (default: `Unknown User`).
 */
export class WebhookDeliveryLog {
  private readonly deliveries: WebhookDeliveryRepository;
  private readonly endpoints: WebhookEndpointRepository;
  private readonly now: () => number;
  private readonly events: EventLog;

  constructor(deps: WebhookDeliveryLogDeps) {
    this.deliveries = deps.deliveries;
    this.endpoints = deps.endpoints;
    this.now = deps.now ?? Date.now;
    this.events = deps.events;
  }

  /**
   * The backlog of every app's deliveries, for the operator: pending and due, each counted only up
   * to `BACKLOG_COUNT_CAP` (a bigger count reads as `BACKLOG_COUNT_CAP + 1`), and the earliest next
   * attempt: one bounded read of one index, whatever the number of deliveries.
   */
  backlog(): Promise<WebhookBacklog & { cap: number }> {
    return this.deliveries.backlog(BACKLOG_COUNT_CAP, new Date(this.now())).then((counts) => ({ ...counts, cap: BACKLOG_COUNT_CAP }));
  }

  /** The endpoint's latest deliveries, newest first, each with its attempts, oldest first. */
  async list(appId: string, endpointId: string, limit = 20) {
    await this.assertEndpoint(appId, endpointId);
    const deliveries = await this.deliveries.list(appId, endpointId, limit);
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
  async redeliver(appId: string, deliveryId: string, by?: string): Promise<{ id: string; webhookId: string }> {
    if (!DELIVERY_ID.test(deliveryId)) throw new ApiError('webhook_delivery_not_found');
    const original = await this.deliveries.toReplay(appId, deliveryId);
    if (!original) throw new ApiError('webhook_delivery_not_found');
    await this.assertEndpoint(appId, original.endpointId);
    const queued = queuedOrRefused(await this.deliveries.replay(appId, deliveryId, original));
    this.events.record(appId, {
      type: 'AdminWebhookRedelivered',
      message: `The delivery ${deliveryId} to the webhook endpoint ${original.endpointId} was queued again as ${queued.id}.`,
      subject: original.endpointId,
      performedBy: by ?? UNKNOWN_USER,
    });
    return queued;
  }

  /** A `webhook.test` event to the endpoint, whatever it subscribes to. */
  async sendTest(appId: string, endpointId: string, by?: string): Promise<{ id: string; webhookId: string }> {
    await this.assertEndpoint(appId, endpointId);
    const queued = queuedOrRefused(await this.deliveries.sendTest(appId, endpointId, { endpointId }));
    this.events.record(appId, { type: 'AdminWebhookTestSent', message: `A test event was queued to the webhook endpoint ${endpointId} as ${queued.id}.`, subject: endpointId, performedBy: by ?? UNKNOWN_USER });
    return queued;
  }

  private async assertEndpoint(appId: string, endpointId: string): Promise<void> {
    if (!ENDPOINT_ID.test(endpointId) || !(await this.endpoints.exists(appId, endpointId))) throw new ApiError('webhook_not_found');
  }
}

/** A delivery asked for: its ids, or why it was not queued (the endpoint's pending limit, the app's outbox quota). */
function queuedOrRefused(sent: RequestedSend): { id: string; webhookId: string } {
  if (sent.queued) return { id: sent.id, webhookId: sent.webhookId };
  if (sent.reason === 'pending_limit') {
    throw new ApiError('webhook_pending_limit_reached', {
      detail: `The endpoint has ${sent.pending} pending deliveries; a test event or a replay is queued only while it has fewer than ${MAX_PENDING_FOR_REQUESTED_SENDS}. They go first: see GET /webhooks/deliveries.`,
    });
  }
  throw new ApiError('webhook_outbox_quota_exceeded', {
    detail: `The app has ${sent.quota} pending deliveries, as many as it may (WEBHOOK_OUTBOX_QUOTA); new ones are queued once they are sent or given up.`,
  });
}
