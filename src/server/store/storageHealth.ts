import { constants, statSync } from 'node:fs';
import { access, stat } from 'node:fs/promises';
import type { Store } from '.';
import { sqliteFilename } from './databaseUrl';
import { loadMigrations } from './migrate';

interface FileIdentity {
  dev: number;
  ino: number;
}

const failure = (name: string, message: string) => Object.assign(new Error(message), { name });

/**
 * Whether the database is really there. For SQLite an open handle keeps answering after the file
 * or its directory was deleted or moved, so the path itself is checked too: it must still name the
 * file the service opened (same device and inode) and be readable and writable. Once the file is
 * back where it was, the check passes again without a restart.
 */
export class StorageHealth {
  private readonly filename: string | undefined;
  private identity: FileIdentity | undefined;
  /** The migrations this build ships, read once. */
  private readonly expectedMigrations: string[];

  constructor(
    private readonly store: Store,
    databaseUrl: string,
  ) {
    this.filename = store.provider === 'sqlite' ? sqliteFilename(databaseUrl) : undefined;
    this.expectedMigrations = loadMigrations(store.provider).map((m) => m.name);
    // The service migrates before it builds its services, so the file normally exists by now;
    // if not, the first check that finds it records it.
    try {
      if (this.filename) {
        const { dev, ino } = statSync(this.filename);
        this.identity = { dev, ino };
      }
    } catch {
      this.identity = undefined;
    }
  }

  async check(): Promise<void> {
    if (this.filename) {
      const { dev, ino } = await stat(this.filename).catch(() => {
        throw failure('DatabaseFileMissing', 'the database file or its directory is gone');
      });
      if (!this.identity) this.identity = { dev, ino };
      else if (this.identity.dev !== dev || this.identity.ino !== ino) throw failure('DatabaseFileReplaced', 'another file is at the database path');
      await access(this.filename, constants.R_OK | constants.W_OK).catch(() => {
        throw failure('DatabaseFileInaccessible', 'the database file cannot be read and written');
      });
    }
    await this.store.ping();
  }

  /** How many migrations are applied; throws `PendingMigrations` when one this build ships is not. */
  async migrations(): Promise<number> {
    const applied = await this.store.appliedMigrations();
    if (this.expectedMigrations.some((name) => !applied.includes(name))) throw failure('PendingMigrations', 'schema out of date');
    return applied.length;
  }
}
