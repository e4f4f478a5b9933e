/**
 * `backup <file>` and `restore <file>` on SQLite, as operators run them: what a backup is (a
 * sound, private, complete file with every table's checksum, signed with BACKUP_MAC_KEY when it is
 * set), what a restore does (the backup in place, in a private directory, the replaced database
 * kept), and the refusals, each with one clear line, exit code 1 and nothing changed: among them
 * what the migrations did not make (a trigger that lets a single-use token verify again and again),
 * a backup changed by one byte, and an unsigned or wrongly signed one while BACKUP_MAC_KEY is set.
 */
import { copyFileSync, existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import Database from 'better-sqlite3';
import { backupDatabase } from '../../src/server/data/backupDatabase';
import { writeBackupManifest } from '../../src/server/data/backupManifest';
import { sqliteFilename } from '../../src/server/store';
import { loadMigrations, migrateSqlite } from '../../src/server/store/migrate';
import { populateApp } from '../support/appData';
import { contentThroughService, rawDump } from '../support/databaseContent';
import { spawn } from 'node:child_process';
import { outputOf } from '../support/childProcess';
import { verifyToken } from '../support/ceremonies';
import { runCli } from '../support/deployment';
import { CLI, childEnv, ensureBuilt, startServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, startTestService, type TestApp, type TestDatabase, type TestService } from '../support/testService';

const CLI_TIMEOUT_MS = 60_000;
const MAC_KEY = 'backup-mac-key-0123456789abcdefghijklmnop';
const OTHER_MAC_KEY = 'another-backup-mac-key-0123456789abcdefgh';
/** The trigger of the issue: it takes back every redemption, so a single-use token verifies again and again. */
const REPLAY_TRIGGER = `CREATE TRIGGER "replay" AFTER INSERT ON "RedeemedToken" BEGIN DELETE FROM "RedeemedToken" WHERE rowid = NEW.rowid; END`;

// The build (when a source is newer than dist/) takes a while on a loaded machine: not a test's time.
beforeAll(() => ensureBuilt(), 180_000);

function expectRefusal(result: { code: number | null; stdout: string; stderr: string }, message: RegExp): void {
  expect({ code: result.code, stdout: result.stdout, lines: result.stderr.trimEnd().split('\n').length }).toEqual({ code: 1, stdout: '', lines: 1 });
  expect(result.stderr).toMatch(/^error: /);
  expect(result.stderr).toMatch(message);
}

/** The command line from a shell whose umask is 022, as an operator's shell usually has it. */
const runCliUnderUmask022 = (args: string[], env: Record<string, string>) =>
  outputOf(spawn('/bin/sh', ['-c', 'umask 022 && exec "$0" "$@"', process.execPath, CLI, ...args], { env: childEnv({ LOG_LEVEL: 'warn', ...env }) }));

/** The files of a directory: a refusal leaves no temporary file behind. */
const filesIn = (dir: string) => readdirSync(dir).sort();

/** A copy of `file` named `name` beside it, changed by `change` (as someone with the file could). */
function doctored(file: string, name: string, change: (db: Database.Database) => void): string {
  const path = join(dirname(file), name);
  copyFileSync(file, path);
  const db = new Database(path);
  try {
    change(db);
  } finally {
    db.close();
  }
  return path;
}

/** Changes one byte in the middle of the first passkey's public key, in the file's bytes (SQLite has no page checksums to notice). */
function flipOneByteOfAPublicKey(file: string, name: string): string {
  const db = new Database(file, { readonly: true });
  const { publicKey } = db.prepare('SELECT "publicKey" FROM "Credential" ORDER BY rowid LIMIT 1').get() as { publicKey: string };
  db.close();
  const bytes = readFileSync(file);
  const at = bytes.indexOf(Buffer.from(publicKey));
  expect({ found: at >= 0, once: bytes.lastIndexOf(Buffer.from(publicKey)) === at }).toEqual({ found: true, once: true });
  const middle = at + Math.floor(publicKey.length / 2);
  bytes[middle] = bytes[middle] === 0x41 ? 0x42 : 0x41; // 'A' or 'B': still base64url
  const path = join(dirname(file), name);
  writeFileSync(path, bytes);
  return path;
}

describe('backup and restore of the SQLite database', () => {
  let svc: TestService;
  let dir: string;
  let backupFile: string;
  const apps: TestApp[] = [];
  beforeAll(async () => {
    svc = await startTestService('sqlite');
    for (let i = 0; i < 2; i++) {
      apps.push(await svc.createApp());
      await populateApp(svc, apps[i]);
    }
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
      expect(done.stdout).toMatch(
        new RegExp(
          `^backup of file:${sqliteFilename(svc.config.databaseUrl)} written to ${file}: [\\d,]+ bytes, schema ${loadMigrations('sqlite').at(-1)!.name}, in \\d+ ms\\n` +
            `its manifest records every table's checksum \\(\\d+ tables, [\\d,]+ rows\\); not signed \\(BACKUP_MAC_KEY is not set\\)\\n$`,
        ),
      );
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
        expect(fresh.stdout).toMatch(
          new RegExp(
            `^restored ${backupFile} into file:${sqliteFilename(target.url)} \\(schema ${loadMigrations('sqlite').at(-1)!.name}\\)\\n` +
              `checked before it was restored: the schema is what the migrations make; all \\d+ tables \\([\\d,]+ rows\\) match the checksums recorded when the backup was made at \\S+; not signed \\(made without BACKUP_MAC_KEY\\)\\n$`,
          ),
        );
        expect(statSync(sqliteFilename(target.url)).mode & 0o777).toBe(0o600);
        // The backup's manifest is backup's own: it is not restored.
        expect((await rawDump(target.url)).tables._passwordless_backup).toBeUndefined();
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
    'creates the directory it restores into 0700 (under umask 022), and a refused restore leaves none behind',
    async () => {
      const root = await createTestDatabase('sqlite');
      const base = dirname(sqliteFilename(root.url));
      try {
        const done = await runCliUnderUmask022(['restore', backupFile], { DATABASE_URL: `file:${join(base, 'new', 'deeper', 'passwordless.db')}` });
        expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
        expect({ new: statSync(join(base, 'new')).mode & 0o777, deeper: statSync(join(base, 'new', 'deeper')).mode & 0o777 }).toEqual({ new: 0o700, deeper: 0o700 });
        expect(statSync(join(base, 'new', 'deeper', 'passwordless.db')).mode & 0o777).toBe(0o600);

        const tampered = flipOneByteOfAPublicKey(backupFile, 'one-byte-for-new-dir.backup');
        expectRefusal(await runCliUnderUmask022(['restore', tampered], { DATABASE_URL: `file:${join(base, 'other', 'deeper', 'passwordless.db')}` }), /nothing was changed$/m);
        expect(existsSync(join(base, 'other'))).toBe(false);
      } finally {
        await root.drop();
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
      "a backup carrying a trigger the migrations did not make (one that makes a single-use token verify again and again), and nothing of it is restored",
      async () => {
        const replaying = doctored(backupFile, 'replaying.backup', (db) => db.exec(REPLAY_TRIGGER));
        // What the trigger does on a database that carries it: a single-use token verifies three times.
        const scratch = join(dir, 'replaying-scratch.db');
        copyFileSync(replaying, scratch);
        const exposed = await startServiceProcess({}, { url: `file:${scratch}`, drop: async () => undefined });
        try {
          const minted = await exposed.http.post('/signin/generate-token').set('ApiSecret', apps[0].apiSecret).send({ userId: 'victim' });
          expect(minted.status).toBe(200);
          for (let i = 0; i < 3; i++) expect((await verifyToken(exposed, apps[0], minted.body.token)).body).toMatchObject({ success: true, userId: 'victim' });
        } finally {
          await exposed.stop();
        }

        expectRefusal(await restore(replaying), /replaying\.backup holds what the migrations did not make: an extra trigger "replay" on "RedeemedToken"; nothing was changed$/m);
        expect(await rawDump(target.url)).toEqual(before);
        expect(filesIn(dirname(sqliteFilename(target.url))).filter((f) => /\.tmp|\.replaced-/.test(f))).toEqual([]);
        const restored = new Database(sqliteFilename(target.url), { readonly: true });
        expect(restored.prepare(`SELECT count(*) AS n FROM sqlite_schema WHERE type = 'trigger'`).get()).toEqual({ n: 0 });
        restored.close();
      },
      CLI_TIMEOUT_MS,
    );

    it(
      'a backup with an extra view or index, a dropped index, or a table defined otherwise: each named',
      async () => {
        const index = (new Database(backupFile, { readonly: true }).prepare(`SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'Credential' AND sql IS NOT NULL ORDER BY name LIMIT 1`).get() as { name: string }).name;
        const reshaped = doctored(backupFile, 'reshaped.backup', (db) =>
          db.exec(`CREATE VIEW "everything" AS SELECT * FROM "Credential";
                   CREATE INDEX "by_key" ON "Credential" ("publicKey");
                   DROP INDEX "${index}";`),
        );
        const result = await restore(reshaped);
        expectRefusal(result, /reshaped\.backup holds what the migrations did not make: /);
        expect(result.stderr).toContain('an extra index "by_key" on "Credential"; an extra view "everything"');
        expect(result.stderr).toContain(`no index "${index}" on "Credential"`);
        // A changed definition: the table of redeemed tokens without its primary key would let a token be redeemed twice.
        const loosened = doctored(backupFile, 'loosened.backup', (db) =>
          db.exec(`CREATE TABLE "loose" ("tenant" TEXT NOT NULL, "tokenId" TEXT NOT NULL, "expiresAt" DATETIME NOT NULL,
                     CONSTRAINT "RedeemedToken_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE);
                   INSERT INTO "loose" SELECT * FROM "RedeemedToken";
                   DROP TABLE "RedeemedToken";
                   ALTER TABLE "loose" RENAME TO "RedeemedToken";
                   CREATE INDEX "RedeemedToken_expiresAt_idx" ON "RedeemedToken"("expiresAt");`),
        );
        const loose = await restore(loosened);
        expectRefusal(loose, /loosened\.backup holds what the migrations did not make: /);
        expect(loose.stderr).toContain('table "RedeemedToken" defined otherwise than the migrations define it');
        expect(await rawDump(target.url)).toEqual(before);
      },
      CLI_TIMEOUT_MS,
    );

    it(
      "a backup with one byte changed inside a passkey's public key, named by its table, before anything is restored",
      async () => {
        const tampered = flipOneByteOfAPublicKey(backupFile, 'one-byte.backup');
        // SQLite itself finds nothing wrong with the file.
        expect(new Database(tampered, { readonly: true }).pragma('integrity_check')).toEqual([{ integrity_check: 'ok' }]);
        expectRefusal(
          await restore(tampered),
          /one-byte\.backup does not hold what its manifest recorded when the backup was made \(changed or damaged since\): the rows of table Credential differ from its recorded checksum; nothing was changed$/m,
        );
        // A row added, or the manifest taken out with a BACKUP_MAC_KEY set, are refused too.
        const added = doctored(backupFile, 'added.backup', (db) => db.exec(`INSERT INTO "DailyReport" ("tenant", "day", "users", "credentials", "dailyActiveUsers", "weeklyActiveUsers") SELECT "tenant", '2099-01-01', 1, 1, 1, 1 FROM "DailyReport" LIMIT 1`));
        expectRefusal(await restore(added), /added\.backup does not hold what its manifest recorded .*: table DailyReport has 3 rows, and 2 were recorded; nothing was changed$/m);
        expect(await rawDump(target.url)).toEqual(before);
        expect(filesIn(dirname(sqliteFilename(target.url))).filter((f) => /\.tmp|\.replaced-/.test(f))).toEqual([]);
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

  describe('BACKUP_MAC_KEY', () => {
    let signed: string;
    let target: TestDatabase;
    let before: Awaited<ReturnType<typeof rawDump>>;
    beforeAll(async () => {
      signed = join(dir, 'signed.backup');
      const made = await runCli(['backup', signed], { ...env(), BACKUP_MAC_KEY: MAC_KEY });
      expect({ code: made.code, stderr: made.stderr }).toEqual({ code: 0, stderr: '' });
      expect(made.stdout).toMatch(/; signed with BACKUP_MAC_KEY\n$/);
      target = await createTestDatabase('sqlite');
      expect((await runCli(['restore', backupFile], { DATABASE_URL: target.url })).code).toBe(0);
      before = await rawDump(target.url);
    }, CLI_TIMEOUT_MS);
    afterAll(() => target.drop());
    const restore = (file: string, key?: string) => runCli(['restore', file], { DATABASE_URL: target.url, ...(key ? { BACKUP_MAC_KEY: key } : {}) });

    it(
      'refuses an unsigned backup, one signed with another key, one without a manifest, and one whose rows and checksums were both changed',
      async () => {
        expectRefusal(await restore(backupFile, MAC_KEY), /nightly\.backup is not signed \(it was made without BACKUP_MAC_KEY\), and BACKUP_MAC_KEY is set: only a backup signed with it is taken; nothing was changed$/m);
        expectRefusal(await restore(signed, OTHER_MAC_KEY), /signed\.backup is not signed with this BACKUP_MAC_KEY: it was signed with another key, or changed after it was made; nothing was changed$/m);
        const bare = doctored(signed, 'bare.backup', (db) => db.exec('DROP TABLE "_passwordless_backup"'));
        expectRefusal(await restore(bare, MAC_KEY), /bare\.backup is not signed \(it carries no manifest: .*\), and BACKUP_MAC_KEY is set: only a backup signed with it is restored; nothing was changed$/m);
        // Someone who changes a row and writes the checksums again cannot sign them: the old signature no longer fits.
        const forged = doctored(flipOneByteOfAPublicKey(signed, 'forged-rows.backup'), 'forged.backup', (db) => {
          const { mac } = db.prepare('SELECT "mac" FROM "_passwordless_backup"').get() as { mac: string };
          const ledger = (db.prepare('SELECT name FROM "_passwordless_migrations" ORDER BY name').all() as { name: string }[]).map((r) => r.name);
          writeBackupManifest(db, ledger, undefined);
          db.prepare('UPDATE "_passwordless_backup" SET "mac" = ?').run(mac);
        });
        expectRefusal(await restore(forged, MAC_KEY), /forged\.backup is not signed with this BACKUP_MAC_KEY: it was signed with another key, or changed after it was made; nothing was changed$/m);
        const short = await restore(signed, 'a-short-key');
        expect({ code: short.code, stdout: short.stdout }).toEqual({ code: 1, stdout: '' });
        expect(short.stderr).toMatch(/^Invalid configuration: BACKUP_MAC_KEY must be at least 32 characters long \(npm run cli -- generate-key backup-mac prints one\)\n$/);
        expect(await rawDump(target.url)).toEqual(before);
        expect(filesIn(dirname(sqliteFilename(target.url))).filter((f) => /\.tmp|\.replaced-/.test(f))).toEqual([]);
      },
      CLI_TIMEOUT_MS,
    );

    it(
      'restores a backup signed with the key, saying so; without the key, it says the signature was not checked',
      async () => {
        const done = await restore(signed, MAC_KEY);
        expect({ code: done.code, stderr: done.stderr }).toEqual({ code: 0, stderr: '' });
        expect(done.stdout).toMatch(/^checked before it was restored: the schema is what the migrations make; all \d+ tables \([\d,]+ rows\) match the checksums recorded when the backup was made at \S+; its signature verified with BACKUP_MAC_KEY$/m);
        expect(await contentThroughService(target.url)).toEqual(await contentThroughService(`file:${backupFile}`));
        const unchecked = await restore(signed);
        expect(unchecked.code).toBe(0);
        expect(unchecked.stdout).toContain('; signed, but BACKUP_MAC_KEY is not set here, so the signature was not checked\n');
      },
      CLI_TIMEOUT_MS,
    );
  });
});
