import type { Db } from '..';
import type { SqlDriver } from '../sql/driver';
import { webhookDeliverySteps } from '../sql/units';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** What an `AuthenticatorListRepository` is built from. */
export interface AuthenticatorListRepositoryDeps {
  db: Db;
  sql: SqlDriver;
  outbox: WebhookOutbox;
}

/**
 * An app's authenticator allow list and block list: one row per AAGUID (primary key (tenant,
 * aaGuid)), `isAllowed` saying which list holds it. Reads through Prisma; each change is one unit
 * of the SQL layer with the deliveries of the webhook event that reports it; the worker is woken
 * once it is committed.
 */
export class AuthenticatorListRepository {
  private readonly db: Db;
  private readonly sql: SqlDriver;
  private readonly outbox: WebhookOutbox;

  constructor(deps: AuthenticatorListRepositoryDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
    this.outbox = deps.outbox;
  }

  /** The AAGUIDs on one of the app's lists, oldest first: one read of the app's rows. */
  list(appId: string, isAllowed: boolean): Promise<{ aaGuid: string; createdAt: Date }[]> {
    return this.db.authenticator.findMany({ where: { tenant: appId, isAllowed }, orderBy: [{ createdAt: 'asc' }, { aaGuid: 'asc' }], select: { aaGuid: true, createdAt: true } });
  }

  /**
   * Puts the AAGUIDs on one list (created at `createdAt`, epoch ms), moving any already on the
   * other: one insert-or-update of them all and the deliveries, in one unit, all or nothing.
   */
  async put(appId: string, aaGuids: string[], isAllowed: boolean, createdAt: number, report: WebhookEvent): Promise<void> {
    const { codec } = this.sql;
    const params = { tenant: appId, aaGuids: JSON.stringify(aaGuids), isAllowed: codec.bool(isAllowed), createdAt: codec.time(createdAt) };
    await this.outbox.reported(appId, report, (deliveries) => this.sql.unit([{ statement: 'putAuthenticators', params }, ...webhookDeliverySteps(deliveries, codec)]));
  }

  /** Which of these AAGUIDs are on either of the app's lists: one read by primary key. */
  async listedAmong(appId: string, aaGuids: string[]): Promise<string[]> {
    const rows = await this.db.authenticator.findMany({ where: { tenant: appId, aaGuid: { in: aaGuids } }, select: { aaGuid: true } });
    return rows.map((row) => row.aaGuid);
  }

  /** Takes the AAGUIDs off whichever list holds them: one delete and the deliveries, in one unit. */
  async remove(appId: string, aaGuids: string[], report: WebhookEvent): Promise<void> {
    const params = { tenant: appId, aaGuids: JSON.stringify(aaGuids) };
    await this.outbox.reported(appId, report, (deliveries) => this.sql.unit([{ statement: 'removeAuthenticators', params }, ...webhookDeliverySteps(deliveries, this.sql.codec)]));
  }

  /**
   * Which list holds the AAGUID (true: allow, false: block, undefined: neither) and whether the app
   * has an allow list at all: two reads at once, one by primary key, one the first allowed row of
   * the app, whatever the size of the lists.
   */
  async verdict(appId: string, aaGuid: string): Promise<{ listed: boolean | undefined; allowlistExists: boolean }> {
    const [entry, anyAllowed] = await Promise.all([
      this.db.authenticator.findUnique({ where: { tenant_aaGuid: { tenant: appId, aaGuid } }, select: { isAllowed: true } }),
      this.db.authenticator.findFirst({ where: { tenant: appId, isAllowed: true }, select: { aaGuid: true } }),
    ]);
    return { listed: entry?.isAllowed, allowlistExists: anyAllowed !== null };
  }
}
