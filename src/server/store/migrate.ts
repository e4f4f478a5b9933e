import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type Database from 'better-sqlite3';
import { Client as PgClient } from 'pg';
import { openSqliteConnection } from './sqlite';

export type Provider = 'sqlite' | 'postgresql';

export interface Migration {
  name: string;
  sql: string;
  checksum: string;
}

/** Where the committed migration SQL lives, for both `src/` (tests) and `dist/` (runtime). */
function migrationsDir(provider: Provider): string {
  for (const candidate of [join(__dirname, '..', '..', '..', 'prisma', 'migrations', provider), join(process.cwd(), 'prisma', 'migrations', provider)]) {
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`migration SQL for ${provider} not found (expected prisma/migrations/${provider})`);
}

export function loadMigrations(provider: Provider): Migration[] {
  const dir = migrationsDir(provider);
  return readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort()
    .map((name) => {
      const sql = readFileSync(join(dir, name, 'migration.sql'), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

export const MIGRATION_LEDGER = '_passwordless_migrations';
const LEDGER = MIGRATION_LEDGER;

/** The ledger's definition per provider; every migrator creates it the same way. */
const LEDGER_DDL: Record<Provider, string> = {
  sqlite: `CREATE TABLE IF NOT EXISTS "${LEDGER}" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TEXT NOT NULL)`,
  postgresql: `CREATE TABLE IF NOT EXISTS "${LEDGER}" (name TEXT PRIMARY KEY, checksum TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
};

function assertUnchanged(applied: Map<string, string>, migrations: Migration[]): void {
  for (const m of migrations) {
    const recorded = applied.get(m.name);
    if (recorded !== undefined && recorded !== m.checksum) {
      throw new Error(`migration ${m.name} was edited after it was applied; add a new migration instead`);
    }
  }
}

/**
 * Applies pending migrations to an SQLite file and returns the names applied. An IMMEDIATE
 * transaction holds the write lock for the whole run, so two processes starting together
 * serialise and the second finds nothing to do.
 *
 * Foreign keys are off while migrations run, as SQLite's procedure for redefining a table asks
 * (with them on, dropping the App table to redefine it would cascade into every app's rows), and
 * every foreign key is checked before the transaction commits.
 */
export function migrateSqlite(filename: string, migrations = loadMigrations('sqlite')): string[] {
  const db = openSqliteConnection(filename);
  try {
    db.pragma('journal_mode = WAL');
    db.pragma('foreign_keys = OFF'); // only takes effect outside a transaction
    const run = db.transaction(() => {
      const applied = applyPendingSqlite(db, migrations);
      const broken = db.pragma('foreign_key_check') as { table: string }[];
      if (broken.length > 0) throw new Error(`migrations left ${broken.length} rows whose app does not exist (first in ${broken[0].table}); nothing was applied`);
      return applied;
    });
    return run.immediate();
  } finally {
    db.close();
  }
}

/**
 * Applies the pending migrations on `db` inside the caller's transaction (with foreign keys off,
 * as `migrateSqlite` runs them) and returns their names: the copy command creates a target's
 * schema in the same transaction as its rows.
 */
export function applyPendingSqlite(db: Database.Database, migrations: Migration[]): string[] {
  db.exec(LEDGER_DDL.sqlite);
  const rows = db.prepare(`SELECT name, checksum FROM "${LEDGER}"`).all() as { name: string; checksum: string }[];
  const applied = new Map(rows.map((r) => [r.name, r.checksum]));
  assertUnchanged(applied, migrations);
  const pending = migrations.filter((m) => !applied.has(m.name));
  for (const m of pending) {
    db.exec(m.sql);
    db.prepare(`INSERT INTO "${LEDGER}" (name, checksum, applied_at) VALUES (?, ?, ?)`).run(m.name, m.checksum, new Date().toISOString());
  }
  return pending.map((m) => m.name);
}

// Any constant works; it names "the passwordless migration lock" among PostgreSQL advisory locks.
export const PG_MIGRATION_LOCK = 7_001_2026;

/**
 * Applies pending migrations to PostgreSQL. A session advisory lock makes concurrent starts
 * against one database take turns; each migration commits with its ledger row.
 */
export async function migratePostgres(url: string, migrations = loadMigrations('postgresql')): Promise<string[]> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PG_MIGRATION_LOCK]);
    const pending = await pendingPostgres(client, migrations);
    const done: string[] = [];
    for (const m of pending) {
      await client.query('BEGIN');
      try {
        await runPostgresMigration(client, m);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      done.push(m.name);
    }
    return done;
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PG_MIGRATION_LOCK]).catch(() => undefined);
    await client.end();
  }
}

/** Creates the ledger if needed and returns the migrations it does not record yet. */
async function pendingPostgres(client: PgClient, migrations: Migration[]): Promise<Migration[]> {
  await client.query(LEDGER_DDL.postgresql);
  const { rows } = await client.query<{ name: string; checksum: string }>(`SELECT name, checksum FROM "${LEDGER}"`);
  const applied = new Map(rows.map((r) => [r.name, r.checksum]));
  assertUnchanged(applied, migrations);
  return migrations.filter((m) => !applied.has(m.name));
}

async function runPostgresMigration(client: PgClient, m: Migration): Promise<void> {
  await client.query(m.sql);
  await client.query(`INSERT INTO "${LEDGER}" (name, checksum) VALUES ($1, $2)`, [m.name, m.checksum]);
}

/**
 * Applies the pending migrations inside the caller's transaction, which must hold
 * `pg_advisory_xact_lock(PG_MIGRATION_LOCK)`; returns their names. The copy command creates a
 * target's schema in the same transaction as its rows, so a failed copy leaves no tables behind.
 */
export async function applyPendingPostgres(client: PgClient, migrations: Migration[]): Promise<string[]> {
  const pending = await pendingPostgres(client, migrations);
  for (const m of pending) await runPostgresMigration(client, m);
  return pending.map((m) => m.name);
}
