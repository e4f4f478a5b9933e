import type { Db } from '..';
import type { CredentialUse, HotCredential, HotPath, StoredCredential } from '../hotPath';
import { rowsOf, type WebhookEvent, type WebhookOutbox } from './webhookOutbox';

/** What a `CredentialRepository` is built from. */
export interface CredentialRepositoryDeps {
  db: Db;
  hot: HotPath;
  outbox: WebhookOutbox;
}

/**
 * The app's passkeys: reads and the list on the hot path's prepared statements, the rare rename
 * through Prisma. Each change takes the webhook event that reports it and commits its deliveries
 * in the same unit; the worker is woken once it is committed.
 */
export class CredentialRepository {
  private readonly db: Db;
  private readonly hot: HotPath;
  private readonly outbox: WebhookOutbox;

  constructor(deps: CredentialRepositoryDeps) {
    this.db = deps.db;
    this.hot = deps.hot;
    this.outbox = deps.outbox;
  }

  /** Every passkey of a user with every column, oldest first: one read by the (app, userId) index. */
  list(appId: string, userId: string): Promise<StoredCredential[]> {
    return this.hot.listCredentials(appId, userId);
  }

  /**
   * Up to `limit` of a user's passkeys as a ceremony names them (id and transports), most recently
   * used first: a sign-in's allow list, a registration's exclude list. One read by the (app, userId) index.
   */
  descriptorsOf(appId: string, userId: string, limit: number): Promise<{ descriptorId: string; transports: string }[]> {
    return this.hot.findUserCredentials(appId, userId, limit);
  }

  /** The columns a sign-in needs of one passkey; undefined when the app has no passkey with this id. */
  find(appId: string, descriptorId: string): Promise<HotCredential | undefined> {
    return this.hot.findCredential(appId, descriptorId);
  }

  /**
   * Records a verified sign-in (counter, backup state, last use), conditional on the counter read
   * before verifying, with the deliveries of `report`, in one unit; the worker is woken only once it
   * is committed. False when the condition failed (a raced or cloned authenticator) or the passkey is
   * gone, and then nothing is written or reported.
   */
  async recordUse(use: CredentialUse, report: WebhookEvent): Promise<boolean> {
    const deliveries = await this.outbox.deliveriesFor(use.tenant, report.type, report.data);
    if (!(await this.hot.recordCredentialUse(use, deliveries))) return false;
    this.outbox.written(deliveries);
    return true;
  }

  /** Renames one passkey; false when the app has no passkey with this id (and then nothing is reported). */
  async rename(appId: string, descriptorId: string, nickname: string, report: WebhookEvent): Promise<boolean> {
    const where = { tenant: appId, descriptorId };
    const data = { nickname };
    const deliveries = await this.outbox.deliveriesFor(appId, report.type, report.data);
    const { count } = deliveries
      ? await this.db.$transaction(async (tx) => {
          const renamed = await tx.credential.updateMany({ where, data });
          if (renamed.count > 0) await tx.webhookDelivery.createMany({ data: rowsOf(deliveries) });
          return renamed;
        })
      : await this.db.credential.updateMany({ where, data });
    if (count > 0) this.outbox.written(deliveries);
    return count > 0;
  }

  /**
   * Deletes one passkey of the user, with the user's row and, were it their last passkey, the app's
   * user count, in one transaction; false when it was not there (and then nothing is reported).
   */
  async delete(appId: string, descriptorId: string, userId: string, report: WebhookEvent): Promise<boolean> {
    const deliveries = await this.outbox.deliveriesFor(appId, report.type, report.data);
    const deleted = await this.hot.deleteCredential(appId, descriptorId, userId, deliveries);
    if (deleted) this.outbox.written(deliveries);
    return deleted;
  }
}
