import { closeSync, fsyncSync, openSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';

/** Flushes a file (or a directory's entries) to the disk. */
export function fsyncPath(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/**
 * Puts a finished temporary file in place: its content flushed, then renamed over `path` in one
 * step, then the directory flushed, so that after a crash `path` is either the old file or the
 * whole new one.
 */
export function replaceDurably(temporary: string, path: string): void {
  fsyncPath(temporary);
  renameSync(temporary, path);
  fsyncPath(dirname(path));
}
