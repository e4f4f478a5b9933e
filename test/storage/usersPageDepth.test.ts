/**
 * The console's users page (issue 36) at 100 000 users of one app: its first page and a page near
 * the end of the list are the same bounded work. The page lists with `services.users.page(appId,
 * after, 50)` (and shows the kept count, one primary-key read); here that call is made at both
 * depths on a store whose driver records each statement and the rows it answered, and each
 * statement's plan is read from the database itself at both depths (SQLite `EXPLAIN QUERY PLAN`;
 * PostgreSQL `EXPLAIN ANALYZE`, with the rows each step actually read). Speed itself is the
 * bench's (`node bench/run.mjs --only "users page 100k"`), not a timed test's.
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
  statement: string;
  rows: number;
}

/** The store's driver, recording every read it runs and how many rows each answered (writes are not expected here). */
function recordingDriver(driver: SqlDriver, reads: Read[]): SqlDriver {
  return new Proxy(driver, {
    get(target, property, receiver) {
      if (property === 'read') {
        return async (statement: ReadStatement, params: Record<string, unknown>) => {
          const row = await target.read(statement, params);
          reads.push({ statement, rows: row ? 1 : 0 });
          return row;
        };
      }
      if (property === 'readAll') {
        return async (statement: ReadStatement, params: Record<string, unknown>) => {
          const rows = await target.readAll(statement, params);
          reads.push({ statement, rows: rows.length });
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

  /** The reads one page of the console's users list makes. */
  async function readsOf(after: string | undefined) {
    reads.length = 0;
    const page = await services.users.page(APP, after, PAGE);
    return { page, reads: [...reads] };
  }

  it('answers the first page and a page near the end with the same statements, each answering one page of rows', async () => {
    const first = await readsOf(undefined);
    const deep = await readsOf(DEEP_AFTER);
    expect(first.page.values.map((u) => u.userId)).toEqual(Array.from({ length: PAGE }, (_, i) => seededUserId(i)));
    expect(deep.page.values.map((u) => u.userId)).toEqual(Array.from({ length: PAGE }, (_, i) => seededUserId(USERS - 99 + i)));
    expect(deep.page.values[0]).toMatchObject({ credentialsCount: 1, aliasCount: 1 });
    const expected = [
      { statement: 'usersPage', rows: PAGE },
      { statement: 'usersPageAliases', rows: PAGE },
      { statement: 'usersPageCredentials', rows: PAGE },
    ];
    // Order-free: the page's aliases and passkeys are read at once.
    const sorted = (list: Read[]) => [...list].sort((a, b) => a.statement.localeCompare(b.statement));
    expect(sorted(first.reads)).toEqual(expected);
    expect(sorted(deep.reads)).toEqual(expected);

    // The last page ends the list.
    const last = await readsOf(seededUserId(USERS - PAGE - 1));
    expect(last.page.values).toHaveLength(PAGE);
    expect((await services.users.page(APP, seededUserId(USERS - 1), PAGE)).next).toBeNull();
  });

  /** Each statement of a page, with the values it is bound to at the first page and near the end. */
  const boundAt = (after: string) => [
    ['usersPage', { tenant: APP, after, limit: PAGE }],
    ['usersPageAliases', { tenant: APP, after, last: after === '' ? seededUserId(PAGE - 1) : seededUserId(USERS - 100 + PAGE) }],
    ['usersPageCredentials', { tenant: APP, after, last: after === '' ? seededUserId(PAGE - 1) : seededUserId(USERS - 100 + PAGE) }],
  ] as [ReadStatement, Record<string, unknown>][];

  if (provider === 'sqlite') {
    it('plans each statement as the same range of an index at both depths, never a scan', () => {
      const db = openSqliteConnection(sqliteFilename(database.url), { readonly: true });
      try {
        const plan = (statement: ReadStatement, params: Record<string, unknown>) => (db.prepare(`EXPLAIN QUERY PLAN ${statementSql(statement, 'sqlite')}`).all(params) as { detail: string }[]).map((r) => r.detail);
        const [first, deep] = ['', DEEP_AFTER].map((after) => boundAt(after).map(([statement, params]) => plan(statement, params)));
        expect(deep).toEqual(first);
        expect(first[0]).toEqual([expect.stringMatching(/^SEARCH User USING (COVERING )?INDEX sqlite_autoindex_User_1 \(tenant=\? AND userId>\?\)$/)]);
        for (const details of first.slice(1)) expect(details[0]).toMatch(/^SEARCH (Alias|Credential) USING (COVERING )?INDEX \w+_tenant_userId_idx \(tenant=\? AND userId>\? AND userId<\?\)$/);
        for (const details of first) for (const detail of details) expect(detail).not.toMatch(/^SCAN /);
      } finally {
        db.close();
      }
    });
  } else {
    it('reads one page of rows from an index at both depths (EXPLAIN ANALYZE), never a sequential scan', async () => {
      const client = new Client({ connectionString: database.url });
      await client.connect();
      try {
        for (const after of ['', DEEP_AFTER]) {
          for (const [statement, params] of boundAt(after)) {
            const { text, names } = positionalStatement(statementSql(statement, 'postgresql'));
            const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, names.map((name) => params[name]));
            const nodes = nodesOf((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
            const scans = nodes.filter((node) => node['Relation Name'] !== undefined);
            expect(scans.length).toBeGreaterThan(0);
            expect({ statement, after, seq: scans.filter((node) => node['Node Type'] === 'Seq Scan').length }).toEqual({ statement, after, seq: 0 });
            for (const node of scans) {
              // What the step read: the rows it passed on and those it looked at and dropped.
              const read = (node['Actual Rows'] ?? 0) * (node['Actual Loops'] ?? 1) + (node['Rows Removed by Filter'] ?? 0) + (node['Rows Removed by Index Recheck'] ?? 0);
              expect({ statement, after, read: read <= PAGE }).toEqual({ statement, after, read: true });
            }
          }
        }
      } finally {
        await client.end();
      }
    });
  }
});
