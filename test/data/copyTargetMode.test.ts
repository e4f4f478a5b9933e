/**
 * A new SQLite file `data copy` writes holds key digests, token keys and passkeys: it is created
 * 0600, as the service creates its database and `backup` and `restore` their files, even from a
 * shell whose umask is 022 (it was 0644 there: readable by every user of the machine).
 */
import { spawn } from 'node:child_process';
import { statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { sqliteFilename } from '../../src/server/store';
import { migrateSqlite } from '../../src/server/store/migrate';
import { outputOf } from '../support/childProcess';
import { CLI, childEnv, ensureBuilt } from '../support/serviceProcess';
import { createTestDatabase } from '../support/testService';

beforeAll(() => ensureBuilt(), 180_000);

it('creates a new SQLite target 0600 under umask 022', async () => {
  const source = await createTestDatabase('sqlite');
  try {
    migrateSqlite(sqliteFilename(source.url));
    const target = join(dirname(sqliteFilename(source.url)), 'copy.db');
    const copied = await outputOf(
      spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, CLI, 'data', 'copy', '--from', source.url, '--to', `file:${target}`], { env: childEnv({ LOG_LEVEL: 'warn' }) }),
    );
    expect({ code: copied.code, stderr: copied.stderr }).toEqual({ code: 0, stderr: '' });
    expect((statSync(target).mode & 0o777).toString(8)).toBe('600');
  } finally {
    await source.drop();
  }
}, 60_000);
