import { randomUUID } from 'node:crypto';
import type { Db, NewWebhookDelivery } from '..';
import type { SqlDriver } from '../sql/driver';
import { webhookDeliverySteps } from '../sql/units';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** What a `MagicLinkRepository` is built from. */
export interface MagicLinkRepositoryDeps {
  db: Db;
  sql: SqlDriver;
  outbox: WebhookOutbox;
}

/** What `/magic-links/send` reads of its app. */
export interface MagicLinkSettings {
  createdAt: Date;
  adminEmail: string;
  isMagicLinksEnabled: boolean;
  magicLinkEmailMonthlyQuota: number;
}

/** A send counted against the quota, and its reporting deliveries written held; opaque to the service. */
export interface ReservedSend {
  readonly id: string;
  readonly appId: string;
  readonly deliveries: NewWebhookDelivery[];
}

/**
 * The magic-link quota's rows (one per mail sent: its moment, never the address, the user or the
 * link) and the held `magic_link.sent` deliveries that report a send. The deliveries are written
 * with the send's row (one unit of the SQL layer), due only at `heldUntil`; `release` makes them due
 * once the mail is gone, `unreserve` deletes them with the row when it is not sent.
 */
export class MagicLinkRepository {
  private readonly db: Db;
  private readonly sql: SqlDriver;
  private readonly outbox: WebhookOutbox;

  constructor(deps: MagicLinkRepositoryDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
    this.outbox = deps.outbox;
  }

  /** The app's switch, age, admin address and quota: one read by primary key; undefined when there is no such app. */
  async settings(appId: string): Promise<MagicLinkSettings | undefined> {
    const app = await this.db.app.findUnique({
      where: { id: appId },
      select: { createdAt: true, adminEmail: true, isMagicLinksEnabled: true, magicLinkEmailMonthlyQuota: true },
    });
    return app ?? undefined;
  }

  /**
   * Counts a send at `at` (epoch ms): its row and the deliveries of `report` (held until
   * `heldUntil`) in one transaction, then one count of the app's sends after `since` (this one
   * included). Insert then count, so that two racing sends at the edge may both see the other and
   * be refused, never both let through. The worker is not woken: the deliveries are not due yet.
   */
  async reserve(appId: string, times: { at: number; heldUntil: number; since: number }, report: WebhookEvent): Promise<{ send: ReservedSend; sent: number }> {
    const deliveries = await this.outbox.deliveriesFor(appId, report.type, report.data);
    const id = randomUUID();
    const { codec } = this.sql;
    const held = deliveries.map((d) => ({ ...d, nextAttemptAt: times.heldUntil }));
    await this.sql.unit([{ statement: 'insertDispatchedEmail', params: { id, tenant: appId, createdAt: codec.time(times.at) } }, ...webhookDeliverySteps(held, codec)]);
    const sent = await this.db.dispatchedEmail.count({ where: { tenant: appId, createdAt: { gt: new Date(times.since) } } });
    return { send: { id, appId, deliveries }, sent };
  }

  /** The send did not happen (over the quota, or the mail failed): its row and its held deliveries no worker has touched go, in one transaction. */
  async unreserve(send: ReservedSend): Promise<void> {
    const { id, deliveries } = send;
    await this.db.$transaction([this.db.dispatchedEmail.deleteMany({ where: { id } }), ...(deliveries.length > 0 ? [this.db.webhookDelivery.deleteMany({ where: unclaimed(deliveries) })] : [])]);
  }

  /**
   * The mail is gone: the send's held deliveries are due at `at` (one update, none when no
   * endpoint subscribes), and the worker is woken for them. Rejects when the update fails; then
   * the hold running out sends them.
   */
  async release(send: ReservedSend, at: number): Promise<void> {
    const { deliveries } = send;
    if (deliveries.length === 0) return;
    await this.db.webhookDelivery.updateMany({ where: unclaimed(deliveries), data: { nextAttemptAt: new Date(at) } });
    this.outbox.wake(deliveries);
  }

  /** When the (skip+1)th oldest of the app's sends after `since` was made (epoch ms), undefined when there are not that many: one read by the (tenant, createdAt) index. */
  async sentAtOffset(appId: string, since: number, skip: number): Promise<number | undefined> {
    const row = await this.db.dispatchedEmail.findFirst({ where: { tenant: appId, createdAt: { gt: new Date(since) } }, orderBy: { createdAt: 'asc' }, skip, select: { createdAt: true } });
    return row?.createdAt.getTime();
  }

  /** Deletes every app's sends made at or before `before` (epoch ms): one statement. */
  async dropSentUntil(before: number): Promise<void> {
    await this.db.dispatchedEmail.deleteMany({ where: { createdAt: { lte: new Date(before) } } });
  }
}

/** Held deliveries no worker has touched: a hold that ran out may have let one be claimed or sent, and what was sent stays on record. */
const unclaimed = (deliveries: NewWebhookDelivery[]) => ({ id: { in: deliveries.map((d) => d.id) }, state: 'pending', attempts: 0, leaseUntil: null });
