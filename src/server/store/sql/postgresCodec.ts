import { types } from 'pg';
import type { SqlCodec } from './codec';

/**
 * Prisma stores DateTime as `timestamp(3)` holding UTC. An ISO string with `Z` read as a
 * `timestamp` keeps its UTC wall-clock (PostgreSQL ignores the zone for that type), whatever the
 * process's time zone; a JS Date would be sent in local time.
 */
const time = (ms: number): string => new Date(ms).toISOString();

/** `timestamp` (without time zone) is read back as its text (see `postgresTypeParsers`) and taken as UTC. */
const timeOf = (value: unknown): number => (value instanceof Date ? value.getTime() : Date.parse(`${String(value).replace(' ', 'T')}Z`));

/** PostgreSQL's encoding: `timestamp(3)` times as UTC text, native booleans. */
export const postgresCodec: SqlCodec = {
  time,
  bool: (value) => value,
  timeOf,
  boolOf: (value) => value === true,
};

const TIMESTAMP_OID = 1114;
/** The driver's type parsers: `timestamp` as its text, which pg would otherwise take as local time. */
export const postgresTypeParsers = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') => (oid === TIMESTAMP_OID ? (text: string) => text : types.getTypeParser(oid, format))) as typeof types.getTypeParser,
};
