import type { Migration } from '../store/migrate';
import { openSqliteConnection } from '../store/sqlite';
import { assertManifestHolds, BACKUP_MANIFEST_TABLE, manifestCheck, readBackupManifest, type ManifestCheck } from './backupManifest';
import { DataError } from './dataError';
import { listDifferences, schemaDifferences } from './schemaDifferences';
import { migratedSqliteSchema, sqliteSchemaObjects } from './sqliteSchema';
import { readSqliteLedger } from './sqliteLedger';

/**
 * Checks the private copy of a backup that `restore` is about to put in place, before anything is
 * replaced, and takes `backup`'s manifest out of it. `backup` names the file in refusals.
 *
 * 1. Its manifest: with `macKey` set, it must be there and signed with that key.
 * 2. Its schema must be exactly what its own migrations (`applied`, from its ledger) make from
 *    nothing: an extra trigger, view, index or table, a changed definition or a missing object is
 *    refused (a trigger that puts a redeemed token back makes a single-use token verify again and
 *    again).
 * 3. Every row must refer to a row that exists (`PRAGMA foreign_key_check`).
 * 4. Every table must hold exactly what the manifest recorded when the backup was made: one byte
 *    changed in a passkey's public key is refused, naming the table.
 *
 * Returns how the manifest was checked, or undefined when the file has none (a copy of a database,
 * or a backup of an older version), which is taken only when `macKey` is not set.
 */
export function checkRestoredFile(path: string, backup: string, applied: Migration[], macKey: string | undefined): ManifestCheck | undefined {
  const db = openSqliteConnection(path, { fileMustExist: true });
  try {
    const ledger = (readSqliteLedger(db) ?? []).map((entry) => entry.name);
    if (ledger.join() !== applied.map((m) => m.name).join()) throw new DataError(`${backup} changed while it was being restored; nothing was changed`);
    const found = readBackupManifest(db, backup, macKey);
    if (!found && macKey) {
      throw new DataError(`${backup} is not signed (it carries no manifest: it was not written by \`backup\`, or by an older version), and BACKUP_MAC_KEY is set: only a backup signed with it is restored; nothing was changed`);
    }
    // The manifest is `backup`'s, not the migrations': it goes (with anything attached to it) before the schema is compared.
    db.exec(`DROP TABLE IF EXISTS "${BACKUP_MANIFEST_TABLE}"`);
    const differences = schemaDifferences(sqliteSchemaObjects(db), migratedSqliteSchema(applied));
    if (differences.length > 0) {
      throw new DataError(`${backup} holds what the migrations did not make: ${listDifferences(differences)}; nothing was changed`);
    }
    const orphans = db.pragma('foreign_key_check') as { table: string; parent: string }[];
    if (orphans.length > 0) {
      throw new DataError(`${backup} has ${orphans.length} row${orphans.length === 1 ? '' : 's'} of ${orphans[0].table} that refer to ${orphans[0].parent} rows it does not have; nothing was changed`);
    }
    if (!found) return undefined;
    assertManifestHolds(db, backup, found.manifest, ledger);
    return manifestCheck(found.manifest, found.signature);
  } finally {
    db.close();
  }
}
