import type Database from 'better-sqlite3';
import { MIGRATION_LEDGER } from '../store/migrate';
import type { LedgerEntry } from './schemaVersion';

/** An SQLite database's migration ledger, or undefined when it has none. */
export function readSqliteLedger(db: Database.Database): LedgerEntry[] | undefined {
  const present = db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(MIGRATION_LEDGER);
  if (!present) return undefined;
  return db.prepare(`SELECT name, checksum FROM "${MIGRATION_LEDGER}" ORDER BY name`).all() as LedgerEntry[];
}
