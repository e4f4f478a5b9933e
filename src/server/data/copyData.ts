import { loadMigrations, type Migration, type Provider } from '../store/migrate';
import type { ManifestCheck } from './backupManifest';
import { pairCatalogs, type PairedCatalog, type TableSchema } from './catalog';
import type { DataEndpoint } from './dataEndpoint';
import { DataError } from './dataError';
import { diffTable, type TableDiff } from './diffTable';
import { assertDistinct, openEndpoint, providerOfOption } from './openEndpoint';
import { describeVersion, schemaVersion, type SchemaVersion } from './schemaVersion';
import { listDifferences, schemaDifferences } from './schemaDifferences';
import { formatSnapshotId, parseSnapshotId } from './snapshotId';
import { databaseDigest, rowDigest, TableChecksum } from './tableChecksum';
import { explainWriteError } from './writeErrors';

export interface CopyOptions {
  /** DATABASE_URL of the source. */
  from: string;
  /** DATABASE_URL of the target. */
  to: string;
  /** The snapshot id an earlier copy into `to` printed: bring that copy up to date. */
  since?: string;
  onProgress?: (progress: CopyProgress) => void;
  /** The migrations both databases must be on, per provider (default: this version's). */
  migrations?: Partial<Record<Provider, Migration[]>>;
  /** SQLite targets only: the most pages the target may grow to (see `SqliteEndpointOptions`). */
  maxTargetPages?: number;
  /** Rows per read and per write (default 1000). */
  batchSize?: number;
  /** BACKUP_MAC_KEY: a source that is a backup file must be signed with it. */
  backupMacKey?: string;
}

export interface CopyProgress {
  /** `copy`: reading the snapshot and writing the target; `check`: reading both back. */
  phase: 'copy' | 'check';
  table: string;
  rows: number;
  /** The table's rows in the snapshot. */
  total: number;
}

export interface RowChanges {
  inserted: number;
  updated: number;
  deleted: number;
}

export interface TableResult {
  table: string;
  /** In the snapshot this run read. */
  sourceRows: number;
  sourceChecksum: string;
  /** In the target, read back after the commit. */
  targetRows: number;
  targetChecksum: string;
  /** What this run wrote to the target. */
  written: RowChanges;
  /** How the source differs from the snapshot now: rows written after it. */
  newer: RowChanges;
}

export interface CopyResult {
  mode: 'copy' | 'since';
  source: string;
  target: string;
  /** The schema both are on (the last migration's name). */
  schema: string;
  /** Migrations this run applied to the target, in the copy's transaction. */
  applied: string[];
  snapshotTime: Date;
  /** `--since` takes it back. */
  snapshotId: string;
  tables: TableResult[];
  /** Every table's count and checksum are equal on both sides. */
  equal: boolean;
  /** The source is a file `backup` wrote: how its manifest was checked (before anything was written). */
  backup?: ManifestCheck;
  copyMs: number;
  checkMs: number;
}

const NO_CHANGES: RowChanges = { inserted: 0, updated: 0, deleted: 0 };

interface PassResult {
  snapshotTime: Date;
  backup: ManifestCheck | undefined;
  source: Map<string, TableChecksum>;
  written: Map<string, RowChanges>;
  applied: string[];
  paired: PairedCatalog;
}

/**
 * `data copy`: every table of the source, read in one consistent snapshot, written to the target
 * in one transaction (its schema included), then both read back and compared table by table.
 *
 * Without `since` the target must be empty (or hold no tables at all); with it, the target must
 * still hold exactly the snapshot `since` names, and the run writes only the difference: rows
 * inserted, changed or deleted in the source since. Either way nothing is written unless the
 * whole copy commits, and the result says how the source has moved on since this run's snapshot.
 */
