import type { CanonicalValue } from './canonicalValue';
import type { TableSchema } from './catalog';
import type { DataEndpoint, LocatedRow } from './dataEndpoint';
import { rowDigest, TableChecksum } from './tableChecksum';

export interface TableDiff {
  /** The target's rows as they were read. */
  target: TableChecksum;
  /** The source's rows as they were read. */
  source: TableChecksum;
  /** Rows only the source has. */
  inserts: CanonicalValue[][];
  /** Rows both have under one primary key, with other values in the source (located in the target). */
  updates: LocatedRow[];
  /** Where the rows only the target has sit in the target. */
  deletes: unknown[];
  inserted: number;
  updated: number;
  deleted: number;
}

export interface DiffOptions {
  batchSize: number;
  /** Keep the rows to write (false: count them only). */
  collect: boolean;
  onRows?: (rows: number) => void;
}

/**
 * Compares a table's rows in the source and the target by primary key and content: the target's
 * rows are held in memory as key -> digest, the source's streamed past them (docs/operations.md
 * gives the memory this takes). Each side is read from whatever snapshot or transaction its
 * endpoint has open.
 */
export async function diffTable(source: DataEndpoint, target: DataEndpoint, sourceTable: TableSchema, targetTable: TableSchema, options: DiffOptions): Promise<TableDiff> {
  const keyIndexes = sourceTable.primaryKey.map((name) => sourceTable.columns.findIndex((c) => c.name === name));
  const keyOf = (values: CanonicalValue[]) => JSON.stringify(keyIndexes.map((i) => values[i]));
  const digests = new Map<string, string>();
  const locators = new Map<string, unknown>();
  const diff: TableDiff = { target: new TableChecksum(), source: new TableChecksum(), inserts: [], updates: [], deletes: [], inserted: 0, updated: 0, deleted: 0 };
  for await (const batch of target.readRows(targetTable, options.batchSize)) {
    for (const row of batch) {
      const digest = rowDigest(row.values);
      diff.target.add(digest);
      const key = keyOf(row.values);
      digests.set(key, digest.toString('base64'));
      if (options.collect) locators.set(key, row.locator);
    }
  }
  for await (const batch of source.readRows(sourceTable, options.batchSize)) {
    for (const row of batch) {
      const digest = rowDigest(row.values);
      diff.source.add(digest);
      const key = keyOf(row.values);
      const existing = digests.get(key);
      if (existing === undefined) {
        diff.inserted++;
        if (options.collect) diff.inserts.push(row.values);
        continue;
      }
      if (existing !== digest.toString('base64')) {
        diff.updated++;
        if (options.collect) diff.updates.push({ values: row.values, locator: locators.get(key) });
      }
      digests.delete(key);
    }
    options.onRows?.(diff.source.count);
  }
  diff.deleted = digests.size;
  if (options.collect) diff.deletes = [...digests.keys()].map((key) => locators.get(key));
  return diff;
}
