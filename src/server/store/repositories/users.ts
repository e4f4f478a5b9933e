import type { Db } from '..';
import type { Queries, UsersPage } from '../sql/queries';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** An app's totals, for the daily reports. */
export interface AppTotals {
  /** Distinct users with at least one passkey. */
  users: number;
  credentials: number;
}

/** What a `UserRepository` is built from. */
export interface UserRepositoryDeps {
  db: Db;
  queries: Queries;
  outbox: WebhookOutbox;
}

/**
 * The app's users: each userId that holds a passkey or an alias has a row, kept with the passkey
 * and alias rows it counts (the store's write units), so that counting is one read of the app's
 * row and listing walks the users' key in pages, all on the SQL layer's prepared statements.
 */
export class UserRepository {
  private readonly db: Db;
  private readonly queries: Queries;
  private readonly outbox: WebhookOutbox;

  constructor(deps: UserRepositoryDeps) {
    this.db = deps.db;
    this.queries = deps.queries;
    this.outbox = deps.outbox;
  }

  /**
   * Up to `limit` users whose userId sorts after `after` ('' = from the first), in that order, and
   * the userId to continue after (null at the end): one range read on the users' (app, userId) key.
   */
  page(appId: string, after: string, limit: number): Promise<UsersPage> {
    return this.queries.usersPage(appId, after, limit);
  }

  /**
   * Up to `limit` users whose userId starts with `prefix` and sorts after `after` (undefined: from
   * the first), in the order of their UTF-8 bytes (on PostgreSQL too, whatever its collation), and
   * the userId to continue after (null at the end): one range read of the users' key from the
   * prefix to its upper bound, compared with >= and < (never LIKE, so `%` and `_` are plain characters).
   */
  search(appId: string, prefix: string, after: string | undefined, limit: number): Promise<UsersPage> {
    return this.queries.usersSearch(appId, prefix, after, limit);
  }

  /** Users with at least one passkey: kept in the app's counter row, one primary-key read (0 when the app is gone). */
  count(appId: string): Promise<number> {
    return this.queries.countUsers(appId);
  }

  /**
   * Deletes the user, their passkeys, aliases and row, with the deliveries that report it, in one
   * unit; the deliveries are written only when the user's row was there (a userId the app never had
   * deleted nothing, and is not reported). The worker is woken once it is committed.
   */
  async delete(appId: string, userId: string, report: WebhookEvent): Promise<void> {
    await this.outbox.reported(appId, report, (deliveries) => this.queries.deleteUser(appId, userId, deliveries));
  }

  /**
   * An app's total users and passkeys (the daily reports: once a day per app, never per request),
   * two reads at once. Users are the kept count (one primary-key read); passkeys are counted on
   * the (tenant, userId) index: keeping that count too would put a write on the app's counter row
   * in every registration, where concurrent registrations would queue for it, to save one index
   * count a day.
   */
  async totals(appId: string): Promise<AppTotals> {
    const [users, credentials] = await Promise.all([this.queries.countUsers(appId), this.db.credential.count({ where: { tenant: appId } })]);
    return { users, credentials };
  }
}
