/**
 * A daily report's active-user counts must cost what the active users cost, not what all of an
 * app's passkeys cost: the query Prisma sends for them is planned as a range of the
 * (tenant, lastUsedDay, userId) index on both providers, over an app with many passkeys and
 * statistics gathered, never as a scan of the app's credentials.
 */
import { PrismaPg } from '@prisma/adapter-pg';
import Database from 'better-sqlite3';
import { Client, Pool } from 'pg';
import { PrismaClient as SqliteClient } from '../../src/server/store/generated/sqlite/client';
import { PrismaClient as PostgresClient } from '../../src/server/store/generated/postgresql/client';
import { openStore, sqliteFilename } from '../../src/server/store';
import { SqliteAdapterFactory } from '../../src/server/store/sqlite';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const PASSKEYS = 20_000;
const TODAY = 20_000;

interface Logged {
  query: string;
  params: string;
}

type Delegates = Pick<SqliteClient, 'credential' | 'app' | '$disconnect'>;

/** A Prisma client of the provider that reports the SQL it sends. */
function loggingClient(provider: string, url: string): { client: Delegates; queries: Logged[]; close(): Promise<void> } {
  const queries: Logged[] = [];
  const log = [{ emit: 'event', level: 'query' }] as const;
  if (provider === 'sqlite') {
    const client = new SqliteClient({ adapter: new SqliteAdapterFactory(sqliteFilename(url)), log: [...log] });
    client.$on('query', (event) => void queries.push(event));
    return { client, queries, close: () => client.$disconnect() };
  }
  const pool = new Pool({ connectionString: url, max: 2 });
  const client = new PostgresClient({ adapter: new PrismaPg(pool), log: [...log] });
  client.$on('query', (event) => void queries.push(event));
  return { client: client as unknown as Delegates, queries, close: async () => (await client.$disconnect(), await pool.end()) };
}

async function plan(provider: string, url: string, { query, params }: Logged): Promise<string> {
  const values = JSON.parse(params) as unknown[];
  if (provider === 'sqlite') {
    const db = new Database(sqliteFilename(url), { readonly: true });
    try {
      return (db.prepare(`EXPLAIN QUERY PLAN ${query}`).all(...(values as (string | number)[])) as { detail: string }[]).map((row) => row.detail).join('\n');
    } finally {
      db.close();
    }
  }
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(`EXPLAIN ${query}`, values)).rows.map((row: Record<string, string>) => row['QUERY PLAN']).join('\n');
  } finally {
    await client.end();
  }
}

describe.each(providers())('the active-user counts on %s', (provider) => {
  let database: TestDatabase;
  let expected: (since: number) => number;
  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const store = openStore(database.url);
    await store.migrate();
    for (const tenant of ['bigapp', 'otherapp']) await store.db.app.create({ data: { id: tenant, adminEmail: 'owner@example.com' } });
    await store.close();
    // A year of history: most passkeys were last used long ago, a few today. Written past Prisma,
    // whose createMany takes a second per thousand rows here.
    const rows = Array.from({ length: PASSKEYS }, (_, i) => ({ tenant: i % 10 === 0 ? 'otherapp' : 'bigapp', descriptorId: `cred-${i}`, userId: `user-${i % 15_000}`, lastUsedDay: TODAY - (i % 365) }));
    expected = (since) => new Set(rows.filter((row) => row.tenant === 'bigapp' && row.lastUsedDay >= since).map((row) => row.userId)).size;
    const insert = `INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "rpid", "origin", "lastUsedDay")`;
    if (provider === 'sqlite') {
      const db = new Database(sqliteFilename(database.url));
      const statement = db.prepare(`${insert} VALUES (@tenant, @descriptorId, @userId, 'dQ', 'pk', 'example.com', 'https://example.com', @lastUsedDay)`);
      db.transaction(() => rows.forEach((row) => statement.run(row)))();
      db.exec('ANALYZE');
      db.close();
    } else {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      await client.query(
        `${insert} SELECT CASE WHEN i % 10 = 0 THEN 'otherapp' ELSE 'bigapp' END, 'cred-' || i, 'user-' || (i % 15000), 'dQ', 'pk', 'example.com', 'https://example.com', $1::int - (i % 365)
         FROM generate_series(0, $2::int - 1) AS i`,
        [TODAY, PASSKEYS],
      );
      await client.query('ANALYZE "Credential"');
      await client.end();
    }
  });
  afterAll(() => database.drop());

  it('reads a range of the (tenant, lastUsedDay, userId) index, and counts what the daily report counts', async () => {
    const { client, queries, close } = loggingClient(provider, database.url);
    try {
      for (const since of [TODAY, TODAY - 6]) {
        queries.length = 0;
        const users = await client.credential.groupBy({ by: ['userId'], where: { tenant: 'bigapp', lastUsedDay: { gte: since } } });
        expect(users.length).toBe(expected(since));
        expect(users.length).toBeGreaterThan(0);
        const [sent] = queries;
        const explained = await plan(provider, database.url, sent);
        expect(explained).toContain('Credential_tenant_lastUsedDay_userId_idx');
        expect(explained).not.toMatch(provider === 'sqlite' ? /SCAN (main\.)?Credential\b/ : /Seq Scan/);
      }
    } finally {
      await close();
    }
  });
});
