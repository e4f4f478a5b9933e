/**
 * Bad input to `data copy` gets one clear line on stderr, exit code 1, and leaves the target as it
 * was: a missing source, a target that holds data, one on another schema version, a target that
 * changed since the snapshot `--since` names, and a full disk or a lost connection in the middle
 * of the copy. The command line runs as operators run it; the mid-copy failures run in-process,
 * where the test can fill the disk or cut the connection at a chosen row.
 */
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { copyData } from '../../src/server/data/copyData';
import { DataError } from '../../src/server/data/dataError';
import { sqliteFilename } from '../../src/server/store';
import { loadMigrations, migratePostgres, migrateSqlite, type Provider } from '../../src/server/store/migrate';
import { populateApp } from '../support/appData';
import { rawDump } from '../support/databaseContent';
import { runCli, snapshotIdIn } from '../support/deployment';
import { ensureBuilt } from '../support/serviceProcess';
import { startTcpProxy } from '../support/tcpProxy';
import { createTestDatabase, providers, startTestService, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();
const CLI_TIMEOUT_MS = 60_000;

// The build (when a source is newer than dist/) takes a while on a loaded machine: not a test's time.
beforeAll(() => ensureBuilt(), 180_000);

/** Asserts a refusal: exit 1, nothing on stdout, one `error:` line matching `message`. */
function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect({ code: result.code, stdout: result.stdout, lines: result.stderr.trimEnd().split('\n').length }).toEqual({ code: 1, stdout: '', lines: 1 });
  expect(result.stderr).toMatch(/^error: /);
  expect(result.stderr).toMatch(message);
}

/** A source with a few rows in every table, and the service that wrote them closed. */
async function filledSource(provider: Provider): Promise<TestDatabase> {
  const svc = await startTestService(provider);
  await populateApp(svc, await svc.createApp());
  await svc.services.close();
  return { url: svc.config.databaseUrl, drop: () => svc.close().catch(() => undefined) };
}

/** Migrates a database with this version's migrations and one this version does not know. */
async function migrateAhead(provider: Provider, url: string): Promise<void> {
  const sql = 'CREATE TABLE "FromTheFuture" ("id" TEXT NOT NULL PRIMARY KEY);';
  const migrations = [...loadMigrations(provider), { name: '20991231000000_future', sql, checksum: createHash('sha256').update(sql).digest('hex') }];
  if (provider === 'sqlite') migrateSqlite(sqliteFilename(url), migrations);
  else await migratePostgres(url, migrations);
}