export async function copyData(options: CopyOptions): Promise<CopyResult> {
  const since = options.since === undefined ? undefined : parseSnapshotId(options.since);
  const sourceProvider = providerOfOption(options.from, '--from');
  const targetProvider = providerOfOption(options.to, '--to');
  assertDistinct(options.from, options.to);
  const migrations = {
    sqlite: options.migrations?.sqlite ?? loadMigrations('sqlite'),
    postgresql: options.migrations?.postgresql ?? loadMigrations('postgresql'),
  };
  const batchSize = options.batchSize ?? 1000;
  const source = await openEndpoint(options.from, 'source');
  try {
    const schema = await currentSchemaOf(source, migrations[sourceProvider]);
    await assertMigratedSchema(source, `the source ${source.label}`, migrations[sourceProvider]);
    const sourceCatalog = await source.catalog();
    const target = await openEndpoint(options.to, 'target', { maxPages: options.maxTargetPages });
    let committed = false;
    try {
      const targetVersion = schemaVersion(await target.ledger(), migrations[targetProvider]);
      const targetCatalog = await target.catalog();
      const started = Date.now();
      let pass: PassResult;
      if (since) {
        if (targetVersion.state !== 'current') {
          throw new DataError(`--since needs the target an earlier copy filled, on this version's schema; ${target.label} has ${describeVersion(targetVersion)}; nothing was changed`);
        }
        const paired = pairCatalogs(sourceCatalog, targetCatalog, 'nothing was changed');
        pass = await catchUp(source, target, paired, since.digest, options.since!, { batchSize, onProgress: options.onProgress, backupMacKey: options.backupMacKey, migrations: migrations[targetProvider] });
      } else {
        const pending = await migrationsForEmptyTarget(target, targetVersion, targetCatalog, migrations[targetProvider]);
        pass = await copyAll(source, target, sourceCatalog, targetCatalog, pending, { batchSize, onProgress: options.onProgress, backupMacKey: options.backupMacKey, migrations: migrations[targetProvider] });
      }
      committed = true;
      const copyMs = Date.now() - started;
      const checked = Date.now();
      const snapshotId = formatSnapshotId(pass.snapshotTime, databaseDigest([...pass.source].map(([table, sum]) => ({ table, count: sum.count, checksum: sum.hex() }))));
      const check = await checkCopy(source, target, pass.paired, pass.source, batchSize, options.onProgress).catch((error: unknown) => {
        throw new DataError(`the copy was committed, but reading it back failed (${(error as Error).message}); check it again with --since ${snapshotId}, which writes only what differs`);
      });
      const tables = pass.paired.source.map((table): TableResult => {
        const expected = pass.source.get(table.name)!;
        const found = check.get(table.name)!;
        return {
          table: table.name,
          sourceRows: expected.count,
          sourceChecksum: expected.hex(),
          targetRows: found.target.count,
          targetChecksum: found.target.hex(),
          written: pass.written.get(table.name) ?? NO_CHANGES,
          newer: { inserted: found.inserted, updated: found.updated, deleted: found.deleted },
        };
      });
      return {
        mode: since ? 'since' : 'copy',
        source: source.label,
        target: target.label,
        schema,
        applied: pass.applied,
        snapshotTime: pass.snapshotTime,
        snapshotId,
        tables,
        equal: tables.every((t) => t.sourceRows === t.targetRows && t.sourceChecksum === t.targetChecksum),
        backup: pass.backup,
        copyMs,
        checkMs: Date.now() - checked,
      };
    } finally {
      await target.close({ discard: !committed });
    }
  } finally {
    await source.close();
  }
}

const names = (tables: TableSchema[]) => tables.map((t) => t.name).join(', ');

/** What one pass needs besides the two databases. */
interface PassOptions {
  batchSize: number;
  onProgress: CopyOptions['onProgress'];
  backupMacKey: string | undefined;
  /** The target's migrations: its schema is compared with what they make. */
  migrations: Migration[];
}

/**
 * Refuses a database whose schema is not exactly what `migrations` make from nothing: an extra
 * trigger, view, index, function or table (a restored backdoor: a trigger that puts a redeemed
 * token back), a definition changed, an object missing.
 */
async function assertMigratedSchema(endpoint: DataEndpoint, what: string, migrations: Migration[]): Promise<void> {
  const differences = schemaDifferences(await endpoint.schema(), await endpoint.migratedSchema(migrations));
  if (differences.length > 0) {
    throw new DataError(`${what} holds what this version's migrations do not make: ${listDifferences(differences)}; nothing was changed`);
  }
}

