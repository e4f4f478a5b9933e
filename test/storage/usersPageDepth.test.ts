/**
 * The console's users page (issue 36) at 100 000 users of one app: its first page and a page near
 * the end of the list are the same bounded work. The page lists with `services.users.page(appId,
 * after, 50)`, or `services.users.search(appId, q, after, 50)` for a userId prefix (and shows the
 * kept count, one primary-key read). Here both are called at both depths on a store whose driver
 * records each statement, its values and the rows it answered, and each recorded statement's plan
 * is read from the database itself (SQLite `EXPLAIN QUERY PLAN`; PostgreSQL `EXPLAIN ANALYZE`,
 * with the rows each step actually read). Speed itself is the bench's
 * (`node bench/run.mjs --only "users page 100k" --soak 0`), not a timed test's.
 */
import { Client } from 'pg';
import { loadConfig } from '../../src/server/core/config';
import { createServices, type Services } from '../../src/server/services';
import { openStore, sqliteFilename, type SqlDriver, type Store } from '../../src/server/store';
import { queriesOn } from '../../src/server/store/sql/queriesOn';
import { positionalStatement, statementSql, type ReadStatement } from '../../src/server/store/sql/statements';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { seededUserId, seedUsers } from '../support/seedUsers';
import { MANAGEMENT_KEY, createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const USERS = 100_000;
const PAGE = 50;
const APP = 'deepapp';
const OTHER = 'otherapp';
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);
/** The page after user 99 900: the third page from the end. */
const DEEP_AFTER = seededUserId(USERS - 100);

interface Read {
  statement: ReadStatement;
  params: Record<string, unknown>;
  rows: number;
}

