import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';

// Files that hold secrets (the database, its WAL and shared memory, MAIL_FILE with its sign-in
// links) are created readable by the service's user only, whatever the umask: a mode given at
// creation can only lose bits to the umask, never gain them, so 0700 and 0600 are what they get.

/**
 * Creates `dir` (and missing parents) as 0700. An existing directory is left as it is. Returns the
 * first directory it created, or undefined when `dir` existed.
 */
export function ensurePrivateDirectory(dir: string): string | undefined {
  return mkdirSync(dir, { recursive: true, mode: 0o700 });
}

/** Creates `file` empty as 0600 if it does not exist yet (its directory 0700). An existing file is left as it is. */
export function ensurePrivateFile(file: string, dir: string): void {
  ensurePrivateDirectory(dir);
  closeSync(openSync(file, 'a', 0o600));
}

/** The mode a private file is created with; `appendFile` and `open` take it too. */
export const PRIVATE_FILE_MODE = 0o600;

export interface LooseFile {
  path: string;
  /** Octal, e.g. '644'. */
  mode: string;
}

/** Of `paths`, the existing files that other users may read or write (any group or other bit set). */
export function looseFiles(paths: readonly string[]): LooseFile[] {
  const loose: LooseFile[] = [];
  for (const path of paths) {
    let mode: number;
    try {
      mode = statSync(path).mode;
    } catch {
      continue; // not there (yet): it will be created private
    }
    if ((mode & 0o077) !== 0) loose.push({ path, mode: (mode & 0o777).toString(8) });
  }
  return loose;
}
