/**
 * `backup <file>` and `restore <file>` on SQLite, as operators run them: what a backup is (a
 * sound, private, complete file), what a restore does (the backup in place, the replaced database
 * kept), and the refusals, each with one clear line, exit code 1 and nothing changed.
 */
import { readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { backupDatabase } from '../../src/server/data/backupDatabase';
import { sqliteFilename } from '../../src/server/store';
import { loadMigrations, migrateSqlite } from '../../src/server/store/migrate';
import { populateApp } from '../support/appData';
import { contentThroughService, rawDump } from '../support/databaseContent';
import { runCli } from '../support/deployment';
import { ensureBuilt, startServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, startTestService, type TestDatabase, type TestService } from '../support/testService';

const CLI_TIMEOUT_MS = 60_000;

// The build (when a source is newer than dist/) takes a while on a loaded machine: not a test's time.
beforeAll(() => ensureBuilt(), 180_000);

function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect({ code: result.code, stdout: result.stdout, lines: result.stderr.trimEnd().split('\n').length }).toEqual({ code: 1, stdout: '', lines: 1 });
  expect(result.stderr).toMatch(/^error: /);
  expect(result.stderr).toMatch(message);
}

/** The files of a directory: a refusal leaves no temporary file behind. */
const filesIn = (dir: string) => readdirSync(dir).sort();

