import type Database from 'better-sqlite3';
import { copyFileSync, existsSync, linkSync, renameSync, rmdirSync, rmSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ensurePrivateDirectory } from '../core/privateFiles';
import { providerOf, sqliteFilename } from '../store/databaseUrl';
import { loadMigrations, type Migration } from '../store/migrate';
import { openSqliteConnection } from '../store/sqlite';
import type { ManifestCheck } from './backupManifest';
import { checkRestoredFile } from './checkRestoredFile';
import { DataError } from './dataError';
import { databaseLabel } from './databaseLabel';
import { fsyncPath, replaceDurably } from './durableFile';
import { schemaVersion } from './schemaVersion';
import { readSqliteLedger } from './sqliteLedger';
import { temporaryFileBeside } from './temporaryFile';

export interface RestoreResult {
  database: string;
  file: string;
  /** The last migration the backup holds. */
  schema: string;
  /** Migrations the service will apply when it next starts (the backup came from an older version). */
  pending: string[];
  /** Where the database that was replaced now is; undefined when there was none. */
  previous: string | undefined;
  /** How the backup's manifest was checked; undefined when it carries none (then BACKUP_MAC_KEY is not set). */
  checked: ManifestCheck | undefined;
}

/** "20261125T094511Z": a file-name-safe moment. */
const stamp = (date: Date) => date.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');

/** Throws unless no other connection has the database open (a running service holds one). */
function assertNotInUse(database: string, label: string): void {
  const db = openSqliteConnection(database, { fileMustExist: true, timeout: 0 });
  try {
    db.pragma('busy_timeout = 0');
    // An exclusive lock on a WAL database is granted only when no other connection has it open.
    db.pragma('locking_mode = EXCLUSIVE');
    db.exec('BEGIN EXCLUSIVE');
    db.exec('COMMIT');
  } catch (error) {
    if ((error as { code?: string }).code?.startsWith('SQLITE_BUSY')) throw new DataError(`the database ${label} is in use (is the service still running on it?): stop it, then restore; nothing was changed`);
    throw new DataError(`the database ${label} cannot be opened (${(error as { code?: string }).code ?? (error as Error).message}); nothing was changed`);
  } finally {
    db.close();
  }
}

/**
 * `restore <file>`, with the service stopped: checks that `file` is a sound SQLite database
 * (`PRAGMA integrity_check`) of a schema this version runs (its migration ledger: the same, or
 * older, which the service migrates at start), and that nothing has the database open; then
 * writes the backup's content to a new 0600 file beside the database (in a directory created
 * 0700), and checks that copy (`checkRestoredFile`: the manifest's signature under `macKey`, the
 * schema against what the migrations make, foreign keys, every table against the checksums the
 * backup recorded); only then keeps the current database (and its WAL) under a `.replaced-<time>`
 * name, and renames the new file into place. Any refusal changes nothing: the copy is removed, and
 * so is a directory the restore created.
 */
export async function restoreDatabase(databaseUrl: string, file: string, macKey?: string, migrations: Migration[] = loadMigrations('sqlite')): Promise<RestoreResult> {
  if (providerOf(databaseUrl) !== 'sqlite') {
    throw new DataError('restore replaces an SQLite database, and DATABASE_URL names PostgreSQL: restore a pg_dump archive with pg_restore (see docs/operations.md, "Backups")');
  }
  const backup = resolve(file);
  if (!existsSync(backup)) throw new DataError(`the backup ${backup} does not exist; nothing was changed`);
  const database = sqliteFilename(databaseUrl);
  const label = databaseLabel(databaseUrl);
  if (resolve(database) === backup) throw new DataError(`${backup} is the database itself; nothing was changed`);

  let source: Database.Database | undefined;
  try {
    source = openSqliteConnection(backup, { readonly: true, fileMustExist: true });
    source.prepare('SELECT count(*) FROM sqlite_schema').get();
  } catch (error) {
    source?.close();
    const { code, message } = error as { code?: string; message?: string };
    throw new DataError(`${backup} cannot be read as an SQLite database (${[code, message].filter(Boolean).join(': ')}); nothing was changed`);
  }
  try {
    const version = schemaVersion(checkedLedger(source, backup), migrations);
    if (version.state === 'none') throw new DataError(`${backup} is not a passwordless-selfhost database (it has no migration ledger); nothing was changed`);
    if (version.state === 'foreign') throw new DataError(`${backup} is on a schema this version cannot run: ${version.reason}; nothing was changed`);
    const created = ensurePrivateDirectory(dirname(database));
    const temporary = temporaryFileBeside(database);
    let previous: string | undefined;
    let checked: ManifestCheck | undefined;
    try {
      if (existsSync(database)) assertNotInUse(database, label);
      // The backup API reads the file as SQLite sees it (a WAL beside it included).
      await source.backup(temporary.path, { progress: () => 0x7fffffff });
      const applied = migrations.filter((m) => version.state === 'current' || !version.pending.includes(m));
      // What is checked is the copy that goes into place, not the file it came from.
      checked = checkRestoredFile(temporary.path, backup, applied, macKey);
      fsyncPath(temporary.path);
      if (existsSync(database)) {
        previous = `${database}.replaced-${stamp(new Date())}`;
        keepAside(database, previous);
      }
      replaceDurably(temporary.path, database);
    } catch (error) {
      temporary.remove();
      if (created && !previous) removeCreated(dirname(database), created);
      if (error instanceof DataError) throw error;
      const { code, message } = error as { code?: string; message?: string };
      throw new DataError(`restoring ${backup} failed (${code ?? message}); ${previous ? `the previous database is kept as ${previous}` : 'nothing was changed'}`);
    }
    return {
      database: label,
      file: backup,
      schema: version.state === 'current' ? version.latest : version.latest ?? '(none)',
      pending: version.state === 'behind' ? version.pending.map((m) => m.name) : [],
      previous,
      checked,
    };
  } finally {
    source.close();
  }
}

/**
 * The backup's migration ledger, once `PRAGMA integrity_check` has found nothing wrong; damage
 * SQLite reports as an error rather than a finding is a failed check too.
 */
function checkedLedger(source: Database.Database, backup: string) {
  let problems: string[];
  try {
    problems = (source.pragma('integrity_check') as { integrity_check: string }[]).map((p) => p.integrity_check.replace(/\s*\n\s*/g, ' '));
    if (problems.join() === 'ok') return readSqliteLedger(source);
  } catch (error) {
    const { code, message } = error as { code?: string; message?: string };
    problems = [[code, message].filter(Boolean).join(': ')];
  }
  throw new DataError(`${backup} failed its integrity check (${problems.slice(0, 3).join('; ')}${problems.length > 3 ? '; …' : ''}); nothing was changed`);
}

/** Removes the (empty) directories from `dir` up to `created`, the first one a refused restore made. */
function removeCreated(dir: string, created: string): void {
  for (let current = resolve(dir); ; current = dirname(current)) {
    try {
      rmdirSync(current);
    } catch {
      return;
    }
    if (current === resolve(created) || dirname(current) === current) return;
  }
}

/**
 * Keeps the current database under `aside`: a hard link to it (a copy where links are not
 * possible), and its WAL, which belongs to it and must never meet the restored file, moved along.
 */
function keepAside(database: string, aside: string): void {
  try {
    linkSync(database, aside);
  } catch {
    copyFileSync(database, aside);
  }
  if (existsSync(`${database}-wal`)) renameSync(`${database}-wal`, `${aside}-wal`);
  rmSync(`${database}-shm`, { force: true });
  fsyncPath(dirname(database));
}