/** The store's driver, recording every read it runs, with its values and how many rows it answered (writes are not expected here). */
function recordingDriver(driver: SqlDriver, reads: Read[]): SqlDriver {
  return new Proxy(driver, {
    get(target, property, receiver) {
      if (property === 'read') {
        return async (statement: ReadStatement, params: Record<string, unknown>) => {
          const row = await target.read(statement, params);
          reads.push({ statement, params, rows: row ? 1 : 0 });
          return row;
        };
      }
      if (property === 'readAll') {
        return async (statement: ReadStatement, params: Record<string, unknown>) => {
          const rows = await target.readAll(statement, params);
          reads.push({ statement, params, rows: rows.length });
          return rows;
        };
      }
      const value = Reflect.get(target, property, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  'Rows Removed by Index Recheck'?: number;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The page's two ways to list: every user by key, and by userId prefix (`?q=`; `user-` is every seeded user, so it goes as deep). */
const LISTINGS = {
  every: (services: Services, after: string | undefined) => services.users.page(APP, after, PAGE),
  prefix: (services: Services, after: string | undefined) => services.users.search(APP, 'user-', after, PAGE),
};
const DEPTHS = { first: undefined, 'near the end': DEEP_AFTER };

describe.each(providers())('the users page at 100 000 users on %s', (provider) => {
  let database: TestDatabase;
  let store: Store;
  let services: Services;
  const reads: Read[] = [];

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent' });
    const opened = openStore(config.databaseUrl);
    await opened.migrate();
    const sql = recordingDriver(opened.sql, reads);
    store = { ...opened, sql, queries: queriesOn(sql) };
    services = createServices(config, store, { flushIntervalMs: 0, deletionSweepIntervalMs: 0, reportSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, webhooks: { pollIntervalMs: 0 } });
    for (const appId of [APP, OTHER]) await services.apps.create(appId, { adminEmail: 'owner@example.com' });
    // Another app as large beside it, so that a plan scoped by the app has something to leave out.
    for (const appId of [APP, OTHER]) await seedUsers(database.url, appId, { count: USERS, at: T0 });
  }, 240_000);

  afterAll(async () => {
    await services?.close();
    await database?.drop();
  });

  /** The reads of one page of each listing at each depth, made once. */
  const made: Record<string, { userIds: string[]; reads: Read[] }> = {};
  const key = (listing: string, depth: string) => `${listing} ${depth}`;
  beforeAll(async () => {
    for (const [listing, list] of Object.entries(LISTINGS)) {
      for (const [depth, after] of Object.entries(DEPTHS)) {
        reads.length = 0;
        const page = await list(services, after);
        made[key(listing, depth)] = { userIds: page.values.map((u) => u.userId), reads: [...reads] };
      }
    }
  });

  it.each(Object.keys(LISTINGS))('lists by %s with the same statements at the first page and near the end, each answering one page of rows', (listing) => {
    const first = made[key(listing, 'first')];
    const deep = made[key(listing, 'near the end')];
    expect(first.userIds).toEqual(Array.from({ length: PAGE }, (_, i) => seededUserId(i)));
    expect(deep.userIds).toEqual(Array.from({ length: PAGE }, (_, i) => seededUserId(USERS - 99 + i)));
    // Order-free: a page's aliases and passkeys are read at once.
    const shape = (list: Read[]) => list.map(({ statement, rows }) => ({ statement, rows })).sort((a, b) => a.statement.localeCompare(b.statement));
    expect(shape(first.reads)).toHaveLength(3);
    expect(shape(first.reads).every((read) => read.rows === PAGE)).toBe(true);
    expect(shape(deep.reads)).toEqual(shape(first.reads));
  });

  it('ends the list after its last user', async () => {
    expect((await services.users.page(APP, seededUserId(USERS - PAGE - 1), PAGE)).next).not.toBeNull();
    expect((await services.users.page(APP, seededUserId(USERS - 1), PAGE)).next).toBeNull();
    expect((await services.users.search(APP, 'user-', seededUserId(USERS - 1), PAGE)).values).toEqual([]);
  });

  if (provider === 'sqlite') {
    it.each(Object.keys(LISTINGS))('plans each statement of the listing by %s as the same search of an index at both depths, never a scan of a table', (listing) => {
      const db = openSqliteConnection(sqliteFilename(database.url), { readonly: true });
      try {
        const plansOf = (depth: string) =>
          made[key(listing, depth)].reads.map(({ statement, params }) => ({
            statement,
            plan: (db.prepare(`EXPLAIN QUERY PLAN ${statementSql(statement, 'sqlite')}`).all(params) as { detail: string }[]).map((r) => r.detail),
          }));
        const first = plansOf('first');
        expect(plansOf('near the end')).toEqual(first);
        for (const { statement, plan } of first) {
          // json_each reads the statement's own parameter (the page's userIds), not a table.
          expect({ statement, scans: plan.filter((d) => /^SCAN /.test(d) && !/^SCAN json_each/.test(d)) }).toEqual({ statement, scans: [] });
          const searches = plan.filter((d) => /^SEARCH /.test(d));
          expect(searches.length).toBeGreaterThan(0);
          for (const detail of searches) expect(detail).toMatch(/^SEARCH (User|Alias|Credential) USING (COVERING )?INDEX \w+ \(tenant=\? AND userId/);
        }
      } finally {
        db.close();
      }
    });
  } else {
    it.each(Object.keys(LISTINGS))('reads one page of rows of an index for the listing by %s at both depths (EXPLAIN ANALYZE), never a sequential scan', async (listing) => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        for (const depth of Object.keys(DEPTHS)) {
          for (const { statement, params } of made[key(listing, depth)].reads) {
            const { text, names } = positionalStatement(statementSql(statement, 'postgresql'));
            const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, names.map((name) => params[name]));
            const scans = nodesOf((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan).filter((node) => node['Relation Name'] !== undefined);
            expect(scans.length).toBeGreaterThan(0);
            for (const node of scans) {
              // What the step read: the rows it passed on, and those it looked at and dropped.
              const read = (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
              expect({ statement, depth, node: node['Node Type'], read: read <= PAGE }).toEqual({ statement, depth, node: expect.stringMatching(/Index/), read: true });
            }
          }
        }
      } finally {
        await client.end();
      }
    });
  }
});
