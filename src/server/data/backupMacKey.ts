import { ConfigError } from '../core/config';

/** At least 128 bits: 32 characters of `generate-key backup-mac`'s alphabet carry 192. */
export const MIN_BACKUP_MAC_KEY_LENGTH = 32;

/**
 * BACKUP_MAC_KEY: the secret `backup` signs its manifest with and `restore` (and `data copy` from a
 * backup file) checks it with; undefined when unset or empty. Only those commands read it, so it
 * is read here rather than with the service's settings. A short key is a ConfigError naming the
 * variable, never the value.
 */
export function backupMacKeyFrom(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const value = env.BACKUP_MAC_KEY;
  if (value === undefined || value === '') return undefined;
  if (value.length < MIN_BACKUP_MAC_KEY_LENGTH) {
    throw new ConfigError(`Invalid configuration: BACKUP_MAC_KEY must be at least ${MIN_BACKUP_MAC_KEY_LENGTH} characters long (npm run cli -- generate-key backup-mac prints one)`);
  }
  return value;
}
