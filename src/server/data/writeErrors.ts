import type { DataEndpoint } from './dataEndpoint';
import { DataError } from './dataError';

const CONNECTION_LOST = new Set(['ECONNRESET', 'EPIPE', 'ETIMEDOUT', '57P01', '57P02', '57P03', '08006', '08003']);

/**
 * The operator's account of a copy that failed while its transaction was open. The transaction
 * was rolled back (or, for PostgreSQL, ended with its connection, which rolls it back), so nothing
 * of the copy is in the target; a new SQLite file is removed again.
 */
export function explainWriteError(error: unknown, target: DataEndpoint, table: string): DataError {
  if (error instanceof DataError) return error;
  const { code, message = String(error) } = error as { code?: string; message?: string };
  const where = table ? ` while copying ${table}` : '';
  const untouched = target.provider === 'sqlite' ? 'the copy was rolled back: the target is as it was' : 'its one transaction was rolled back: the target is as it was';
  if (code === 'SQLITE_FULL') return new DataError(`the target ${target.label} ran out of space${where} (SQLITE_FULL: database or disk is full); ${untouched}`);
  if (code === '53100') return new DataError(`PostgreSQL ran out of disk space for the target ${target.label}${where} (${message}); ${untouched}`);
  if (code?.startsWith('SQLITE_BUSY')) return new DataError(`the target ${target.label} is in use by another process (a service running on it?); ${untouched}`);
  if ((code && CONNECTION_LOST.has(code)) || /Connection terminated|connection .*(closed|lost|ended)|not queryable/i.test(message)) {
    return new DataError(
      `the connection to ${target.provider === 'postgresql' ? 'PostgreSQL' : 'the database'} was lost${where} (${code ?? message}); PostgreSQL rolls back a transaction whose connection ends, so the target ${target.label} is as it was`,
    );
  }
  return new DataError(`copying into the target ${target.label} failed${where}: ${message}${code ? ` (${code})` : ''}; ${untouched}`);
}