describe.each(providers())('data copy into %s refuses, and leaves the target as it was', (provider) => {
  const databases: TestDatabase[] = [];
  let source: TestDatabase;
  beforeAll(async () => {
    source = await filledSource('sqlite');
  }, CLI_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(databases.map((d) => d.drop()));
    await source.drop();
  }, CLI_TIMEOUT_MS);
  const newTarget = async () => {
    const db = await createTestDatabase(provider);
    databases.push(db);
    return db;
  };

  it(
    'a source that does not exist',
    async () => {
      const target = await newTarget();
      const before = await rawDump(target.url);
      const missing = `file:${sqliteFilename(source.url)}.missing`;
      expectRefusal(await runCli(['data', 'copy', '--from', missing, '--to', target.url]), /the source database file:\/.*\.missing does not exist/);
      expect(await rawDump(target.url)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'a target that already holds data',
    async () => {
      const target = await newTarget();
      expect((await runCli(['data', 'copy', '--from', source.url, '--to', target.url])).code).toBe(0);
      const before = await rawDump(target.url);
      expectRefusal(await runCli(['data', 'copy', '--from', source.url, '--to', target.url]), /already holds data \(Alias: 1 row, ApiKey: 4 rows, App: 1 row, .*\); copy into an empty database, or bring an earlier copy up to date with --since <snapshot id>; nothing was changed$/m);
      expect(await rawDump(target.url)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'a target on another schema version, or holding tables that are not the service’s',
    async () => {
      const ahead = await newTarget();
      await migrateAhead(provider, ahead.url);
      const before = await rawDump(ahead.url);
      expectRefusal(await runCli(['data', 'copy', '--from', source.url, '--to', ahead.url]), /is on another schema version: it has migration 20991231000000_future, which this version does not know/);
      expect(await rawDump(ahead.url)).toEqual(before);

      const foreign = await newTarget();
      if (provider === 'sqlite') new Database(sqliteFilename(foreign.url)).exec('CREATE TABLE "orders" ("id" INTEGER PRIMARY KEY)').close();
      else {
        const client = new Client({ connectionString: foreign.url });
        await client.connect();
        await client.query('CREATE TABLE "orders" ("id" INTEGER PRIMARY KEY)');
        await client.end();
      }
      const foreignBefore = await rawDump(foreign.url);
      expectRefusal(await runCli(['data', 'copy', '--from', source.url, '--to', foreign.url]), /holds tables that are not a passwordless-selfhost database \(orders\)/);
      expect(await rawDump(foreign.url)).toEqual(foreignBefore);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    '--since into a target that something wrote to after the copy, or that no copy filled',
    async () => {
      const target = await newTarget();
      const first = await runCli(['data', 'copy', '--from', source.url, '--to', target.url]);
      expect(first.code).toBe(0);
      // A service started on the target too early: it wrote a row the source does not have.
      const svc = await startTestService(provider, { DATABASE_URL: target.url });
      await svc.createApp();
      await svc.services.close();
      const before = await rawDump(target.url);
      expectRefusal(
        await runCli(['data', 'copy', '--from', source.url, '--to', target.url, '--since', snapshotIdIn(first.stdout)]),
        /no longer holds snapshot .*: something wrote to it since .* would delete those rows, so nothing was changed/,
      );
      expect(await rawDump(target.url)).toEqual(before);

      const empty = await newTarget();
      expectRefusal(await runCli(['data', 'copy', '--from', source.url, '--to', empty.url, '--since', snapshotIdIn(first.stdout)]), /--since needs the target an earlier copy filled, on this version's schema; .* has no schema/);
      expectRefusal(await runCli(['data', 'copy', '--from', source.url, '--to', target.url, '--since', '2026-11-25T09:45:11Z']), /--since takes the snapshot id that the previous copy printed/);
      expect(await rawDump(target.url)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );
});

describe('the check after the copy', () => {
  it(
    'names a table the target did not store as given, and exits 1',
    async () => {
      const source = await filledSource('sqlite');
      const target = await createTestDatabase('sqlite');
      try {
        // A target that changes what it is given (here a trigger; a faulty disk or driver alike).
        migrateSqlite(sqliteFilename(target.url));
        new Database(sqliteFilename(target.url)).exec(`CREATE TRIGGER "tamper" AFTER INSERT ON "Credential" BEGIN UPDATE "Credential" SET "signatureCounter" = 0 WHERE rowid = NEW.rowid; END`).close();
        const result = await runCli(['data', 'copy', '--from', source.url, '--to', target.url]);
        expect(result.code).toBe(1);
        expect(result.stdout).toMatch(/^Credential\s+1\s+1\s+[0-9a-f]{16} in the source, [0-9a-f]{16} in the target {2}DIFFERENT$/m);
        expect(result.stdout).toMatch(/^App\s+1\s+1\s+[0-9a-f]{16} {2}equal$/m);
        expect(result.stdout).toContain('THE TARGET DIFFERS FROM THE SNAPSHOT in Credential: do not switch to it.');
        expect(result.stdout).not.toContain('--since');
        expect(result.stderr).toBe('error: the target differs from the snapshot it was copied from (see the table above)\n');
      } finally {
        await target.drop();
        await source.drop();
      }
    },
    CLI_TIMEOUT_MS,
  );
});

describe('data copy refuses what cannot be a copy', () => {
  it(
    'the same database twice, a URL of another kind, a missing option; and never shows a password',
    async () => {
      const db = await createTestDatabase('sqlite');
      try {
        expectRefusal(await runCli(['data', 'copy', '--from', db.url, '--to', db.url.replace('test.db', './test.db')]), /the source and the target are the same database/);
        expectRefusal(await runCli(['data', 'copy', '--from', db.url, '--to', 'mysql://db/x']), /--to must be a DATABASE_URL: file:<path> for SQLite or postgres:\/\/… for PostgreSQL/);
        const usage = await runCli(['data', 'copy', '--from', db.url]);
        expect({ code: usage.code, first: usage.stderr.split('\n')[0] }).toEqual({ code: 1, first: 'data copy: missing --to' });
        // Nothing listens on port 1: the refusal names the server, never the password.
        const unreachable = await runCli(['data', 'copy', '--from', 'postgres://owner:hunter2-secret@127.0.0.1:1/pwl?password=also-secret', '--to', db.url]);
        expectRefusal(unreachable, /cannot reach PostgreSQL for the source postgres:\/\/owner@127\.0\.0\.1:1\/pwl \(ECONNREFUSED\)/);
        expect(unreachable.stderr).not.toMatch(/hunter2|also-secret/);
        if (process.env.TEST_DATABASE_URL) {
          const missing = new URL(process.env.TEST_DATABASE_URL);
          missing.pathname = '/pwl_no_such_database';
          expectRefusal(await runCli(['data', 'copy', '--from', missing.toString(), '--to', db.url]), /the source database postgres:\/\/.*\/pwl_no_such_database does not exist/);
        }
        expect(existsSync(sqliteFilename(db.url))).toBe(false);
      } finally {
        await db.drop();
      }
    },
    CLI_TIMEOUT_MS,
  );
});

describe('a failure in the middle of a copy leaves the target as it was', () => {
  let source: TestDatabase;
  beforeAll(async () => {
    source = await filledSource('sqlite');
    // Enough rows that the copy is well under way when the space runs out.
    const db = new Database(sqliteFilename(source.url));
    const tenant = (db.prepare('SELECT "id" FROM "App"').get() as { id: string }).id;
    const insert = db.prepare(`INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject") VALUES (?, ?, ?, 'Test', ?, 'Informational', 'test', 'test')`);
    db.transaction(() => {
      for (let i = 0; i < 3000; i++) insert.run(`event-${i}`, tenant, '2026-11-25T09:45:11.141+00:00', 'x'.repeat(200));
    })();
    db.close();
  });
  afterAll(() => source.drop());

  it('a full disk on an SQLite target: a new file is removed again, an existing one is unchanged', async () => {
    const fresh = await createTestDatabase('sqlite');
    const existing = await createTestDatabase('sqlite');
    try {
      // 100 pages of 4 KiB hold the schema and the small tables, not the 3000 events.
      const attempt = copyData({ from: source.url, to: fresh.url, maxTargetPages: 100 });
      await expect(attempt).rejects.toThrow(DataError);
      await expect(attempt).rejects.toThrow(/ran out of space while copying Event \(SQLITE_FULL: database or disk is full\); the copy was rolled back: the target is as it was/);
      expect(existsSync(sqliteFilename(fresh.url))).toBe(false);

      migrateSqlite(sqliteFilename(existing.url));
      const before = await rawDump(existing.url);
      await expect(copyData({ from: source.url, to: existing.url, maxTargetPages: 100 })).rejects.toThrow(/SQLITE_FULL/);
      expect(await rawDump(existing.url)).toEqual(before);
      // With room, the same copy goes through.
      expect((await copyData({ from: source.url, to: existing.url })).equal).toBe(true);
    } finally {
      await fresh.drop();
      await existing.drop();
    }
  });

  (process.env.TEST_DATABASE_URL ? it : it.skip)('the connection to a PostgreSQL target lost: its one transaction ends with it, so not even the schema stays', async () => {
    const target = await createTestDatabase('postgresql');
    const address = new URL(target.url);
    const proxy = await startTcpProxy(address.hostname, Number(address.port || 5432));
    try {
      const proxied = new URL(target.url);
      proxied.host = `127.0.0.1:${proxy.port}`;
      let cut = false;
      const attempt = copyData({
        from: source.url,
        to: proxied.toString(),
        batchSize: 100,
        onProgress: ({ table, rows }) => {
          if (!cut && table === 'Event' && rows >= 1000) {
            cut = true;
            void proxy.cut();
          }
        },
      });
      await expect(attempt).rejects.toThrow(/the connection to PostgreSQL was lost while copying Event .*PostgreSQL rolls back a transaction whose connection ends, so the target .* is as it was/);
      expect(cut).toBe(true);
      expect(await rawDump(target.url)).toEqual({ exists: true, tables: {} });
    } finally {
      await proxy.close();
      await target.drop();
    }
  });
});
