import type { Migration, Provider } from '../store/migrate';
import type { ManifestCheck } from './backupManifest';
import type { CanonicalValue } from './canonicalValue';
import type { TableSchema } from './catalog';
import type { SchemaObject } from './schemaDifferences';
import type { LedgerEntry } from './schemaVersion';

/** A row as read: its canonical values, and where it sits (for updating or deleting it in place). */
export interface LocatedRow {
  values: CanonicalValue[];
  /** SQLite: the rowid; PostgreSQL: the primary key's values. */
  locator: unknown;
}

/**
 * One database as the copy sees it, on one connection: its catalog and ledger, consistent
 * snapshots to read, and one transaction to write. Values cross this boundary in canonical form
 * only; each side decodes and encodes its own.
 */
export interface DataEndpoint {
  readonly provider: Provider;
  /** The database as output may show it (no password). */
  readonly label: string;
  /** The migration ledger, or undefined when there is none. */
  ledger(): Promise<LedgerEntry[] | undefined>;
  /** Every table but the ledger (and a backup's manifest). */
  catalog(): Promise<TableSchema[]>;
  /** Every object of the schema (tables, indexes, triggers, views, functions, …), to compare with `migratedSchema`. */
  schema(): Promise<SchemaObject[]>;
  /**
   * The same of a database `migrations` made from nothing, built beside this one and thrown away
   * (SQLite: in memory; PostgreSQL: temporary objects in a savepoint or transaction rolled back).
   */
  migratedSchema(migrations: Migration[]): Promise<SchemaObject[]>;
  /**
   * Inside the open snapshot: the manifest a `backup` wrote into the file, its MAC checked under
   * `macKey` and every table checked against it; undefined when there is none (PostgreSQL: always).
   * A manifest that does not hold is a refusal.
   */
  checkBackupManifest(macKey: string | undefined): Promise<ManifestCheck | undefined>;
  countRows(table: string): Promise<number>;
  /** Starts a consistent snapshot: a read transaction (SQLite), REPEATABLE READ (PostgreSQL). */
  beginSnapshot(): Promise<void>;
  endSnapshot(): Promise<void>;
  /** The table's rows in batches, from the snapshot or write transaction that is open. */
  readRows(table: TableSchema, batchSize: number): AsyncGenerator<LocatedRow[]>;
  /** Starts the one write transaction and keeps other writers out of `tables` until it ends. */
  beginWrite(tables: string[]): Promise<void>;
  /** Applies migrations inside the write transaction. */
  applyMigrations(migrations: Migration[]): Promise<string[]>;
  insertRows(table: TableSchema, rows: CanonicalValue[][]): Promise<void>;
  updateRows(table: TableSchema, rows: LocatedRow[]): Promise<void>;
  deleteRows(table: TableSchema, locators: unknown[]): Promise<void>;
  /** Checks what the database leaves to the end (SQLite's foreign keys) and commits. */
  commitWrite(): Promise<void>;
  /** Rolls the write transaction back; never throws. */
  abortWrite(): Promise<void>;
  /** Closes the connection; with `discard`, also removes what opening created (a new SQLite file). */
  close(options?: { discard?: boolean }): Promise<void>;
}

/** A double-quoted identifier, as both databases read one. */
export const quoteName = (name: string) => `"${name.replace(/"/g, '""')}"`;
