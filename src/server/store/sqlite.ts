import { PrismaBetterSqlite3 } from '@prisma/adapter-better-sqlite3';
import Database from 'better-sqlite3';

/** How long a connection waits for another writer (a replica, the CLI) before giving up. */
export const SQLITE_BUSY_TIMEOUT_MS = 15_000;

/**
 * What every SQLite connection of the service must run before its first statement, whoever opens
 * it (Prisma's adapter or a driver-level connection): foreign keys are per connection in SQLite,
 * and without them deleting an App row would leave its rows behind and a row for a deleted app
 * would be accepted. better-sqlite3 happens to be built with foreign keys on; this does not rely
 * on that.
 *
 * `synchronous = FULL`: better-sqlite3 is built with WAL's default lowered to NORMAL, under which
 * the last commits before a power loss can vanish, and with them a consumed challenge or a
 * redeemed token (a replay after the crash). FULL syncs the WAL on every commit.
 */
export const SQLITE_CONNECTION_SETUP = `PRAGMA foreign_keys = ON; PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}; PRAGMA synchronous = FULL;`;

/** A driver-level connection to the service's SQLite file, set up like every other. */
export function openSqliteConnection(filename: string, options: Database.Options = {}): Database.Database {
  const db = new Database(filename, { timeout: SQLITE_BUSY_TIMEOUT_MS, ...options });
  db.exec(SQLITE_CONNECTION_SETUP);
  return db;
}

/** Prisma's better-sqlite3 adapter, whose connection gets the same setup as soon as it opens. */
export class SqliteAdapterFactory extends PrismaBetterSqlite3 {
  constructor(filename: string) {
    super({ url: filename, timeout: SQLITE_BUSY_TIMEOUT_MS });
  }

  override async connect(): ReturnType<PrismaBetterSqlite3['connect']> {
    const adapter = await super.connect();
    await adapter.executeScript(SQLITE_CONNECTION_SETUP);
    return adapter;
  }
}
