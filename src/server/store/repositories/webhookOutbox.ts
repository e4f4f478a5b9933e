import { TtlCache } from '../../core/ttlCache';
import { randomUUID } from 'node:crypto';
import type { WebhookEventType } from '../../core/webhookEventTypes';
import type { Db, NewWebhookDelivery } from '..';
import type { SqlDriver } from '../sql/driver';
import { webhookDeliverySteps } from '../sql/units';
import type { WebhookOutboxQuota } from './webhookOutboxQuota';

interface Subscription {
  endpointId: string;
  eventTypes: ReadonlySet<string>;
}

/** What an event says; never a secret, a token, or an alias in plain text. */
export type WebhookData = Record<string, unknown>;

/** The webhook event that reports a change: every repository write that a webhook reports takes one. */
export interface WebhookEvent {
  type: WebhookEventType;
  data: WebhookData;
}

/** Why deliveries were not queued: an endpoint's pending limit (a test or a replay refused), or the app's outbox quota. */
export type NotQueuedReason = 'pending_limit' | 'outbox_quota';

/**
 * How long an app's subscriptions are kept. Every change to an app's endpoints drops them at once,
 * here and (through the app change feed) on every replica, so this only bounds how long a missed
 * notification can leave a replica behind.
 */
const SUBSCRIPTIONS_TTL_MS = 30_000;

/** What a `WebhookOutbox` is built from. */
export interface WebhookOutboxDeps {
  db: Db;
  sql: SqlDriver;
  now: () => number;
  quota?: WebhookOutboxQuota;
}

/**
 * The outbox's front: which deliveries a change makes (one per enabled endpoint of the app that
 * subscribes to its type), built before the change is written so that they can be written in its
 * transaction. An app without endpoints costs a cached lookup and nothing else: no delivery, no
 * statement. Subscriptions are cached per app. An app whose outbox is at its quota gets no more
 * deliveries (the change itself goes ahead); they are counted as not queued.
 */
export class WebhookOutbox {
  private readonly subscriptions = new TtlCache<string, Subscription[]>({ ttlMs: SUBSCRIPTIONS_TTL_MS, maxEntries: 10_000 });
  private readonly listeners: ((endpointIds: readonly string[]) => void)[] = [];
  private readonly notQueuedListeners = new Set<(reason: NotQueuedReason, count: number) => void>();
  private lastTime = -1;
  private sequence = 0;

  private readonly db: Db;
  private readonly sql: SqlDriver;
  private readonly now: () => number;
  private readonly quota?: WebhookOutboxQuota;

  constructor(deps: WebhookOutboxDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
    this.now = deps.now;
    this.quota = deps.quota;
  }

  /** Tells `listener` of deliveries not queued (the metrics); one listener is added once however often it is given. */
  onNotQueued(listener: (reason: NotQueuedReason, count: number) => void): void {
    this.notQueuedListeners.add(listener);
  }

  /** Deliveries were not queued, for `reason`. */
  notQueued(reason: NotQueuedReason, count: number): void {
    for (const listener of this.notQueuedListeners) listener(reason, count);
  }

  /** Called after deliveries were committed here (the worker looks at once rather than at its next poll). */
  onWritten(listener: (endpointIds: readonly string[]) => void): void {
    this.listeners.push(listener);
  }

  /**
   * A write that `report` reports: made with the deliveries that report it (an empty list when no
   * endpoint of the app subscribes), which it commits with its change; the worker is woken once it
   * has committed and `changed` says it changed something. The one way a repository reports a write.
   */
  async reported<T>(appId: string, report: WebhookEvent, write: (deliveries: NewWebhookDelivery[]) => Promise<T>, changed: (result: T) => boolean = () => true): Promise<T> {
    const deliveries = await this.deliveriesFor(appId, report.type, report.data);
    const result = await write(deliveries);
    if (changed(result)) this.wake(deliveries);
    return result;
  }

  /** The deliveries that report this event; none when no endpoint of the app subscribes to it. */
  async deliveriesFor(appId: string, type: WebhookEventType, data: WebhookData): Promise<NewWebhookDelivery[]> {
    const subscriptions = this.subscriptions.get(appId) ?? (await this.load(appId));
    const targets = subscriptions.filter((s) => s.eventTypes.has(type));
    if (targets.length === 0) return [];
    if (this.quota?.wouldPass(appId, targets.length)) {
      this.notQueued('outbox_quota', targets.length);
      return [];
    }
    return this.deliveriesTo(appId, targets.map((t) => t.endpointId), type, data);
  }

  /** Deliveries of an event to the endpoints named, whatever they subscribe to (the test event, a redelivery). */
  deliveriesTo(appId: string, endpointIds: string[], type: WebhookEventType | string, data: WebhookData): NewWebhookDelivery[] {
    const now = this.now();
    const payload = JSON.stringify({ type, timestamp: new Date(now).toISOString(), data });
    return endpointIds.map((endpointId) => ({ id: this.nextId(now), tenant: appId, endpointId, eventType: type, payload, createdAt: now }));
  }

  /**
   * A delivery id (the `webhook-id`) that sorts after every earlier one of this process: the time,
   * a sequence within the millisecond, and randomness. An endpoint's deliveries go in (createdAt,
   * id) order, so two changes made in one millisecond still arrive in the order they were made.
   */
  private nextId(now: number): string {
    this.sequence = now === this.lastTime ? this.sequence + 1 : 0;
    this.lastTime = now;
    const time = Math.max(0, Math.floor(now)).toString(16).padStart(12, '0');
    // 16 random hex digits from a v4 UUID (its version digit skipped): Node draws those from a
    // buffered pool, a fraction of what a randomBytes call costs on every sign-in.
    const uuid = randomUUID();
    return `msg_${time}${this.sequence.toString(16).padStart(8, '0')}${uuid.slice(0, 8)}${uuid.slice(9, 13)}${uuid.slice(15, 18)}${uuid.slice(19, 20)}`;
  }

  /** Tells the worker that deliveries were committed (or came due); nothing when there were none. */
  wake(deliveries: NewWebhookDelivery[]): void {
    if (deliveries.length === 0) return;
    const endpointIds = deliveries.map((d) => d.endpointId);
    for (const listener of this.listeners) listener(endpointIds);
  }

  /** The deliveries of an event that changed nothing of ours, written on their own. */
  async reportAlone(appId: string, report: WebhookEvent): Promise<void> {
    await this.reported(appId, report, async (deliveries) => {
      if (deliveries.length > 0) await this.sql.unit(webhookDeliverySteps(deliveries, this.sql.codec));
    });
  }

  forget(appId: string): void {
    this.subscriptions.delete(appId);
  }

  forgetAll(): void {
    this.subscriptions.clear();
  }

  private async load(appId: string): Promise<Subscription[]> {
    const rows = await this.db.webhookEndpoint.findMany({ where: { tenant: appId, enabled: true }, select: { id: true, eventTypes: true } });
    const subscriptions = rows.map((row) => ({ endpointId: row.id, eventTypes: new Set(JSON.parse(row.eventTypes) as string[]) }));
    this.subscriptions.set(appId, subscriptions);
    return subscriptions;
  }
}
