import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { PrismaPg } from '@prisma/adapter-pg';
import { ensurePrivateFile } from '../core/privateFiles';
import { Pool } from 'pg';
import { PrismaClient as SqliteClient } from './generated/sqlite/client';
import { PrismaClient as PostgresClient } from './generated/postgresql/client';
import { providerOf, sqliteFilename } from './databaseUrl';
import { MIGRATION_LEDGER, migratePostgres, migrateSqlite, type Provider } from './migrate';
import { SqliteAdapterFactory } from './sqlite';
import type { SqlDriver } from './sql/driver';
import { openPostgresDriver } from './sql/postgresDriver';
import type { Queries } from './sql/queries';
import { queriesOn } from './sql/queriesOn';
import { openSqliteDriver } from './sql/sqliteDriver';
import { tracedDriver } from './sql/tracedDriver';
import { tracingOn } from '../core/telemetry/tracing';
import { openRepositories, type Repositories, type RepositoryOptions } from './repositories';

export type { NewWebhookDelivery, Queries } from './sql/queries';
export type { SqlDriver } from './sql/driver';
export type { Repositories, RepositoryOptions, StorageHealth, WebhookOutbox } from './repositories';
export { providerOf, sqliteFilename } from './databaseUrl';
/** For the start-up check and `token-keys rewrap`, which run before (or without) the services. */
export { TokenKeyRepository } from './repositories/tokenKeys';

/**
 * PostgreSQL connections per process: Prisma's pool serves the cold CRUD, and the SQL layer, which
 * carries most of the traffic, has connections of its own: a few that pipeline single statements
 * (each carries any number at once) and a pool for transactions of several statements. All open
 * connections only when needed.
 */
const PRISMA_POOL_MAX = 5;
const SQL_CONNECTIONS = { statements: 4, units: 4 };

/**
 * The model delegates the services use. Both generated clients expose the same delegates; their
 * types differ only in transaction isolation levels, so the store is typed against these.
 */
export type Db = Pick<
  SqliteClient,
  'app' | 'appCounter' | 'apiKey' | 'tokenKey' | 'user' | 'credential' | 'alias' | 'redeemedToken' | 'authConfig' | 'event' | 'dispatchedEmail' | 'authenticator' | 'dailyReport' | 'signInCount' | 'webhookEndpoint' | 'webhookDelivery' | 'webhookAttempt' | '$transaction'
>;

export interface Store {
  provider: Provider;
  db: Db;
  /** The SQL layer: the store's statements on its own driver, prepared once (sql/statements.ts). */
  sql: SqlDriver;
  /** The typed queries of every sign-in, verify and registration over `sql`. */
  queries: Queries;
  /** The repositories over this store's connections, for the services (made once per process, by `createServices`). */
  repositories(this: Store, options: RepositoryOptions): Repositories;
  /** Applies pending migrations; returns the names applied. */
  migrate(): Promise<string[]>;
  /** One round trip to the database, for health checks. */
  ping(): Promise<void>;
  /** Names of the migrations recorded as applied. */
  appliedMigrations(): Promise<string[]>;
  /** The connection pool's state, where the driver has a pool (PostgreSQL); for metrics. */
  poolStats?(): PoolStats;
  close(): Promise<void>;
}

export interface PoolStats {
  /** Connections open. */
  total: number;
  idle: number;
  /** Queries waiting for a connection. */
  waiting: number;
}


/** Opens the store that DATABASE_URL names. Nothing is migrated until `migrate()` is called. */
export function openStore(databaseUrl: string): Store {
  if (providerOf(databaseUrl) === 'sqlite') {
    const filename = sqliteFilename(databaseUrl);
    // 0700 directory, 0600 file, whatever the umask; SQLite gives the WAL and shared-memory files the database file's mode.
    ensurePrivateFile(filename, dirname(filename));
    const client = new SqliteClient({ adapter: new SqliteAdapterFactory(filename) });
    const sql = withSpans(openSqliteDriver(filename), 'sqlite');
    return {
      provider: 'sqlite',
      db: client,
      sql,
      queries: queriesOn(sql),
      repositories: repositoriesOf(databaseUrl),
      migrate: async () => migrateSqlite(filename),
      ping: async () => {
        await client.$queryRawUnsafe('SELECT 1');
      },
      appliedMigrations: () => appliedMigrations(client),
      close: async () => {
        await sql.close();
        await client.$disconnect();
      },
    };
  }
  // Prisma's pool is ours (not the adapter's) so that its state can be read for metrics.
  const pool = new Pool({ connectionString: databaseUrl, max: PRISMA_POOL_MAX });
  // An idle connection the server ends (restart, terminated backend) is dropped by the pool and
  // replaced on the next query; without a listener its error would be thrown at the process.
  pool.on('error', () => undefined);
  const client = new PostgresClient({ adapter: new PrismaPg(pool) });
  const sql = withSpans(openPostgresDriver(databaseUrl, SQL_CONNECTIONS), 'postgresql');
  return {
    provider: 'postgresql',
    db: client as unknown as Db,
    sql,
    queries: queriesOn(sql),
    repositories: repositoriesOf(databaseUrl),
    migrate: () => migratePostgres(databaseUrl),
    ping: async () => {
      await client.$queryRawUnsafe('SELECT 1');
    },
    appliedMigrations: () => appliedMigrations(client),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
    close: async () => {
      await sql.close();
      await client.$disconnect();
      if (!pool.ended) await pool.end();
    },
  };
}

/** The driver itself, or with a span per statement when tracing is on (decided once, when the store opens). */
const withSpans = (driver: SqlDriver, provider: 'sqlite' | 'postgresql'): SqlDriver => (tracingOn() ? tracedDriver(driver, provider) : driver);

/** A store's repositories over its own connections (`this`: so that a store copied with wrapped connections, as tests do to count statements, gets repositories over those). */
function repositoriesOf(databaseUrl: string) {
  return function repositories(this: Store, options: RepositoryOptions): Repositories {
    return openRepositories({ store: this, databaseUrl }, options);
  };
}

async function appliedMigrations(client: { $queryRawUnsafe<T>(sql: string): Promise<T> }): Promise<string[]> {
  const rows = await client.$queryRawUnsafe<{ name: string }[]>(`SELECT name FROM "${MIGRATION_LEDGER}" ORDER BY name`);
  return rows.map((r) => r.name);
}
