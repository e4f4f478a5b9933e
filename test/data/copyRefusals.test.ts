/**
 * Bad input to `data copy` gets one clear line on stderr, exit code 1, and leaves the target as it
 * was: a missing source, a target that holds data, one on another schema version, a target that
 * changed since the snapshot `--since` names, and a full disk or a lost connection in the middle
 * of the copy. The command line runs as operators run it; the mid-copy failures run in-process,
 * where the test can fill the disk or cut the connection at a chosen row.
 */
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { copyData } from '../../src/server/data/copyData';
import { formatCopyReport } from '../../src/server/data/copyReport';
import * as endpoints from '../../src/server/data/openEndpoint';
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
const MAC_KEY = 'backup-mac-key-0123456789abcdefghijklmnop';
const OTHER_MAC_KEY = 'another-backup-mac-key-0123456789abcdefgh';
/** A trigger that takes back every redemption, so a single-use token verifies again and again. */
const REPLAY_TRIGGER = `CREATE TRIGGER "replay" AFTER INSERT ON "RedeemedToken" BEGIN DELETE FROM "RedeemedToken" WHERE rowid = NEW.rowid; END`;

/** Runs statements on a PostgreSQL database, each on its own; answers the last one's rows. */
async function sql(url: string, statements: string[]): Promise<Record<string, string>[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    let rows: Record<string, string>[] = [];
    for (const statement of statements) rows = (await client.query(statement)).rows;
    return rows;
  } finally {
    await client.end();
  }
}

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
  it('names a table the target did not store as given, and says not to switch to it', async () => {
    const source = await filledSource('sqlite');
    const target = await createTestDatabase('sqlite');
    // A target that changes what it is given. A trigger there is refused before the copy now (below),
    // so the fault is a driver's: the target's writes of Credential rows lose their signature counter.
    const real = endpoints.openEndpoint;
    const spy = jest.spyOn(endpoints, 'openEndpoint').mockImplementation(async (url, role, options) => {
      const endpoint = await real(url, role, options);
      if (role !== 'target') return endpoint;
      const insertRows = endpoint.insertRows.bind(endpoint);
      endpoint.insertRows = (table, rows) => {
        const counter = table.columns.findIndex((c) => c.name === 'signatureCounter');
        return insertRows(table, table.name === 'Credential' ? rows.map((row) => row.map((value, i) => (i === counter ? '0' : value))) : rows);
      };
      return endpoint;
    });
    try {
      const result = await copyData({ from: source.url, to: target.url });
      expect(result.equal).toBe(false);
      const report = formatCopyReport(result, 'passwordless-selfhost data copy', false);
      expect(report).toMatch(/^Credential\s+1\s+1\s+[0-9a-f]{16} in the source, [0-9a-f]{16} in the target {2}DIFFERENT$/m);
      expect(report).toMatch(/^App\s+1\s+1\s+[0-9a-f]{16} {2}equal$/m);
      expect(report).toContain('THE TARGET DIFFERS FROM THE SNAPSHOT in Credential: do not switch to it.');
      expect(report).not.toContain('--since');
    } finally {
      spy.mockRestore();
      await target.drop();
      await source.drop();
    }
  });
});

