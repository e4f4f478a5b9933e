import { isUniqueViolation } from '../../core/storeErrors';
import type { Db } from '..';
import { rowsOf, type WebhookEvent, type WebhookOutbox } from './webhookOutbox';

/** What an `AuthenticatorListRepository` is built from. */
export interface AuthenticatorListRepositoryDeps {
  db: Db;
  outbox: WebhookOutbox;
}

/**
 * An app's authenticator allow list and block list: one row per AAGUID (primary key (tenant,
 * aaGuid)), `isAllowed` saying which list holds it; all through Prisma. Each change takes the
 * webhook event that reports it and commits its deliveries in the same transaction; the worker is
 * woken once it is committed.
 */
export class AuthenticatorListRepository {
  private readonly db: Db;
  private readonly outbox: WebhookOutbox;

  constructor(deps: AuthenticatorListRepositoryDeps) {
    this.db = deps.db;
    this.outbox = deps.outbox;
  }

  /** The AAGUIDs on one of the app's lists, oldest first: one read of the app's rows. */
  list(appId: string, isAllowed: boolean): Promise<{ aaGuid: string; createdAt: Date }[]> {
    return this.db.authenticator.findMany({ where: { tenant: appId, isAllowed }, orderBy: [{ createdAt: 'asc' }, { aaGuid: 'asc' }], select: { aaGuid: true, createdAt: true } });
  }

  /**
   * Puts the AAGUIDs on one list (created at `createdAt`, epoch ms), moving any already on the
   * other: one upsert each and the deliveries, in one transaction, all or nothing. Should another
   * request add one of them between an upsert's read and its write (a unique violation), the
   * transaction is run once more, and then finds it.
   */
  async put(appId: string, aaGuids: string[], isAllowed: boolean, createdAt: number, report: WebhookEvent): Promise<void> {
    const at = new Date(createdAt);
    const deliveries = await this.outbox.deliveriesFor(appId, report.type, report.data);
    const writes = () => [
      ...aaGuids.map((aaGuid) =>
        this.db.authenticator.upsert({
          where: { tenant_aaGuid: { tenant: appId, aaGuid } },
          create: { tenant: appId, aaGuid, isAllowed, createdAt: at },
          update: { isAllowed },
        }),
      ),
      ...(deliveries ? [this.db.webhookDelivery.createMany({ data: rowsOf(deliveries) })] : []),
    ];
    try {
      await this.db.$transaction(writes());
    } catch (error) {
      if (!isUniqueViolation(error)) throw error;
      await this.db.$transaction(writes());
    }
    this.outbox.written(deliveries);
  }

  /** Which of these AAGUIDs are on either of the app's lists: one read by primary key. */
  async listedAmong(appId: string, aaGuids: string[]): Promise<string[]> {
    const rows = await this.db.authenticator.findMany({ where: { tenant: appId, aaGuid: { in: aaGuids } }, select: { aaGuid: true } });
    return rows.map((row) => row.aaGuid);
  }

  /** Takes the AAGUIDs off whichever list holds them: one delete and the deliveries, in one transaction. */
  async remove(appId: string, aaGuids: string[], report: WebhookEvent): Promise<void> {
    const deliveries = await this.outbox.deliveriesFor(appId, report.type, report.data);
    await this.db.$transaction([
      this.db.authenticator.deleteMany({ where: { tenant: appId, aaGuid: { in: aaGuids } } }),
      ...(deliveries ? [this.db.webhookDelivery.createMany({ data: rowsOf(deliveries) })] : []),
    ]);
    this.outbox.written(deliveries);
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
