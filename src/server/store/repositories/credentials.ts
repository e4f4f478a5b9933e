import type { SqlDriver } from '../sql/driver';
import type { CredentialDescriptor, CredentialUse, HotCredential, Queries, StoredCredential } from '../sql/queries';
import { webhookDeliverySteps } from '../sql/units';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** What a `CredentialRepository` is built from. */
export interface CredentialRepositoryDeps {
  sql: SqlDriver;
  queries: Queries;
  outbox: WebhookOutbox;
}

/**
 * The app's passkeys, on the SQL layer's prepared statements. Each change takes the webhook event
 * that reports it and commits its deliveries in the same unit; the worker is woken once it is committed.
 */
export class CredentialRepository {
  private readonly sql: SqlDriver;
  private readonly queries: Queries;
  private readonly outbox: WebhookOutbox;

  constructor(deps: CredentialRepositoryDeps) {
    this.sql = deps.sql;
    this.queries = deps.queries;
    this.outbox = deps.outbox;
  }

  /** Every passkey of a user with every column, oldest first: one read by the (app, userId) index. */
  list(appId: string, userId: string): Promise<StoredCredential[]> {
    return this.queries.listCredentials(appId, userId);
  }

  /**
   * Up to `limit` of a user's passkeys as a ceremony names them (id, transports, PRF salt), most recently
   * used first: a sign-in's allow list, a registration's exclude list. One read by the (app, userId) index.
   */
  descriptorsOf(appId: string, userId: string, limit: number): Promise<CredentialDescriptor[]> {
    return this.queries.findUserCredentials(appId, userId, limit);
  }

  /** The columns a sign-in needs of one passkey; undefined when the app has no passkey with this id. */
  find(appId: string, descriptorId: string): Promise<HotCredential | undefined> {
    return this.queries.findCredential(appId, descriptorId);
  }

  /**
   * Records a verified sign-in (counter, backup state, last use), conditional on the counter read
   * before verifying, with the deliveries of `report`, in one unit; the worker is woken only once it
   * is committed. False when the condition failed (a raced or cloned authenticator) or the passkey is
   * gone, and then nothing is written or reported.
   */
  async recordUse(use: CredentialUse, report: WebhookEvent): Promise<boolean> {
    return this.outbox.reported(use.tenant, report, (deliveries) => this.queries.recordCredentialUse(use, deliveries), (recorded) => recorded);
  }

  /** Renames one passkey, with the deliveries of `report`, in one unit; false when the app has no passkey with this id (and then nothing is reported). */
  async rename(appId: string, descriptorId: string, nickname: string, report: WebhookEvent): Promise<boolean> {
    const rename = { statement: 'renameCredential', params: { tenant: appId, descriptorId, nickname }, orFail: 'not_found' };
    const outcome = await this.outbox.reported(appId, report, (deliveries) => this.sql.unit([rename, ...webhookDeliverySteps(deliveries, this.sql.codec)]), (renamed) => renamed.ok);
    return outcome.ok;
  }

  /**
   * Deletes one passkey of the user, with the user's row and, were it their last passkey, the app's
   * user count, in one transaction; false when it was not there (and then nothing is reported).
   */
  async delete(appId: string, descriptorId: string, userId: string, report: WebhookEvent): Promise<boolean> {
    return this.outbox.reported(appId, report, (deliveries) => this.queries.deleteCredential(appId, descriptorId, userId, deliveries), (deleted) => deleted);
  }
}
