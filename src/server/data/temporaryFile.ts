import { randomBytes } from 'node:crypto';
import { closeSync, openSync, rmSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';

/**
 * A new empty file beside `path` that only the owner may read and write (mode 0600: it will hold
 * keys and passkeys), and a way to remove it with SQLite's side files.
 */
export function temporaryFileBeside(path: string): { path: string; remove(): void } {
  const temporary = join(dirname(path), `.${basename(path)}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
  closeSync(openSync(temporary, 'wx', 0o600));
  return {
    path: temporary,
    remove: () => {
      for (const suffix of ['', '-journal', '-wal', '-shm']) rmSync(`${temporary}${suffix}`, { force: true });
    },
  };
}