describe.each(providers())('data copy refuses what the migrations did not make, into %s, and leaves the target as it was', (provider) => {
  const databases: TestDatabase[] = [];
  let source: TestDatabase;
  let backupFile: string;
  beforeAll(async () => {
    source = await filledSource('sqlite');
    backupFile = join(dirname(sqliteFilename(source.url)), 'nightly.backup');
    expect((await runCli(['backup', backupFile], { DATABASE_URL: source.url, BACKUP_MAC_KEY: MAC_KEY })).code).toBe(0);
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
  /** A copy of the backup file, changed by `change`. */
  const doctoredBackup = (name: string, change: (db: Database.Database) => void) => {
    const path = join(dirname(backupFile), name);
    copyFileSync(backupFile, path);
    const db = new Database(path);
    change(db);
    db.close();
    return `file:${path}`;
  };

  it(
    'a target that carries a trigger, or an empty one that carries a view and a function: refused before a row is written',
    async () => {
      const target = await newTarget();
      if (provider === 'sqlite') {
        migrateSqlite(sqliteFilename(target.url));
        new Database(sqliteFilename(target.url)).exec(`CREATE TRIGGER "tamper" AFTER INSERT ON "Credential" BEGIN UPDATE "Credential" SET "signatureCounter" = 0 WHERE rowid = NEW.rowid; END`).close();
      } else {
        await migratePostgres(target.url);
        await sql(target.url, [
          `CREATE FUNCTION "tamper"() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW."signatureCounter" := 0; RETURN NEW; END $$`,
          `CREATE TRIGGER "tamper" BEFORE INSERT ON "Credential" FOR EACH ROW EXECUTE FUNCTION "tamper"()`,
        ]);
      }
      const before = await rawDump(target.url);
      const refused = await runCli(['data', 'copy', '--from', source.url, '--to', target.url]);
      expectRefusal(refused, /the target .* holds what this version's migrations do not make: .*an extra trigger "tamper" on "Credential".*; nothing was changed$/m);
      if (provider === 'postgresql') expect(refused.stderr).toContain('an extra function "tamper()"');
      expect(await rawDump(target.url)).toEqual(before);

      if (provider === 'postgresql') {
        // No tables, so "empty"; but what it holds would outlive the copy. Not even the schema stays.
        const primed = await newTarget();
        await sql(primed.url, [`CREATE VIEW "everything" AS SELECT 1 AS one`, `CREATE FUNCTION "pwl_helper"() RETURNS int LANGUAGE sql AS 'SELECT 1'`]);
        const primedRefusal = await runCli(['data', 'copy', '--from', source.url, '--to', primed.url]);
        expectRefusal(primedRefusal, /the target .* holds what this version's migrations do not make: an extra function "pwl_helper\(\)"; an extra view "everything"; nothing was changed$/m);
        expect(await rawDump(primed.url)).toEqual({ exists: true, tables: { everything: ['{"one":1}'] } });
      }
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'a source carrying a trigger (a database restored from a doctored backup, say)',
    async () => {
      const target = await newTarget();
      const before = await rawDump(target.url);
      const replaying = doctoredBackup('replaying.backup', (db) => db.exec(REPLAY_TRIGGER));
      expectRefusal(await runCli(['data', 'copy', '--from', replaying, '--to', target.url]), /the source file:.*replaying\.backup holds what this version's migrations do not make: an extra trigger "replay" on "RedeemedToken"; nothing was changed$/m);
      expect(await rawDump(target.url)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );

  it(
    "a backup file with one byte changed in a passkey's public key, or signed with another key; a sound one is copied, and the report says how it was checked",
    async () => {
      const target = await newTarget();
      const before = await rawDump(target.url);
      const tampered = doctoredBackup('one-byte.backup', (db) => {
        const { rowid, publicKey } = db.prepare('SELECT rowid, "publicKey" FROM "Credential" LIMIT 1').get() as { rowid: number; publicKey: string };
        const middle = Math.floor(publicKey.length / 2);
        db.prepare('UPDATE "Credential" SET "publicKey" = ? WHERE rowid = ?').run(`${publicKey.slice(0, middle)}${publicKey[middle] === 'A' ? 'B' : 'A'}${publicKey.slice(middle + 1)}`, rowid);
      });
      expectRefusal(
        await runCli(['data', 'copy', '--from', tampered, '--to', target.url]),
        /the source file:.*one-byte\.backup does not hold what its manifest recorded when the backup was made \(changed or damaged since\): the rows of table Credential differ from its recorded checksum; nothing was changed$/m,
      );
      expectRefusal(
        await runCli(['data', 'copy', '--from', `file:${backupFile}`, '--to', target.url], { BACKUP_MAC_KEY: OTHER_MAC_KEY }),
        /the source file:.*nightly\.backup is not signed with this BACKUP_MAC_KEY: it was signed with another key, or changed after it was made; nothing was changed$/m,
      );
      expect(await rawDump(target.url)).toEqual(before);

      const copied = await runCli(['data', 'copy', '--from', `file:${backupFile}`, '--to', target.url], { BACKUP_MAC_KEY: MAC_KEY });
      expect({ code: copied.code, stderr: copied.stderr }).toEqual({ code: 0, stderr: '' });
      expect(copied.stdout).toMatch(/^ {10}a backup file: all \d+ tables \([\d,]+ rows\) match the checksums recorded when the backup was made at \S+; its signature verified with BACKUP_MAC_KEY$/m);
      // The manifest is the backup's, not a table of the service: it is not copied.
      expect(Object.keys((await rawDump(target.url)).tables)).not.toContain('_passwordless_backup');
    },
    CLI_TIMEOUT_MS,
  );

});

describe('data copy refuses a PostgreSQL source that is not what the migrations made', () => {
  (process.env.TEST_DATABASE_URL ? it : it.skip)(
    'a PostgreSQL source whose function the migrations made was replaced',
    async () => {
      const source = await filledSource('postgresql');
      const target = await createTestDatabase('sqlite');
      try {
        // The registration statement, made to skip the check that a register token is used once.
        const [{ definition }] = await sql(source.url, [`SELECT pg_get_functiondef('"pwl_store_registration"'::regproc) AS definition`]);
        expect(definition).toContain('IF NOT FOUND THEN');
        await sql(source.url, [definition.replace('IF NOT FOUND THEN', 'IF FALSE THEN')]);
        expectRefusal(
          await runCli(['data', 'copy', '--from', source.url, '--to', target.url]),
          /the source postgres:.* holds what this version's migrations do not make: function "pwl_store_registration\(.*\)" defined otherwise than the migrations define it; nothing was changed$/m,
        );
        expect(existsSync(sqliteFilename(target.url))).toBe(false);
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
