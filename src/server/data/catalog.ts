import { agreedKind, type ColumnKind } from './columnKinds';
import { DataError } from './dataError';
import { parentsFirst } from './tableOrder';

export interface ColumnSchema {
  name: string;
  kind: ColumnKind;
  /** The column's type as its own database names it (PostgreSQL statements cast to it). */
  sqlType: string;
}

/**
 * A table as read from a migrated database's own catalog (SQLite's pragmas, PostgreSQL's
 * information_schema), so a table a later migration adds is copied with no change here.
 * Columns are sorted by name: SQLite's column order depends on how a table was redefined.
 */
export interface TableSchema {
  name: string;
  columns: ColumnSchema[];
  primaryKey: string[];
  /** Tables this one's foreign keys point to. */
  parents: string[];
}

/** Both sides of a copy, table by table, with the kinds they agree on, parents first. */
export interface PairedCatalog {
  source: TableSchema[];
  target: TableSchema[];
}

/**
 * Checks that two catalogs hold the same tables with the same columns, kinds and primary keys,
 * and returns them paired. Any difference is a refusal naming the first few.
 */
export function pairCatalogs(source: TableSchema[], target: TableSchema[], what: string): PairedCatalog {
  const problems: string[] = [];
  const targets = new Map(target.map((t) => [t.name, t]));
  for (const t of target) if (!source.some((s) => s.name === t.name)) problems.push(`table ${t.name} is only in the target`);
  const pairs: PairedCatalog = { source: [], target: [] };
  for (const s of parentsFirst(source)) {
    const t = targets.get(s.name);
    if (!t) {
      problems.push(`table ${s.name} is only in the source`);
      continue;
    }
    if (s.primaryKey.length === 0) problems.push(`table ${s.name} has no primary key`);
    else if (s.primaryKey.join(',') !== t.primaryKey.join(',')) problems.push(`table ${s.name} has primary key (${s.primaryKey.join(', ')}) in the source and (${t.primaryKey.join(', ')}) in the target`);
    const sourceColumns = s.columns.map((c) => c.name).join(',');
    const targetColumns = t.columns.map((c) => c.name).join(',');
    if (sourceColumns !== targetColumns) {
      problems.push(`table ${s.name} has columns (${sourceColumns}) in the source and (${targetColumns}) in the target`);
      continue;
    }
    const kinds = s.columns.map((c, i) => agreedKind(c.kind, t.columns[i].kind));
    s.columns.forEach((c, i) => {
      if (!kinds[i]) problems.push(`column ${s.name}.${c.name} is ${c.kind} in the source and ${t.columns[i].kind} in the target`);
    });
    pairs.source.push({ ...s, columns: s.columns.map((c, i) => ({ ...c, kind: kinds[i] ?? c.kind })) });
    pairs.target.push({ ...t, columns: t.columns.map((c, i) => ({ ...c, kind: kinds[i] ?? c.kind })) });
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, 5).join('; ') + (problems.length > 5 ? `; and ${problems.length - 5} more` : '');
    throw new DataError(`${what}: the two schemas differ: ${shown}`);
  }
  return pairs;
}
