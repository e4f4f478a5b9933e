import { resolve } from 'node:path';
import type { Provider } from './migrate';

/** The provider a DATABASE_URL names. Kept apart from the store so that reading a URL loads no Prisma client. */
export function providerOf(databaseUrl: string): Provider {
  if (databaseUrl.startsWith('file:')) return 'sqlite';
  if (/^postgres(ql)?:\/\//.test(databaseUrl)) return 'postgresql';
  throw new Error('DATABASE_URL must be file:<path> or a postgres:// URL');
}

/** The absolute path of the SQLite file a `file:` DATABASE_URL names. */
export function sqliteFilename(databaseUrl: string): string {
  return resolve(databaseUrl.slice('file:'.length));
}
