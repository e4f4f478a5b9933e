import { existsSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import type Database from 'better-sqlite3';
import { ensurePrivateFile } from '../core/privateFiles';
import { sqliteFilename } from '../store/databaseUrl';
import { applyPendingSqlite, MIGRATION_LEDGER, type Migration } from '../store/migrate';
import { openSqliteConnection } from '../store/sqlite';
import { assertManifestHolds, BACKUP_MANIFEST_TABLE, manifestCheck, readBackupManifest } from './backupManifest';
import type { TableSchema } from './catalog';
import { sqliteColumnKind } from './columnKinds';
import { quoteName, type DataEndpoint, type LocatedRow } from './dataEndpoint';
import { DataError } from './dataError';
import { databaseLabel } from './databaseLabel';
import { sqliteValue } from './encodeValue';
import { readValue } from './readValue';
import { migratedSqliteSchema, sqliteSchemaObjects } from './sqliteSchema';
import { readSqliteLedger } from './sqliteLedger';
import type { LedgerEntry } from './schemaVersion';

export interface SqliteEndpointOptions {
  /**
   * The most pages the target may grow to (`PRAGMA max_page_count`): past it, SQLite fails a
   * write with SQLITE_FULL exactly as a full disk does. Tests use it to fill the "disk" at a
   * chosen point.
   */
  maxPages?: number;
}

/**
 * An SQLite file as a source (opened read-only; it must exist) or a target (created when missing,
 * in an existing directory, and removed again by `close({ discard: true })`).
 */
export function openSqliteEndpoint(url: string, role: 'source' | 'target', options: SqliteEndpointOptions = {}): DataEndpoint {
  const label = databaseLabel(url);
  const filename = sqliteFilename(url);
  const exists = existsSync(filename);
  if (role === 'source' && !exists) throw new DataError(`the source database ${label} does not exist`);
  if (!exists && !existsSync(dirname(filename))) throw new DataError(`the directory of the target ${label} does not exist`);
  let db: Database.Database;
  try {
    // A new target will hold key digests, token keys and passkeys: created 0600 whatever the umask
    // (SQLite gives its WAL and shared memory the database file's mode).
    if (!exists) ensurePrivateFile(filename, dirname(filename));
    db = openSqliteConnection(filename, role === 'source' ? { readonly: true, fileMustExist: true } : { fileMustExist: exists });
    db.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (error) {
    if (!exists) rmSync(filename, { force: true });
    throw new DataError(`the ${role} ${label} cannot be read as an SQLite database (${(error as { code?: string }).code ?? (error as Error).message})`);
  }
  const inserts = new Map<string, Database.Statement>();

  const tableNames = () =>
    (db.prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name`).all() as { name: string }[]).map((r) => r.name);

  return {
    provider: 'sqlite',
    label,
    async ledger(): Promise<LedgerEntry[] | undefined> {
      return readSqliteLedger(db);
    },
    async catalog(): Promise<TableSchema[]> {
      return tableNames()
        .filter((name) => name !== MIGRATION_LEDGER && name !== BACKUP_MANIFEST_TABLE)
        .map((name) => {
          const info = db.pragma(`table_info(${quoteName(name)})`) as { name: string; type: string; pk: number }[];
          const columns = info
            .map((c) => {
              const kind = sqliteColumnKind(c.type);
              if (!kind) throw new DataError(`column ${name}.${c.name} has type ${c.type || '(none)'}, which data copy cannot copy faithfully`);
              return { name: c.name, kind, sqlType: c.type };
            })
            .sort((a, b) => (a.name < b.name ? -1 : 1));
          const primaryKey = info.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
          const parents = [...new Set((db.pragma(`foreign_key_list(${quoteName(name)})`) as { table: string }[]).map((f) => f.table))];
          return { name, columns, primaryKey, parents };
        });
    },
    async schema() {
      // A backup file's manifest is `backup`'s, not the migrations'; a target's would be foreign.
      return sqliteSchemaObjects(db, role === 'source' ? [BACKUP_MANIFEST_TABLE] : []);
    },
    async migratedSchema(migrations: Migration[]) {
      return migratedSqliteSchema(migrations);
    },
    async checkBackupManifest(macKey) {
      const what = `the ${role} ${label}`;
      const found = readBackupManifest(db, what, macKey);
      if (!found) return undefined;
      assertManifestHolds(db, what, found.manifest, (readSqliteLedger(db) ?? []).map((entry) => entry.name));
      return manifestCheck(found.manifest, found.signature);
    },
    async countRows(table) {
      return Number((db.prepare(`SELECT count(*) AS n FROM ${quoteName(table)}`).get() as { n: number }).n);
    },
    async beginSnapshot() {
      db.exec('BEGIN');
      // A read transaction in WAL mode takes its snapshot at its first read.
      db.prepare('SELECT count(*) FROM sqlite_schema').get();
    },
    async endSnapshot() {
      if (db.inTransaction) db.exec('COMMIT');
    },
    async *readRows(table, batchSize) {
      const select = db.prepare(`SELECT rowid, ${table.columns.map((c) => quoteName(c.name)).join(', ')} FROM ${quoteName(table.name)}`);
      select.safeIntegers(true).raw(true);
      const rows = select.iterate() as IterableIterator<unknown[]>;
      try {
        let batch: LocatedRow[] = [];
        for (const [rowid, ...raw] of rows) {
          batch.push({ locator: rowid, values: raw.map((value, i) => readValue(table, i, value)) });
          if (batch.length >= batchSize) {
            yield batch;
            batch = [];
          }
        }
        if (batch.length > 0) yield batch;
      } finally {
        rows.return?.();
      }
    },
    async beginWrite() {
      // As migrations run: keys off inside the transaction, every key checked before it commits.
      db.pragma('foreign_keys = OFF');
      if (!exists) db.pragma('journal_mode = WAL');
      if (options.maxPages) db.pragma(`max_page_count = ${Math.floor(options.maxPages)}`);
      db.exec('BEGIN IMMEDIATE');
    },
    async applyMigrations(migrations: Migration[]) {
      return applyPendingSqlite(db, migrations);
    },
    async insertRows(table, rows) {
      let insert = inserts.get(table.name);
      if (!insert) {
        insert = db.prepare(`INSERT INTO ${quoteName(table.name)} (${table.columns.map((c) => quoteName(c.name)).join(', ')}) VALUES (${table.columns.map(() => '?').join(', ')})`);
        inserts.set(table.name, insert);
      }
      for (const row of rows) insert.run(row.map((value, i) => sqliteValue(table.columns[i].kind, value)));
    },
    async updateRows(table, rows) {
      const update = db.prepare(`UPDATE ${quoteName(table.name)} SET ${table.columns.map((c) => `${quoteName(c.name)} = ?`).join(', ')} WHERE rowid = ?`);
      for (const row of rows) update.run([...row.values.map((value, i) => sqliteValue(table.columns[i].kind, value)), row.locator]);
    },
    async deleteRows(table, locators) {
      const remove = db.prepare(`DELETE FROM ${quoteName(table.name)} WHERE rowid = ?`);
      for (const rowid of locators) remove.run(rowid);
    },
    async commitWrite() {
      const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[];
      if (broken.length > 0) throw new DataError(`${broken.length} rows of ${broken[0].table} would refer to ${broken[0].parent} rows that do not exist`);
      db.exec('COMMIT');
      db.pragma('foreign_keys = ON');
    },
    async abortWrite() {
      try {
        if (db.inTransaction) db.exec('ROLLBACK');
      } catch {
        // SQLite has already rolled back (some errors, SQLITE_FULL among them, end the transaction)
      }
    },
    async close({ discard = false } = {}) {
      if (db.open) db.close();
      if (discard && !exists) for (const suffix of ['', '-wal', '-shm', '-journal']) rmSync(`${filename}${suffix}`, { force: true });
    },
  };
}
