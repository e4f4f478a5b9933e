import { realpathSync } from 'node:fs';
import { providerOf, sqliteFilename } from '../store/databaseUrl';
import type { Provider } from '../store/migrate';
import type { DataEndpoint } from './dataEndpoint';
import { DataError } from './dataError';
import { databaseLabel } from './databaseLabel';
import { openPostgresEndpoint } from './postgresEndpoint';
import { openSqliteEndpoint, type SqliteEndpointOptions } from './sqliteEndpoint';

/** The provider a DATABASE_URL names, or a refusal naming the option it came from. */
export function providerOfOption(url: string | undefined, option: string): Provider {
  if (!url) throw new DataError(`${option} is missing: give a DATABASE_URL (file:<path> or postgres://…)`);
  try {
    return providerOf(url);
  } catch {
    throw new DataError(`${option} must be a DATABASE_URL: file:<path> for SQLite or postgres://… for PostgreSQL`);
  }
}

/** Where a URL's data lives: an SQLite file's real path, or PostgreSQL's host, port and database. */
function location(url: string): string {
  if (url.startsWith('file:')) {
    const file = sqliteFilename(url);
    try {
      return realpathSync(file);
    } catch {
      return file;
    }
  }
  const parsed = new URL(url);
  return `${parsed.hostname.toLowerCase()}:${parsed.port || '5432'}${decodeURIComponent(parsed.pathname)}`;
}

/** Refuses a copy from a database onto itself. */
export function assertDistinct(from: string, to: string): void {
  if (providerOf(from) === providerOf(to) && location(from) === location(to)) {
    throw new DataError(`the source and the target are the same database (${databaseLabel(from)})`);
  }
}

export async function openEndpoint(url: string, role: 'source' | 'target', options: SqliteEndpointOptions = {}): Promise<DataEndpoint> {
  return providerOf(url) === 'sqlite' ? openSqliteEndpoint(url, role, options) : openPostgresEndpoint(url, role);
}
