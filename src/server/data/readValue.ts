import { canonicalValue, ValueError, type CanonicalValue } from './canonicalValue';
import type { TableSchema } from './catalog';
import { DataError } from './dataError';

/** A stored value of `table`'s column `index` in canonical form; a value that does not fit its column is a refusal naming both. */
export function readValue(table: TableSchema, index: number, raw: unknown): CanonicalValue {
  try {
    return canonicalValue(table.columns[index].kind, raw);
  } catch (error) {
    if (error instanceof ValueError) throw new DataError(`column ${table.name}.${table.columns[index].name} ${error.message}; nothing was written`);
    throw error;
  }
}
