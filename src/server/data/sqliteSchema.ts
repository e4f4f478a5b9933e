import Database from 'better-sqlite3';
import { applyPendingSqlite, type Migration } from '../store/migrate';
import type { SchemaObject } from './schemaDifferences';

/** Runs of whitespace as one space: the stored SQL of one statement, however it was laid out. */
const normalise = (sql: string) => sql.replace(/\s+/g, ' ').trim();

/**
 * Every object of an SQLite database's schema (`sqlite_schema`: tables, indexes, triggers, views,
 * and SQLite's own, such as `sqlite_stat1` after an ANALYZE), with the SQL SQLite stored for it.
 * Objects of the tables in `skipTables` (and those tables) are left out.
 */
export function sqliteSchemaObjects(db: Database.Database, skipTables: readonly string[] = []): SchemaObject[] {
  const rows = db.prepare('SELECT type, name, tbl_name AS "table", sql FROM sqlite_schema').all() as { type: string; name: string; table: string; sql: string | null }[];
  return rows.filter((row) => !skipTables.includes(row.table)).map((row) => ({ kind: row.type, name: row.name, table: row.table, definition: normalise(row.sql ?? '') }));
}

/** The schema `migrations` make in an empty SQLite database (one in memory, thrown away). */
export function migratedSqliteSchema(migrations: Migration[]): SchemaObject[] {
  const db = new Database(':memory:');
  try {
    // As the service migrates: foreign keys off while tables are redefined.
    db.pragma('foreign_keys = OFF');
    db.transaction(() => applyPendingSqlite(db, migrations))();
    return sqliteSchemaObjects(db);
  } finally {
    db.close();
  }
}
