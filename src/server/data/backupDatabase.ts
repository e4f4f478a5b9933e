import { chmodSync, existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { providerOf, sqliteFilename } from '../store/databaseUrl';
import { openSqliteConnection } from '../store/sqlite';
import { writeBackupManifest } from './backupManifest';
import { DataError } from './dataError';
import { databaseLabel } from './databaseLabel';
import { replaceDurably } from './durableFile';
import { readSqliteLedger } from './sqliteLedger';
import { temporaryFileBeside } from './temporaryFile';

export interface BackupResult {
  database: string;
  file: string;
  bytes: number;
  /** The last migration the backup holds. */
  schema: string;
  /** Tables and rows its manifest records. */
  tables: number;
  rows: number;
  /** Its manifest carries a MAC under BACKUP_MAC_KEY. */
  signed: boolean;
  ms: number;
}

const realOrResolved = (path: string) => (existsSync(path) ? realpathSync(path) : resolve(path));

/**
 * `backup <file>`: an online, consistent copy of the SQLite database while the service runs.
 * SQLite's backup API (through better-sqlite3) copies every page in one step, inside one read
 * transaction, so the copy is one moment of the database (WAL content included) and the service's
 * writers are not held up. It goes to a new 0600 file beside `file`, is switched to a single-file
 * journal, checked (`PRAGMA integrity_check`), given its manifest (every table's row count and
 * digest, signed with `macKey` when one is set: what `restore` checks before it restores
 * anything), flushed, and only then renamed over `file`: a failed backup leaves `file` as it was.
 */
export async function backupDatabase(databaseUrl: string, file: string, macKey?: string): Promise<BackupResult> {
  if (providerOf(databaseUrl) !== 'sqlite') {
    throw new DataError('backup copies an SQLite database, and DATABASE_URL names PostgreSQL: back it up with pg_dump (see docs/operations.md, "Backups")');
  }
  const database = sqliteFilename(databaseUrl);
  const label = databaseLabel(databaseUrl);
  if (!existsSync(database)) throw new DataError(`the database ${label} does not exist`);
  const destination = resolve(file);
  if (!existsSync(dirname(destination))) throw new DataError(`the directory of ${destination} does not exist`);
  if (existsSync(destination) && statSync(destination).isDirectory()) throw new DataError(`${destination} is a directory; name the backup file`);
  const real = realOrResolved(database);
  if ([real, `${real}-wal`, `${real}-shm`].includes(realOrResolved(destination))) throw new DataError(`${destination} is the database itself; name another file`);

  const started = Date.now();
  const source = openSqliteConnection(database, { readonly: true, fileMustExist: true });
  const temporary = temporaryFileBeside(destination);
  try {
    const schema = readSqliteLedger(source)?.at(-1)?.name;
    if (!schema) throw new DataError(`${label} is not a passwordless-selfhost database (it has no migration ledger)`);
    // After the first (empty) step, all remaining pages in one: one read transaction, no restarts.
    await source.backup(temporary.path, { progress: () => 0x7fffffff });
    const copy = openSqliteConnection(temporary.path, { fileMustExist: true });
    let manifest: ReturnType<typeof writeBackupManifest>;
    try {
      copy.pragma('journal_mode = DELETE');
      const problems = copy.pragma('integrity_check') as { integrity_check: string }[];
      if (problems.length !== 1 || problems[0].integrity_check !== 'ok') throw new DataError(`the backup failed its integrity check (${problems[0]?.integrity_check}); nothing was written to ${destination}`);
      manifest = writeBackupManifest(copy, (readSqliteLedger(copy) ?? []).map((entry) => entry.name), macKey);
    } finally {
      copy.close();
    }
    chmodSync(temporary.path, 0o600);
    replaceDurably(temporary.path, destination);
    return { database: label, file: destination, bytes: statSync(destination).size, schema, ...manifest, ms: Date.now() - started };
  } catch (error) {
    temporary.remove();
    if (error instanceof DataError) throw error;
    const { code, message } = error as { code?: string; message?: string };
    if (code === 'SQLITE_FULL' || code === 'ENOSPC') throw new DataError(`the disk of ${destination} is full; no backup was written${existsSync(destination) ? ` (the file there is untouched)` : ''}`);
    throw new DataError(`the backup of ${label} failed (${code ?? message}); nothing was written to ${destination}`);
  } finally {
    source.close();
  }
}
