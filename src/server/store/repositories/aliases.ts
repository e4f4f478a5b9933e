import { isUniqueViolation } from '../../core/storeErrors';
import type { Db } from '..';
import type { Queries, NewAlias } from '../sql/queries';
import type { WebhookEvent, WebhookOutbox } from './webhookOutbox';

/** One stored alias: its hash, and its plaintext only when it was stored unhashed. */
export interface StoredAlias {
  userId: string;
  aliasHash: string;
  plaintext: string | null;
}

/** What an `AliasRepository` is built from. */
export interface AliasRepositoryDeps {
  db: Db;
  queries: Queries;
  outbox: WebhookOutbox;
}

/**
 * The app's aliases, keyed by (app, alias hash), with an index on (app, userId). The reads are
 * rare and go through Prisma; replacing a user's set is a unit of the SQL layer's statements (with
 * the user's row and the deliveries that report it).
 */
export class AliasRepository {
  private readonly db: Db;
  private readonly queries: Queries;
  private readonly outbox: WebhookOutbox;

  constructor(deps: AliasRepositoryDeps) {
    this.db = deps.db;
    this.queries = deps.queries;
    this.outbox = deps.outbox;
  }

  /** Whether any of these hashes belongs to a user of the app other than `userId`: one read of the hashes on the (app, alias hash) key. */
  async takenByOther(appId: string, userId: string, aliasHashes: string[]): Promise<boolean> {
    const taken = await this.db.alias.findFirst({ where: { tenant: appId, aliasHash: { in: aliasHashes }, userId: { not: userId } }, select: { userId: true } });
    return taken !== null;
  }

  /**
   * Replaces the user's whole alias set (with the user's row) and writes the deliveries that
   * report it, in one unit; the worker is woken once it is committed. False when an alias was
   * taken meanwhile (the driver's unique violation): then nothing changed and nothing is reported.
   */
  async replace(appId: string, userId: string, aliases: NewAlias[], report: WebhookEvent): Promise<boolean> {
    try {
      await this.outbox.reported(appId, report, (deliveries) => this.queries.replaceAliases(appId, userId, aliases, deliveries));
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
    return true;
  }

  /** The user's aliases in the order of their hash: one read by the (app, userId) index. */
  list(appId: string, userId: string): Promise<StoredAlias[]> {
    return this.db.alias.findMany({ where: { tenant: appId, userId }, orderBy: { aliasHash: 'asc' } });
  }

  /** Whose alias this hash is; undefined when the app has no such alias. One primary-key read. */
  async userIdOf(appId: string, aliasHash: string): Promise<string | undefined> {
    const row = await this.db.alias.findUnique({ where: { tenant_aliasHash: { tenant: appId, aliasHash } }, select: { userId: true } });
    return row?.userId;
  }
}
