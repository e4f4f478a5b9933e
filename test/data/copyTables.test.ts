/**
 * `data copy` in-process: what it copies (every table the migrated schema has, a later one
 * included), how faithfully (the service's own encodings, read back alike), and how a later pass
 * with `--since` catches up. Runs SQLite to SQLite always; across to PostgreSQL and back, and
 * PostgreSQL to PostgreSQL, when TEST_DATABASE_URL is set.
 */
import { createHash } from 'node:crypto';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import { copyData } from '../../src/server/data/copyData';
import { sqliteFilename } from '../../src/server/store';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { loadMigrations, migratePostgres, migrateSqlite, type Migration, type Provider } from '../../src/server/store/migrate';
import { populateApp } from '../support/appData';
import { registerPasskey, signIn } from '../support/ceremonies';
import { MODELS, contentThroughService, rawDump } from '../support/databaseContent';
import { managementClient } from '../support/http';
import { privateApi } from '../support/privateApi';
import { createTestDatabase, providers, startTestService, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

/** Source and target providers: SQLite to SQLite always; across both ways, and PostgreSQL to PostgreSQL, with PostgreSQL. */
const pairs: [Provider, Provider][] = process.env.TEST_DATABASE_URL
  ? [
      ['sqlite', 'sqlite'],
      ['sqlite', 'postgresql'],
      ['postgresql', 'sqlite'],
      ['postgresql', 'postgresql'],
    ]
  : [['sqlite', 'sqlite']];

const dropAll = (databases: TestDatabase[]) => Promise.all(databases.map((d) => d.drop()));
/** The migration ledger records when each migration ran, which is the one thing a copy does not carry. */
const withoutLedger = ({ tables, ...rest }: Awaited<ReturnType<typeof rawDump>>) => ({ ...rest, tables: Object.fromEntries(Object.entries(tables).filter(([name]) => name !== '_passwordless_migrations')) });

describe.each(pairs)('data copy from %s to %s', (from, to) => {
  it('copies every table of the schema, each row reading back through the service exactly as the original', async () => {
    const svc = await startTestService(from);
    const target = await createTestDatabase(to);
    try {
      for (let i = 0; i < 3; i++) await populateApp(svc, await svc.createApp());
      await svc.services.close(); // the buffered event log written, nothing moving
      const result = await copyData({ from: svc.config.databaseUrl, to: target.url });
      expect(result.equal).toBe(true);
      expect(result.tables.map((t) => t.table).sort()).toEqual([...MODELS].sort());
      for (const t of result.tables) expect({ table: t.table, some: t.sourceRows > 0, same: t.targetRows === t.sourceRows }).toEqual({ table: t.table, some: true, same: true });
      expect(result.tables.every((t) => t.newer.inserted + t.newer.updated + t.newer.deleted === 0)).toBe(true);
      expect(await contentThroughService(target.url)).toEqual(await contentThroughService(svc.config.databaseUrl));
    } finally {
      await dropAll([target]);
      await svc.close().catch(() => undefined);
    }
  });
});

(process.env.TEST_DATABASE_URL ? it : it.skip)('SQLite to PostgreSQL and back gives the very encodings the service wrote, byte for byte', async () => {
  const svc = await startTestService('sqlite');
  const postgres = await createTestDatabase('postgresql');
  const back = await createTestDatabase('sqlite');
  try {
    await populateApp(svc, await svc.createApp());
    await svc.services.close();
    expect((await copyData({ from: svc.config.databaseUrl, to: postgres.url })).equal).toBe(true);
    expect((await copyData({ from: postgres.url, to: back.url })).equal).toBe(true);
    expect(withoutLedger(await rawDump(back.url))).toEqual(withoutLedger(await rawDump(svc.config.databaseUrl)));
  } finally {
    await dropAll([postgres, back]);
    await svc.close().catch(() => undefined);
  }
});

// ---------------------------------------------------------------------------------------------
// A table a later migration adds (another engineer's reporting snapshot, say) is copied and
// checked with no change to the copy: one of every kind of column, odd values included.

const LATER_SQL: Record<Provider, string> = {
  sqlite: `CREATE TABLE "LaterTable" ("tenant" TEXT NOT NULL, "seq" INTEGER NOT NULL, "label" TEXT, "total" BIGINT NOT NULL, "flag" BOOLEAN NOT NULL DEFAULT false,
    "at" DATETIME, "ratio" REAL, "amount" DECIMAL, "payload" BLOB, "doc" JSONB, PRIMARY KEY ("tenant", "seq"),
    CONSTRAINT "LaterTable_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE);`,
  postgresql: `CREATE TABLE "LaterTable" ("tenant" TEXT NOT NULL, "seq" INTEGER NOT NULL, "label" TEXT, "total" BIGINT NOT NULL, "flag" BOOLEAN NOT NULL DEFAULT false,
    "at" TIMESTAMP(3), "ratio" DOUBLE PRECISION, "amount" DECIMAL(65,30), "payload" BYTEA, "doc" JSONB, CONSTRAINT "LaterTable_pkey" PRIMARY KEY ("tenant", "seq"));
    ALTER TABLE "LaterTable" ADD CONSTRAINT "LaterTable_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;`,
};

const withLater = (provider: Provider): Migration[] => [
  ...loadMigrations(provider),
  { name: '20991231000000_later_table', sql: LATER_SQL[provider], checksum: createHash('sha256').update(LATER_SQL[provider]).digest('hex') },
];
const LATER = { sqlite: withLater('sqlite'), postgresql: withLater('postgresql') };

/** Rows of the later table, as the canonical values the copy must carry: [seq, label, total, flag, at, ratio, amount, payload (hex), doc]. */
const LATER_ROWS = [
  [1, 'plain', '0', true, '2026-11-25T09:45:11.141Z', 0.1, '12345.678', '00ff00', { b: 1, a: [true, null] }],
  [2, 'quote " and \' and \n newline, ünïcödé 🔑', '9223372036854775807', false, '1970-01-01T00:00:00.000Z', -1e-300, '-0.5', '', []],
  [3, '', '-9223372036854775808', false, '2099-12-31T23:59:59.999Z', 1e21, '0', '61', 'text'],
  [4, null, '42', true, null, null, null, null, null],
] as const;

async function seedLater(provider: Provider, url: string): Promise<void> {
  if (provider === 'sqlite') {
    const file = sqliteFilename(url);
    migrateSqlite(file, LATER.sqlite);
    const db = new Database(file);
    db.prepare(`INSERT INTO "App" ("id", "adminEmail", "createdAt") VALUES ('later', 'a@example.com', '2026-11-25T09:45:11.141+00:00')`).run();
    const insert = db.prepare(`INSERT INTO "LaterTable" VALUES ('later', ?, ?, ?, ?, ?, ?, ?, ?, ?)`);
    for (const [seq, label, total, flag, at, ratio, amount, payload, doc] of LATER_ROWS) {
      insert.run(seq, label, BigInt(total), flag ? 1 : 0, at && at.replace('Z', '+00:00'), ratio, amount, payload === null ? null : Buffer.from(payload, 'hex'), doc === null ? null : JSON.stringify(doc));
    }
    db.close();
    return;
  }
  await migratePostgres(url, LATER.postgresql);
  const client = new Client({ connectionString: url });
  await client.connect();
  await client.query(`INSERT INTO "App" ("id", "adminEmail", "createdAt") VALUES ('later', 'a@example.com', '2026-11-25T09:45:11.141')`);
  for (const [seq, label, total, flag, at, ratio, amount, payload, doc] of LATER_ROWS) {
    await client.query(`INSERT INTO "LaterTable" VALUES ('later', $1, $2, $3, $4, $5, $6, $7, $8, $9)`, [
      seq,
      label,
      total,
      flag,
      at,
      ratio,
      amount,
      payload === null ? null : Buffer.from(payload, 'hex'),
      doc === null ? null : JSON.stringify(doc),
    ]);
  }
  await client.end();
}

/** The later table's rows as the target holds them, in the same shape as LATER_ROWS. */
async function readLater(provider: Provider, url: string): Promise<unknown[]> {
  const shape = (r: Record<string, unknown>) => [
    Number(r.seq),
    r.label,
    String(r.total),
    r.flag === true || r.flag === 1n,
    r.at === null ? null : new Date(provider === 'sqlite' ? String(r.at) : `${String(r.at).replace(' ', 'T')}Z`).toISOString(),
    r.ratio === null ? null : Number(r.ratio),
    r.amount === null ? null : String(Number(r.amount)),
    r.payload === null ? null : Buffer.from(r.payload as Buffer).toString('hex'),
    r.doc === null ? null : JSON.parse(String(r.doc)),
  ];
  if (provider === 'sqlite') {
    const db = new Database(sqliteFilename(url), { readonly: true });
    const rows = db.prepare(`SELECT * FROM "LaterTable" ORDER BY "seq"`).safeIntegers(true).all() as Record<string, unknown>[];
    db.close();
    return rows.map(shape);
  }
  const client = new Client({ connectionString: url, types: { getTypeParser: () => (v: string) => v } as never });
  await client.connect();
  const { rows } = await client.query(`SELECT "seq", "label", "total", "flag" = true AS flag, "at"::text AS at, "ratio", "amount"::text AS amount, "payload", "doc"::text AS doc FROM "LaterTable" ORDER BY "seq"`);
  await client.end();
  return rows.map((r) => shape({ ...r, flag: r.flag === 't', payload: r.payload === null ? null : Buffer.from(String(r.payload).slice(2), 'hex') }));
}

describe.each(pairs)('a table added by a later migration, from %s to %s', (from, to) => {
  it('is copied and checked with no change to the copy, every kind of value intact', async () => {
    const [source, target] = [await createTestDatabase(from), await createTestDatabase(to)];
    try {
      await seedLater(from, source.url);
      const result = await copyData({ from: source.url, to: target.url, migrations: LATER });
      expect(result.equal).toBe(true);
      expect(result.applied).toContain('20991231000000_later_table');
      expect(result.tables.find((t) => t.table === 'LaterTable')).toMatchObject({ sourceRows: LATER_ROWS.length, targetRows: LATER_ROWS.length });
      const expected = LATER_ROWS.map((row) => [...row]);
      expect(await readLater(to, target.url)).toEqual(expected);
      // This version's copy, which does not know that migration, refuses such a source.
      const other = await createTestDatabase(to);
      await expect(copyData({ from: source.url, to: other.url })).rejects.toThrow(/it has migration 20991231000000_later_table, which this version does not know/);
      await other.drop();
    } finally {
      await dropAll([source, target]);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(pairs.filter(([from]) => from === 'sqlite'))('what was written after the snapshot, from %s to %s', (from, to) => {
  it('is reported by table as new, changed and gone rows, and is not in the copy', async () => {
    const svc = await startTestService(from);
    const target = await createTestDatabase(to);
    try {
      const app = await svc.createApp();
      // Its register token and its session are redeemed: two RedeemedToken rows.
      await registerPasskey(svc, app);
      await svc.services.close();
      const before = await contentThroughService(svc.config.databaseUrl);
      const writer = openSqliteConnection(sqliteFilename(svc.config.databaseUrl));
      let wrote = false;
      // Written by another connection once the snapshot is open: at the first sign of copying.
      const result = await copyData({
        from: svc.config.databaseUrl,
        to: target.url,
        onProgress: ({ phase }) => {
          if (wrote || phase !== 'copy') return;
          wrote = true;
          writer.exec(`UPDATE "Credential" SET "signatureCounter" = 99; DELETE FROM "RedeemedToken";`);
          writer
            .prepare(`INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject") VALUES (?, ?, ?, 'Test', 'after', 'Informational', 'test', 'test')`)
            .run('00000000-0000-4000-8000-000000000001', app.appId, new Date().toISOString().replace('Z', '+00:00'));
        },
      });
      writer.close();
      expect(wrote).toBe(true);
      expect(result.equal).toBe(true);
      const newer = Object.fromEntries(result.tables.filter((t) => t.newer.inserted + t.newer.updated + t.newer.deleted > 0).map((t) => [t.table, t.newer]));
      expect(newer).toEqual({
        Credential: { inserted: 0, updated: 1, deleted: 0 },
        RedeemedToken: { inserted: 0, updated: 0, deleted: 2 },
        Event: { inserted: 1, updated: 0, deleted: 0 },
      });
      expect(await contentThroughService(target.url)).toEqual(before);
    } finally {
      await dropAll([target]);
      await svc.close().catch(() => undefined);
    }
  });
});

describe.each(pairs)('a later pass with --since, from %s to %s', (from, to) => {
  it('copies inserts, changes and deletions (a cascade included) since the snapshot, and nothing else', async () => {
    const svc = await startTestService(from);
    const target = await createTestDatabase(to);
    try {
      const apps = [await svc.createApp(), await svc.createApp(), await svc.createApp()];
      const users = [];
      for (const app of apps) users.push(await registerPasskey(svc, app, { aliases: [`${app.appId}@example.com`] }));
      await svc.services.close();
      const first = await copyData({ from: svc.config.databaseUrl, to: target.url });
      expect(first.equal).toBe(true);

      // The customers carry on, on the source.
      const more = await startTestService(from, { DATABASE_URL: svc.config.databaseUrl });
      const admin = managementClient(more);
      expect((await signIn(more, apps[0], users[0].credential, { userId: users[0].userId })).complete.status).toBe(200);
      expect((await privateApi(more, apps[1]).post('/alias', { userId: users[1].userId, aliases: ['renamed@example.com'] })).status).toBe(204);
      expect((await admin.delete(`/admin/apps/${apps[2].appId}`)).status).toBe(200);
      expect((await registerPasskey(more, apps[0])).complete.status).toBe(200);
      await more.services.close();

      const second = await copyData({ from: svc.config.databaseUrl, to: target.url, since: first.snapshotId });
      expect(second.equal).toBe(true);
      expect(second.mode).toBe('since');
      const written = Object.fromEntries(second.tables.map((t) => [t.table, t.written]));
      expect(written.App).toEqual({ inserted: 0, updated: 0, deleted: 1 });
      expect(written.Credential).toEqual({ inserted: 1, updated: 1, deleted: 1 });
      expect(written.Alias).toEqual({ inserted: 1, updated: 0, deleted: 2 });
      expect(written.ApiKey.deleted).toBe(4);
      expect(await contentThroughService(target.url)).toEqual(await contentThroughService(svc.config.databaseUrl));
      expect(second.snapshotId).not.toBe(first.snapshotId);

      // Nothing changed since: a further pass writes nothing.
      const third = await copyData({ from: svc.config.databaseUrl, to: target.url, since: second.snapshotId });
      expect(third.tables.every((t) => t.written.inserted + t.written.updated + t.written.deleted === 0)).toBe(true);
      expect(third.equal).toBe(true);
    } finally {
      await dropAll([target]);
      await svc.close().catch(() => undefined);
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe.each(providers())('schema versions, with a %s target', (provider) => {
  const older = (p: Provider) => loadMigrations(p).slice(0, 3);

  it('an empty target an older version migrated is brought up to date in the copy; an older source is refused until it is migrated', async () => {
    const svc = await startTestService('sqlite');
    const [target, oldSource] = [await createTestDatabase(provider), await createTestDatabase('sqlite')];
    try {
      await populateApp(svc, await svc.createApp());
      await svc.services.close();
      if (provider === 'sqlite') migrateSqlite(sqliteFilename(target.url), older('sqlite'));
      else await migratePostgres(target.url, older('postgresql'));
      const result = await copyData({ from: svc.config.databaseUrl, to: target.url });
      expect(result.applied).toEqual(loadMigrations(provider).slice(3).map((m) => m.name));
      expect(result.equal).toBe(true);

      migrateSqlite(sqliteFilename(oldSource.url), older('sqlite'));
      const fresh = await createTestDatabase(provider);
      const behind = loadMigrations('sqlite').length - 3;
      await expect(copyData({ from: oldSource.url, to: fresh.url })).rejects.toThrow(
        new RegExp(`is on an older schema 20261123020000_tenant_foreign_keys \\(${behind} migrations behind\\): run this version's \`migrate\` \\(or start its service\\) on it once, then copy`),
      );
      expect((await rawDump(fresh.url)).tables).toEqual({});
      await fresh.drop();
    } finally {
      await dropAll([target, oldSource]);
      await svc.close().catch(() => undefined);
    }
  });
});
