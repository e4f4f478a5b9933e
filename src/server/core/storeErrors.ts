// How the stores report a refused write: Prisma's codes, and the drivers' own for statements the
// hot path runs on them directly. Classified here so that any layer can tell them apart.

/**
 * A row refused because its key is taken: Prisma's code (the same on both providers), or the
 * drivers' own (PostgreSQL 23505, SQLite's extended codes for a primary key or a unique index).
 */
export function isUniqueViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'P2002' || code === '23505' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/** Prisma's "record to update or delete does not exist". */
export function isRecordNotFound(error: unknown): boolean {
  return typeof error === 'object' && error !== null && (error as { code?: string }).code === 'P2025';
}

/**
 * A row refused because the app it belongs to does not exist (any more): Prisma's code, or the
 * drivers' own for statements run on them directly (PostgreSQL 23503, SQLite's extended code).
 */
export function isForeignKeyViolation(error: unknown): boolean {
  if (typeof error !== 'object' || error === null) return false;
  const code = (error as { code?: unknown }).code;
  return code === 'P2003' || code === '23503' || code === 'SQLITE_CONSTRAINT_FOREIGNKEY';
}
