import type { Db } from './index';
import type { Provider } from './migrate';

/**
 * Inside an interactive transaction: holds the app's row until the transaction ends, so that a
 * check of what the app has (say, how many webhook endpoints) and the write it allows happen one
 * app-wide transaction at a time. On PostgreSQL (read committed) two transactions would otherwise
 * both count, both find room, and both insert; the count after the lock is a fresh snapshot that
 * sees what the previous holder committed. `FOR NO KEY UPDATE`: the lock transactions inserting
 * rows that reference the app take (`FOR KEY SHARE`, from the foreign keys) does not wait for it.
 * SQLite needs nothing: the service's Prisma connection runs one transaction at a time, and another
 * process's write between this one's read and write fails this one's write rather than passing.
 */
export async function lockAppRow(tx: Pick<Db, '$queryRawUnsafe'>, provider: Provider, appId: string): Promise<void> {
  if (provider !== 'postgresql') return;
  await tx.$queryRawUnsafe('SELECT "id" FROM "App" WHERE "id" = $1 FOR NO KEY UPDATE', appId);
}
