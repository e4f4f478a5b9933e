/**
 * What a column holds, as both databases agree on it. Each provider declares the same Prisma field
 * its own way (a DateTime is `DATETIME` text on SQLite and `timestamp(3)` on PostgreSQL), so the
 * copy reads the declared type of each side and works with the kind.
 */
export type ColumnKind = 'text' | 'int' | 'bigint' | 'boolean' | 'datetime' | 'float' | 'decimal' | 'bytes' | 'json';

/** The affinity names Prisma's SQLite migrations declare, by kind. */
const SQLITE_KINDS: Record<string, ColumnKind> = {
  TEXT: 'text',
  INTEGER: 'int',
  INT: 'int',
  BIGINT: 'bigint',
  BOOLEAN: 'boolean',
  DATETIME: 'datetime',
  REAL: 'float',
  DOUBLE: 'float',
  FLOAT: 'float',
  DECIMAL: 'decimal',
  BLOB: 'bytes',
  JSON: 'json',
  JSONB: 'json',
};

/** PostgreSQL's `udt_name`s (information_schema.columns) of the types Prisma maps its scalars to. */
const POSTGRES_KINDS: Record<string, ColumnKind> = {
  text: 'text',
  varchar: 'text',
  bpchar: 'text',
  uuid: 'text',
  int2: 'int',
  int4: 'int',
  int8: 'bigint',
  bool: 'boolean',
  timestamp: 'datetime',
  timestamptz: 'datetime',
  float4: 'float',
  float8: 'float',
  numeric: 'decimal',
  bytea: 'bytes',
  json: 'json',
  jsonb: 'json',
};

/** The kind of an SQLite column from its declared type (`DECIMAL(65,30)` counts as `DECIMAL`); undefined when unknown. */
export function sqliteColumnKind(declared: string): ColumnKind | undefined {
  return SQLITE_KINDS[declared.trim().toUpperCase().replace(/\s*\(.*$/, '')];
}

/** The kind of a PostgreSQL column from its `udt_name`; undefined when unknown. */
export function postgresColumnKind(udtName: string): ColumnKind | undefined {
  return POSTGRES_KINDS[udtName];
}

/**
 * The kind both sides use for a column, or undefined when they disagree. Prisma may keep a Json
 * field as plain text on SQLite; compared as JSON, its values match PostgreSQL's jsonb.
 */
export function agreedKind(a: ColumnKind, b: ColumnKind): ColumnKind | undefined {
  if (a === b) return a;
  if ((a === 'json' && b === 'text') || (a === 'text' && b === 'json')) return 'json';
  return undefined;
}