/** The source's schema (its last migration), which must be exactly this version's. */
async function currentSchemaOf(source: DataEndpoint, migrations: Migration[]): Promise<string> {
  const version = schemaVersion(await source.ledger(), migrations);
  if (version.state === 'none') throw new DataError(`the source ${source.label} is not a passwordless-selfhost database (it has no migration ledger)`);
  if (version.state === 'foreign') throw new DataError(`the source ${source.label} is on a schema this version cannot read: ${version.reason}`);
  if (version.state === 'behind') {
    throw new DataError(`the source ${source.label} is on an older ${describeVersion(version)}: run this version's \`migrate\` (or start its service) on it once, then copy`);
  }
  return version.latest;
}

/**
 * What a first copy may write to: a database with no tables, or one the service's migrations
 * made (this version's, or an older one's) that holds no rows. Returns the migrations the copy's
 * transaction must apply first.
 */
async function migrationsForEmptyTarget(target: DataEndpoint, version: SchemaVersion, catalog: TableSchema[], migrations: Migration[]): Promise<Migration[]> {
  if (version.state === 'foreign') throw new DataError(`the target ${target.label} is on another schema version: ${version.reason}; nothing was changed`);
  if (version.state === 'none' && catalog.length > 0) {
    throw new DataError(`the target ${target.label} holds tables that are not a passwordless-selfhost database (${names(catalog)}); copy into an empty database; nothing was changed`);
  }
  await assertEmpty(target, catalog);
  return version.state === 'current' ? [] : version.state === 'behind' ? version.pending : migrations;
}

async function assertEmpty(target: DataEndpoint, tables: TableSchema[]): Promise<void> {
  const filled: string[] = [];
  for (const table of tables) {
    const rows = await target.countRows(table.name);
    if (rows > 0) filled.push(`${table.name}: ${rows} row${rows === 1 ? '' : 's'}`);
  }
  if (filled.length > 0) {
    throw new DataError(
      `the target ${target.label} already holds data (${filled.slice(0, 4).join(', ')}${filled.length > 4 ? ', …' : ''}); copy into an empty database, or bring an earlier copy up to date with --since <snapshot id>; nothing was changed`,
    );
  }
}

/** Runs `write` in the target's one transaction: committed whole, or rolled back with the reason explained. */
async function inWriteTransaction<T>(target: DataEndpoint, tables: string[], write: (progress: { table: string }) => Promise<T>): Promise<T> {
  const progress = { table: '' };
  await target.beginWrite(tables);
  try {
    const result = await write(progress);
    await target.commitWrite();
    return result;
  } catch (error) {
    await target.abortWrite();
    throw explainWriteError(error, target, progress.table);
  }
}

/** The first copy: the snapshot streamed into an empty target, its schema created in the same transaction. */
async function copyAll(
  source: DataEndpoint,
  target: DataEndpoint,
  sourceCatalog: TableSchema[],
  targetCatalog: TableSchema[],
  pending: Migration[],
  { batchSize, onProgress, backupMacKey, migrations }: PassOptions,
): Promise<PassResult> {
  await source.beginSnapshot();
  const snapshotTime = new Date();
  try {
    // A backup file is checked whole against its manifest before anything is written.
    const backup = await source.checkBackupManifest(backupMacKey);
    const totals = new Map<string, number>();
    for (const table of sourceCatalog) totals.set(table.name, await source.countRows(table.name));
    return await inWriteTransaction(target, targetCatalog.map((t) => t.name), async (progress) => {
      const applied = await target.applyMigrations(pending);
      // What the target held before the copy stays: it must be only what the migrations make.
      await assertMigratedSchema(target, `the target ${target.label}`, migrations);
      const paired = pairCatalogs(sourceCatalog, await target.catalog(), 'nothing was changed');
      // Another writer could have filled an empty table between the check and the lock.
      await assertEmpty(target, paired.target);
      const sums = new Map<string, TableChecksum>();
      const written = new Map<string, RowChanges>();
      for (const [i, table] of paired.source.entries()) {
        progress.table = table.name;
        const sum = new TableChecksum();
        const total = totals.get(table.name) ?? 0;
        onProgress?.({ phase: 'copy', table: table.name, rows: 0, total });
        for await (const batch of source.readRows(table, batchSize)) {
          for (const row of batch) sum.add(rowDigest(row.values));
          await target.insertRows(paired.target[i], batch.map((row) => row.values));
          onProgress?.({ phase: 'copy', table: table.name, rows: sum.count, total });
        }
        sums.set(table.name, sum);
        written.set(table.name, { inserted: sum.count, updated: 0, deleted: 0 });
      }
      return { snapshotTime, backup, source: sums, written, applied, paired };
    });
  } finally {
    await source.endSnapshot();
  }
}

