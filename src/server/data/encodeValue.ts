import type { CanonicalValue } from './canonicalValue';
import type { ColumnKind } from './columnKinds';

/**
 * A canonical value as better-sqlite3 binds it, in the encodings the service itself writes:
 * Prisma's SQLite adapter keeps a DateTime as ISO-8601 text with a `+00:00` offset (the hot
 * path's `sqliteTime` writes the same), a Boolean as 0/1, a BigInt as an integer.
 */
export function sqliteValue(kind: ColumnKind, value: CanonicalValue): string | number | bigint | Buffer | null {
  if (value === null) return null;
  switch (kind) {
    case 'int': {
      const n = Number(value);
      return Number.isSafeInteger(n) ? n : BigInt(value);
    }
    case 'bigint':
      return BigInt(value);
    case 'boolean':
      return value === 'true' ? 1 : 0;
    case 'datetime':
      return value.replace(/Z$/, '+00:00');
    case 'float':
      return Number(value);
    case 'bytes':
      return Buffer.from(value, 'base64');
    default:
      return value;
  }
}

/**
 * A canonical value as a pg parameter. Statements cast every parameter to its column's type
 * (`$1::timestamp`), so text is enough for all but bytes; an ISO time ending in `Z` keeps its UTC
 * wall-clock in a `timestamp` column, as the service's own writes do.
 */
export function postgresValue(kind: ColumnKind, value: CanonicalValue): string | Buffer | null {
  if (value === null) return null;
  return kind === 'bytes' ? Buffer.from(value, 'base64') : value;
}