describe('backup and restore of the SQLite database', () => {
  let svc: TestService;
  let dir: string;
  let backupFile: string;
  beforeAll(async () => {
    svc = await startTestService('sqlite');
    for (let i = 0; i < 2; i++) await populateApp(svc, await svc.createApp());
    await svc.services.close();
    dir = dirname(sqliteFilename(svc.config.databaseUrl));
    backupFile = join(dir, 'nightly.backup');
    await backupDatabase(svc.config.databaseUrl, backupFile);
  });
  afterAll(() => svc.close().catch(() => undefined));
  const env = () => ({ DATABASE_URL: svc.config.databaseUrl });

  it(
    'writes a private, sound, complete copy, and replaces an older backup only once the new one is whole',
    async () => {
      const file = join(dir, 'latest.backup');
      writeFileSync(file, 'yesterday');
      const done = await runCli(['backup', file], env());
      expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
      expect(done.stdout).toMatch(new RegExp(`^backup of file:${sqliteFilename(svc.config.databaseUrl)} written to ${file}: [\\d,]+ bytes, schema ${loadMigrations('sqlite').at(-1)!.name}, in \\d+ ms\\n$`));
      expect(statSync(file).mode & 0o777).toBe(0o600);
      expect(filesIn(dir).filter((f) => f.endsWith('.tmp'))).toEqual([]);
      const db = new Database(file, { readonly: true });
      expect(db.pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
      // One self-contained file: no WAL beside it to lose when it is moved.
      expect(db.pragma('journal_mode', { simple: true })).toBe('delete');
      db.close();
      expect(await contentThroughService(`file:${file}`)).toEqual(await contentThroughService(svc.config.databaseUrl));
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'restores into place, keeps the database it replaced, and into a new location too',
    async () => {
      const target = await createTestDatabase('sqlite');
      try {
        const fresh = await runCli(['restore', backupFile], { DATABASE_URL: target.url });
        expect({ code: fresh.code, stderr: fresh.stderr }).toEqual({ code: 0, stderr: '' });
        expect(fresh.stdout).toBe(`restored ${backupFile} into file:${sqliteFilename(target.url)} (schema ${loadMigrations('sqlite').at(-1)!.name})\n`);
        expect(statSync(sqliteFilename(target.url)).mode & 0o777).toBe(0o600);
        expect(await contentThroughService(target.url)).toEqual(await contentThroughService(svc.config.databaseUrl));

        // Over an existing database (another one): it is kept beside, byte for byte.
        const other = await createTestDatabase('sqlite');
        const otherSvc = await startTestService('sqlite', { DATABASE_URL: other.url });
        await populateApp(otherSvc, await otherSvc.createApp());
        await otherSvc.services.close();
        const replacedContent = await rawDump(other.url);
        const over = await runCli(['restore', backupFile], { DATABASE_URL: other.url });
        expect(over.code).toBe(0);
        const kept = /kept as (\S+);/.exec(over.stdout)?.[1];
        expect(kept).toMatch(new RegExp(`^${sqliteFilename(other.url)}\\.replaced-\\d{8}T\\d{6}Z$`));
        expect(await rawDump(`file:${kept}`)).toEqual(replacedContent);
        expect(await contentThroughService(other.url)).toEqual(await contentThroughService(svc.config.databaseUrl));
        await other.drop();
      } finally {
        await target.drop();
      }
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'restores a backup of an older version, which the service migrates when it starts',
    async () => {
      const old = await createTestDatabase('sqlite');
      const target = await createTestDatabase('sqlite');
      try {
        const migrations = loadMigrations('sqlite');
        migrateSqlite(sqliteFilename(old.url), migrations.slice(0, 3));
        const done = await runCli(['restore', sqliteFilename(old.url)], { DATABASE_URL: target.url });
        expect(done.code).toBe(0);
        expect(done.stdout).toContain(`the service applies ${migrations.length - 3} newer migration(s) when it starts: ${migrations.slice(3).map((m) => m.name).join(', ')}`);
      } finally {
        await old.drop();
        await target.drop();
      }
    },
    CLI_TIMEOUT_MS,
  );

  it(
    'refuses a backup of PostgreSQL, of a database that does not exist, into a missing directory, or onto the database itself',
    async () => {
      const before = filesIn(dir);
      expectRefusal(await runCli(['backup', backupFile], { DATABASE_URL: 'postgres://owner:hunter2@127.0.0.1:5432/pwl' }), /DATABASE_URL names PostgreSQL: back it up with pg_dump \(see docs\/operations\.md/);
      expectRefusal(await runCli(['backup', backupFile], { DATABASE_URL: `file:${join(dir, 'nothing.db')}` }), /the database file:.*nothing\.db does not exist/);
      expectRefusal(await runCli(['backup', join(dir, 'no', 'such', 'dir', 'b.db')], env()), /the directory of .*\/no\/such\/dir\/b\.db does not exist/);
      expectRefusal(await runCli(['backup', sqliteFilename(svc.config.databaseUrl)], env()), /is the database itself; name another file/);
      // A backup that fails leaves the file it would have replaced as it was.
      const strange = join(dir, 'strange-source.db');
      new Database(strange).exec('CREATE TABLE orders (id INTEGER PRIMARY KEY)').close();
      const previous = join(dir, 'previous.backup');
      writeFileSync(previous, 'yesterday');
      expectRefusal(await runCli(['backup', previous], { DATABASE_URL: `file:${strange}` }), /strange-source\.db is not a passwordless-selfhost database/);
      expect(readFileSync(previous, 'utf8')).toBe('yesterday');
      before.push('previous.backup', 'strange-source.db');
      before.sort();
      const usage = await runCli(['backup'], env());
      expect({ code: usage.code, first: usage.stderr.split('\n')[0] }).toEqual({ code: 1, first: 'backup: give exactly one <file>' });
      expect(filesIn(dir)).toEqual(before);
    },
    CLI_TIMEOUT_MS,
  );

  describe('restore refuses, and the database stays as it was', () => {
    let target: TestDatabase;
    let before: Awaited<ReturnType<typeof rawDump>>;
    beforeAll(async () => {
      target = await createTestDatabase('sqlite');
      expect((await runCli(['restore', backupFile], { DATABASE_URL: target.url })).code).toBe(0);
      const extra = await startTestService('sqlite', { DATABASE_URL: target.url });
      await extra.createApp(); // the database now differs from the backup
      await extra.services.close();
      before = await rawDump(target.url);
    }, CLI_TIMEOUT_MS);
    afterAll(() => target.drop());
    const restore = (file: string) => runCli(['restore', file], { DATABASE_URL: target.url });
    const damaged = (name: string, bytes: Buffer | string) => {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      return path;
    };

    it(
      'a missing file, a file that is not a database, a damaged or truncated backup',
      async () => {
        const good = readFileSync(backupFile);
        const garbled = Buffer.from(good);
        // Overwrite the header of the Credential table's root page: its b-tree no longer reads.
        const db = new Database(backupFile, { readonly: true });
        const root = (db.prepare(`SELECT rootpage FROM sqlite_schema WHERE name = 'Credential'`).get() as { rootpage: number }).rootpage;
        const pageSize = db.pragma('page_size', { simple: true }) as number;
        db.close();
        garbled.fill(0xff, (root - 1) * pageSize, (root - 1) * pageSize + 12);
        expectRefusal(await restore(join(dir, 'missing.backup')), /the backup .*missing\.backup does not exist; nothing was changed/);
        expectRefusal(await restore(damaged('notes.txt', 'not a database '.repeat(100))), /notes\.txt cannot be read as an SQLite database \(SQLITE_NOTADB: .*\); nothing was changed/);
        expectRefusal(await restore(damaged('garbled.backup', garbled)), /garbled\.backup (failed its integrity check|cannot be read as an SQLite database) \(.+\); nothing was changed/);
        expectRefusal(await restore(damaged('half.backup', good.subarray(0, Math.floor(good.length / 2)))), /half\.backup (failed its integrity check|cannot be read as an SQLite database) \(.+\); nothing was changed/);
        expect(await rawDump(target.url)).toEqual(before);
        // No temporary file left, and no database set aside: nothing was replaced.
        expect(filesIn(dirname(sqliteFilename(target.url))).filter((f) => /\.tmp$|\.replaced-/.test(f))).toEqual([]);
      },
      CLI_TIMEOUT_MS,
    );

    it(
      'a backup of a newer version, an SQLite file that is not the service’s, a PostgreSQL DATABASE_URL',
      async () => {
        const newer = damaged('newer.backup', readFileSync(backupFile));
        const db = new Database(newer);
        db.prepare(`INSERT INTO "_passwordless_migrations" (name, checksum, applied_at) VALUES ('20991231000000_future', 'x', '2099-12-31T00:00:00Z')`).run();
        db.close();
        expectRefusal(await restore(newer), /newer\.backup is on a schema this version cannot run: it has migration 20991231000000_future, which this version does not know/);
        const strange = join(dir, 'strange.db');
        new Database(strange).exec('CREATE TABLE orders (id INTEGER PRIMARY KEY)').close();
        expectRefusal(await restore(strange), /strange\.db is not a passwordless-selfhost database \(it has no migration ledger\); nothing was changed/);
        expectRefusal(await runCli(['restore', backupFile], { DATABASE_URL: 'postgres://owner:hunter2@127.0.0.1:5432/pwl' }), /DATABASE_URL names PostgreSQL: restore a pg_dump archive with pg_restore/);
        expect(await rawDump(target.url)).toEqual(before);
      },
      CLI_TIMEOUT_MS,
    );

    it(
      'while a service runs on the database; once it has stopped, the same restore goes through',
      async () => {
        const running = await startServiceProcess({}, target);
        try {
          expectRefusal(await restore(backupFile), /the database file:.* is in use \(is the service still running on it\?\): stop it, then restore; nothing was changed/);
        } finally {
          await running.stop();
        }
        const after = await rawDump(target.url);
        const done = await restore(backupFile);
        expect(done.code).toBe(0);
        expect(await rawDump(`file:${/kept as (\S+);/.exec(done.stdout)![1]}`)).toEqual(after);
      },
      CLI_TIMEOUT_MS,
    );
  });
});
