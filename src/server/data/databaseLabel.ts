import { sqliteFilename } from '../store/databaseUrl';

/**
 * How a DATABASE_URL is shown in output and messages: the SQLite file's full path, or the
 * PostgreSQL user, host, port and database, never a password (nor the query string, where
 * `password=` or key paths may sit).
 */
export function databaseLabel(url: string): string {
  if (url.startsWith('file:')) return `file:${sqliteFilename(url)}`;
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}`;
  } catch {
    return 'an unreadable database URL';
  }
}
