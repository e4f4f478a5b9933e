import type Database from 'better-sqlite3';
import { backupMac, backupMacMatches } from './backupMac';
import { DataError } from './dataError';
import { sqliteTableDigests, type TableDigest } from './sqliteTableDigests';

/**
 * The table `backup` adds to the file it writes: one row holding the manifest (when the backup was
 * made, the migrations it holds, and every table's row count and digest) and its MAC under
 * BACKUP_MAC_KEY (NULL when the key was not set). `restore` checks it and drops it.
 */
export const BACKUP_MANIFEST_TABLE = '_passwordless_backup';
const MANIFEST_DDL = `CREATE TABLE "${BACKUP_MANIFEST_TABLE}" ("id" INTEGER NOT NULL PRIMARY KEY CHECK ("id" = 1), "manifest" TEXT NOT NULL, "mac" TEXT)`;
const FORMAT = 1;

export interface BackupManifest {
  format: typeof FORMAT;
  createdAt: string;
  /** The migration ledger's names. */
  migrations: string[];
  tables: TableDigest[];
}

/** How a backup's manifest was checked. */
export interface ManifestCheck {
  createdAt: string;
  tables: number;
  rows: number;
  /** `verified` under BACKUP_MAC_KEY; `unsigned`: made without the key (and none is set here); `not verified`: signed, but no key is set here. */
  signature: 'verified' | 'unsigned' | 'not verified';
}

const tableExists = (db: Database.Database) => Boolean(db.prepare(`SELECT 1 FROM sqlite_schema WHERE type = 'table' AND name = ?`).get(BACKUP_MANIFEST_TABLE));

/**
 * Writes the manifest of the database `db` holds into it (replacing one a restored file may still
 * carry): every other table's digest, and the MAC when `macKey` is set.
 */
export function writeBackupManifest(db: Database.Database, migrations: string[], macKey: string | undefined, now = new Date()): { tables: number; rows: number; signed: boolean } {
  return db.transaction(() => {
    db.exec(`DROP TABLE IF EXISTS "${BACKUP_MANIFEST_TABLE}"`);
    const manifest: BackupManifest = { format: FORMAT, createdAt: now.toISOString(), migrations, tables: sqliteTableDigests(db) };
    const text = JSON.stringify(manifest);
    db.exec(MANIFEST_DDL);
    db.prepare(`INSERT INTO "${BACKUP_MANIFEST_TABLE}" ("id", "manifest", "mac") VALUES (1, ?, ?)`).run(text, macKey ? backupMac(macKey, text) : null);
    return { tables: manifest.tables.length, rows: manifest.tables.reduce((sum, t) => sum + t.rows, 0), signed: Boolean(macKey) };
  })();
}

/**
 * The manifest `db` carries, once its MAC is checked: undefined when there is none. With `macKey`
 * set, a manifest without a MAC or with another one is a refusal (`what` names the file in it);
 * so is one that cannot be read.
 */
export function readBackupManifest(db: Database.Database, what: string, macKey: string | undefined): { manifest: BackupManifest; signature: ManifestCheck['signature'] } | undefined {
  if (!tableExists(db)) return undefined;
  let row: { manifest: unknown; mac: unknown } | undefined;
  try {
    row = db.prepare(`SELECT "manifest", "mac" FROM "${BACKUP_MANIFEST_TABLE}" WHERE "id" = 1`).get() as typeof row;
  } catch {
    row = undefined;
  }
  if (!row || typeof row.manifest !== 'string' || (row.mac !== null && typeof row.mac !== 'string')) throw new DataError(`${what} has a backup manifest that cannot be read; nothing was changed`);
  const text = row.manifest;
  const mac = row.mac as string | null;
  if (macKey) {
    if (mac === null) throw new DataError(`${what} is not signed (it was made without BACKUP_MAC_KEY), and BACKUP_MAC_KEY is set: only a backup signed with it is taken; nothing was changed`);
    if (!backupMacMatches(macKey, text, mac)) throw new DataError(`${what} is not signed with this BACKUP_MAC_KEY: it was signed with another key, or changed after it was made; nothing was changed`);
  }
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(text) as BackupManifest;
  } catch {
    throw new DataError(`${what} has a backup manifest that cannot be read; nothing was changed`);
  }
  if (manifest.format !== FORMAT || !Array.isArray(manifest.migrations) || !Array.isArray(manifest.tables)) {
    throw new DataError(`${what} has a backup manifest of another format (${String(manifest.format)}), which this version cannot check; nothing was changed`);
  }
  return { manifest, signature: macKey ? 'verified' : mac === null ? 'unsigned' : 'not verified' };
}

/**
 * Checks every table of `db` (but the manifest's own) against the digests the manifest recorded
 * when the backup was made, and the migration ledger against the migrations it recorded: any
 * difference is a refusal naming the tables.
 */
export function assertManifestHolds(db: Database.Database, what: string, manifest: BackupManifest, ledger: string[]): void {
  if (manifest.migrations.join() !== ledger.join()) {
    throw new DataError(`${what} does not hold the migrations its manifest recorded when it was made (changed or damaged since); nothing was changed`);
  }
  const recorded = new Map(manifest.tables.map((t) => [t.table, t]));
  const found = sqliteTableDigests(db, [BACKUP_MANIFEST_TABLE]);
  const problems: string[] = [];
  for (const table of found) {
    const expected = recorded.get(table.table);
    if (!expected) problems.push(`table ${table.table} is not in it`);
    else if (expected.rows !== table.rows) problems.push(`table ${table.table} has ${table.rows} rows, and ${expected.rows} were recorded`);
    else if (expected.sha256 !== table.sha256) problems.push(`the rows of table ${table.table} differ from its recorded checksum`);
  }
  for (const name of recorded.keys()) if (!found.some((t) => t.table === name)) problems.push(`table ${name} is missing`);
  if (problems.length > 0) {
    throw new DataError(`${what} does not hold what its manifest recorded when the backup was made (changed or damaged since): ${problems.slice(0, 5).join('; ')}${problems.length > 5 ? '; …' : ''}; nothing was changed`);
  }
}

/** What `ManifestCheck` reports of a manifest that held. */
export function manifestCheck(manifest: BackupManifest, signature: ManifestCheck['signature']): ManifestCheck {
  return { createdAt: manifest.createdAt, tables: manifest.tables.length, rows: manifest.tables.reduce((sum, t) => sum + t.rows, 0), signature };
}

const SIGNATURES: Record<ManifestCheck['signature'], string> = {
  verified: 'its signature verified with BACKUP_MAC_KEY',
  unsigned: 'not signed (made without BACKUP_MAC_KEY)',
  'not verified': 'signed, but BACKUP_MAC_KEY is not set here, so the signature was not checked',
};

/** "all 12 tables (190 rows) match the checksums recorded when the backup was made at …; its signature verified with BACKUP_MAC_KEY" */
export function describeManifestCheck(check: ManifestCheck): string {
  const rows = `${check.rows.toLocaleString('en-US')} row${check.rows === 1 ? '' : 's'}`;
  const tables = check.tables === 1 ? 'its one table' : `all ${check.tables} tables`;
  return `${tables} (${rows}) match the checksums recorded when the backup was made at ${check.createdAt}; ${SIGNATURES[check.signature]}`;
}