/**
 * A later pass: a new snapshot compared with the target row by row, and only the difference
 * written. The target must still be exactly the snapshot `sinceId` names; otherwise something else
 * wrote to it, and deleting what the source does not have would delete those rows.
 */
async function catchUp(
  source: DataEndpoint,
  target: DataEndpoint,
  paired: PairedCatalog,
  digest: string,
  sinceId: string,
  { batchSize, onProgress, backupMacKey, migrations }: PassOptions,
): Promise<PassResult> {
  await source.beginSnapshot();
  const snapshotTime = new Date();
  try {
    const backup = await source.checkBackupManifest(backupMacKey);
    return await inWriteTransaction(target, paired.target.map((t) => t.name), async (progress) => {
      await assertMigratedSchema(target, `the target ${target.label}`, migrations);
      const diffs: TableDiff[] = [];
      for (const [i, table] of paired.source.entries()) {
        progress.table = table.name;
        const total = await source.countRows(table.name);
        diffs.push(await diffTable(source, target, table, paired.target[i], { batchSize, collect: true, onRows: (rows) => onProgress?.({ phase: 'copy', table: table.name, rows, total }) }));
      }
      const before = databaseDigest(diffs.map((d, i) => ({ table: paired.target[i].name, count: d.target.count, checksum: d.target.hex() })));
      if (!before.startsWith(digest)) {
        throw new DataError(
          `the target ${target.label} no longer holds snapshot ${sinceId}: something wrote to it since (a service already running on it?). Bringing it up to date would delete those rows, so nothing was changed; start again with an empty target`,
        );
      }
      // Children's rows go before their parents', and parents' new rows come before their children's.
      for (let i = diffs.length - 1; i >= 0; i--) {
        progress.table = paired.target[i].name;
        await target.deleteRows(paired.target[i], diffs[i].deletes);
      }
      for (const [i, table] of paired.target.entries()) {
        progress.table = table.name;
        await target.updateRows(table, diffs[i].updates);
        for (let start = 0; start < diffs[i].inserts.length; start += batchSize) await target.insertRows(table, diffs[i].inserts.slice(start, start + batchSize));
      }
      return {
        snapshotTime,
        backup,
        source: new Map(diffs.map((d, i) => [paired.source[i].name, d.source])),
        written: new Map(diffs.map((d, i) => [paired.source[i].name, { inserted: d.inserted, updated: d.updated, deleted: d.deleted }])),
        applied: [],
        paired,
      };
    });
  } finally {
    await source.endSnapshot();
  }
}

/**
 * Reads the committed target back and compares it with the source as it is now, in a snapshot of
 * each: the target's counts and checksums (for comparison with the copy's snapshot), and how many
 * rows the source has gained, changed or lost since that snapshot.
 */
async function checkCopy(
  source: DataEndpoint,
  target: DataEndpoint,
  paired: PairedCatalog,
  expected: Map<string, TableChecksum>,
  batchSize: number,
  onProgress: CopyOptions['onProgress'],
): Promise<Map<string, TableDiff>> {
  const results = new Map<string, TableDiff>();
  await target.beginSnapshot();
  try {
    await source.beginSnapshot();
    try {
      for (const [i, table] of paired.source.entries()) {
        const total = expected.get(table.name)?.count ?? 0;
        results.set(table.name, await diffTable(source, target, table, paired.target[i], { batchSize, collect: false, onRows: (rows) => onProgress?.({ phase: 'check', table: table.name, rows, total }) }));
      }
    } finally {
      await source.endSnapshot();
    }
  } finally {
    await target.endSnapshot();
  }
  return results;
}
