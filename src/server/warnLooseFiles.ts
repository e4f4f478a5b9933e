import { resolve } from 'node:path';
import type { Logger } from 'pino';
import type { Config } from './core/config';
import { looseFiles } from './core/privateFiles';
import { sqliteFilename } from './store';

/**
 * Warns, naming each, about the secret-holding files that exist and that other users may read:
 * the SQLite database with its WAL and shared-memory files (token keys, key digests, users), and
 * MAIL_FILE (working sign-in links). The service creates them 0600; older ones keep their mode.
 */
export function warnLooseFiles(config: Pick<Config, 'databaseUrl' | 'smtpUrl' | 'mailFile'>, logger: Logger): void {
  const paths: string[] = [];
  if (config.databaseUrl.startsWith('file:')) {
    const database = sqliteFilename(config.databaseUrl);
    paths.push(database, `${database}-wal`, `${database}-shm`);
  }
  if (config.smtpUrl === undefined) paths.push(resolve(config.mailFile));
  for (const { path, mode } of looseFiles(paths)) {
    logger.warn({ path, mode }, `${path} may be read by other users (mode ${mode}): it holds secrets; chmod 600 it`);
  }
}
