/**
 * No hot-path statement reads more of an app than it answers: each is a search of a primary key or
 * index (never a scan of a table), checked with the databases' own planners on the very SQL the
 * service runs (SQLite `EXPLAIN QUERY PLAN`, PostgreSQL `EXPLAIN`), on two apps of 20 000 users
 * each (passkeys, aliases and events included), analysed as PostgreSQL's autovacuum would.
 * test/http/hotPath.test.ts shows that users/count, a users/list page, credentials/list, the
 * registration ceremony and /events use these statements and nothing else.
 */
import { Client } from 'pg';
import { openStore, sqliteFilename, type Store } from '../../src/server/store';
import { STATEMENTS, positionalStatement, statementSql, type StatementName } from '../../src/server/store/sql/statements';
import { sqliteCodec } from '../../src/server/store/sql/sqliteCodec';

const sqliteTime = sqliteCodec.time;
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { seededUserId, seedUsers } from '../support/seedUsers';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const USERS = 20_000;
const APPS = ['planapp', 'otherapp'];
/** Other apps (with their counter rows) and redeemed tokens, so that the planner sees those tables at a size where a key beats reading them. */
const FILLER_APPS = 5_000;
const T0 = Date.UTC(2026, 10, 25, 12, 0, 0, 0);

/** Values a request would bind: a page in the middle of the app, a user, a passkey, an event. */
function paramsFor(encodeTime: (ms: number) => unknown, bool: (b: boolean) => unknown): Record<string, unknown> {
  return {
    tenant: 'planapp',
    userId: seededUserId(10_000),
    descriptorId: 'cred-10000',
    id: 'planapp-event-0010000',
    after: seededUserId(10_000),
    last: seededUserId(10_999),
    limit: 1000,
    aliasCount: 1,
    aliasHash: 'alias-10000',
    plaintext: null,
    expiresAt: encodeTime(T0),
    tokenId: 'token-1',
    newCounter: 1,
    storedCounter: 0,
    backupState: bool(false),
    uvInitialized: bool(false),
    usedAt: encodeTime(T0),
    device: '',
    country: '',
    performedAt: encodeTime(T0 + 10_000),
    userHandle: 'dXNlcg',
    publicKey: 'pQECAyYgASFYIA',
    signatureCounter: 0,
    attestationFmt: 'none',
    aaGuid: '00000000-0000-0000-0000-000000000000',
    transports: '[]',
    rpid: 'example.com',
    origin: 'https://example.com',
    nickname: '',
    backupEligible: bool(false),
    isDiscoverable: null,
    madeByUpgrade: bool(false),
    createdAt: encodeTime(T0),
    lastUsedAt: encodeTime(T0),
    lastUsedDay: 20_417,
    prfSalt: null,
    prfEnabled: null,
    usedDay: 20_418,
    events: '[]',
    deliveries: '[]',
    signIns: JSON.stringify([{ tenant: 'planapp', day: '2026-11-25', passkey: 1, magicLink: 0, generatedToken: 0 }]),
    count: 1,
    // A search of userIds by prefix (10 000 of them start with it), and a page's users by their ids.
    from: 'user-001',
    below: 'user-002',
    userIds: JSON.stringify(Array.from({ length: 1000 }, (_, i) => seededUserId(10_000 + i))),
    // The console's filtered log: a window from T0, of a type, cut 1 000 events down.
    sinceAt: encodeTime(T0),
    sinceId: '',
    types: JSON.stringify(['ApiUserDeleted']),
    skip: 999,
  };
}

async function withPostgres<T>(url: string, use: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/** Two apps of USERS users each, other apps and redeemed tokens (so that the planner sees those tables at a size where a key beats reading them). */
async function seed(provider: string, url: string): Promise<void> {
  const expiresAt = T0 + 90_000; // redeemed ids are kept past the moment the statements are planned for, as real ones are
  if (provider === 'sqlite') {
    const db = openSqliteConnection(sqliteFilename(url));
    try {
      const fillers = `WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i < ${FILLER_APPS - 1}) SELECT i FROM n`;
      db.exec(`INSERT INTO "App" ("id", "adminEmail") SELECT printf('filler%05d', i), 'owner@example.com' FROM (${fillers})`);
      db.exec(`INSERT INTO "AppCounter" ("tenant", "userCount") SELECT printf('filler%05d', i), 1 FROM (${fillers})`);
      db.exec(`INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt") SELECT printf('filler%05d', i), printf('token-%05d', i), '${sqliteTime(expiresAt)}' FROM (${fillers})`);
      for (const app of APPS) db.exec(`INSERT INTO "App" ("id", "adminEmail") VALUES ('${app}', 'owner@example.com')`);
    } finally {
      db.close();
    }
  } else {
    await withPostgres(url, async (client) => {
      await client.query(`INSERT INTO "App" ("id", "adminEmail") SELECT 'filler' || lpad(i::text, 5, '0'), 'owner@example.com' FROM generate_series(0, ${FILLER_APPS - 1}) AS i`);
      await client.query(`INSERT INTO "AppCounter" ("tenant", "userCount") SELECT 'filler' || lpad(i::text, 5, '0'), 1 FROM generate_series(0, ${FILLER_APPS - 1}) AS i`);
      await client.query(`INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt")
        SELECT 'filler' || lpad(i::text, 5, '0'), 'token-' || lpad(i::text, 5, '0'), '${new Date(expiresAt).toISOString()}' FROM generate_series(0, ${FILLER_APPS - 1}) AS i`);
      for (const app of APPS) await client.query(`INSERT INTO "App" ("id", "adminEmail") VALUES ('${app}', 'owner@example.com')`);
    });
  }
  // seedUsers analyses PostgreSQL's tables afterwards, as its autovacuum would.
  for (const app of APPS) await seedUsers(url, app, { count: USERS, at: T0, events: true });
}

/** Every table access of a SQLite plan, and those that read a whole table. */
function sqlitePlan(url: string, statement: StatementName, params: Record<string, unknown>): { details: string[]; scans: string[] } {
  const db = openSqliteConnection(sqliteFilename(url), { readonly: true });
  try {
    const rows = db.prepare(`EXPLAIN QUERY PLAN ${statementSql(statement, 'sqlite')}`).all(params) as { detail: string }[];
    const details = rows.map((r) => r.detail);
    // json_each reads the statement's own parameter (a batch of events), not a table.
    return { details, scans: details.filter((d) => /^SCAN /.test(d) && d !== 'SCAN CONSTANT ROW' && !/^SCAN json_each /.test(d)) };
  } finally {
    db.close();
  }
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  'Index Cond'?: string;
  'Scan Direction'?: string;
  'Actual Rows'?: number;
  Plans?: PlanNode[];
}

/** Every node of a PostgreSQL plan, flattened. */
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** The plan PostgreSQL makes for the statement with these values; `analyze` runs it (reads only) and adds the rows each step produced. */
async function postgresPlan(url: string, statement: StatementName, params: Record<string, unknown>, { analyze = false } = {}): Promise<PlanNode[]> {
  const { text, names } = positionalStatement(statementSql(statement, 'postgresql'));
  return withPostgres(url, async (client) => {
    const { rows } = await client.query(`EXPLAIN (${analyze ? 'ANALYZE, ' : ''}FORMAT JSON) ${text}`, names.map((name) => params[name]));
    return nodesOf((rows[0]['QUERY PLAN'] as { Plan: PlanNode }[])[0].Plan);
  });
}

/**
 * The statements off the request path, whose tables this test does not fill: the writes a webhook
 * reports away from the hot path (one row by its key each), the checks of a test event and an
 * endpoint create, and the webhook worker's claims and records (whose index use
 * test/http/webhooks.test.ts shows by the claim's cost not growing with the backlog).
 */
const OFF_THE_REQUEST_PATH = new Set<StatementName>([
  'renameCredential',
  'insertDispatchedEmail',
  'putAuthenticators',
  'removeAuthenticators',
  'scheduleAppDeletion',
  'cancelAppDeletion',
  'lockApp',
  'insertWebhookEndpointWithin',
  'requestedSendRoom',
  'claimWebhookHeads',
  'renewWebhookClaims',
  'insertWebhookAttempts',
  'markWebhookDeliveriesDelivered',
]);
const NAMES = (Object.keys(STATEMENTS) as StatementName[]).filter((name) => !OFF_THE_REQUEST_PATH.has(name));

describe.each(providers())('query plans of the hot path on %s', (provider) => {
  let database: TestDatabase;
  let store: Store;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    store = openStore(database.url);
    await store.migrate();
    await seed(provider, database.url);
  }, 120_000);
  afterAll(async () => {
    await store.close();
    await database.drop();
  });

  if (provider === 'sqlite') {
    const params = paramsFor(sqliteTime, (b) => (b ? 1 : 0));

    it.each(NAMES.map((s) => [s]))('%s searches keys and indexes only, never a table scan', (statement) => {
      const { details, scans } = sqlitePlan(database.url, statement, params);
      expect({ statement, scans }).toEqual({ statement, scans: [] });
      // Every table it reads, it reads through a key: users/list's page by the User primary key, its aliases and passkeys by their (tenant, userId) index.
      for (const detail of details.filter((d) => /^SEARCH /.test(d))) expect(detail).toMatch(/USING (COVERING )?INDEX|USING (INTEGER )?PRIMARY KEY/);
    });

    it('reads a users/list page in key order, with no sort of the app’s users, and users/count from the app’s row', () => {
      expect(sqlitePlan(database.url, 'usersPage', params).details).toEqual([expect.stringMatching(/^SEARCH User USING (COVERING )?INDEX sqlite_autoindex_User_1 \(tenant=\? AND userId>\?\)$/)]);
      expect(sqlitePlan(database.url, 'countUsers', params).details).toEqual([expect.stringMatching(/^SEARCH AppCounter USING INDEX sqlite_autoindex_AppCounter_1 \(tenant=\?\)$/)]);
      expect(sqlitePlan(database.url, 'eventsPageAfter', params).details).toEqual([expect.stringMatching(/^SEARCH Event USING INDEX Event_tenant_performedAt_id_idx \(tenant=\? AND \(performedAt,id\)<\(\?,\?\)\)$/)]);
      // The page's aliases and passkeys: the range of its userIds, not the app.
      for (const statement of ['usersPageAliases', 'usersPageCredentials'] as const) {
        expect(sqlitePlan(database.url, statement, params).details[0]).toMatch(/^SEARCH (Alias|Credential) USING INDEX \w+_tenant_userId_idx \(tenant=\? AND userId>\? AND userId<\?\)$/);
      }
    });

    it('reads a search of userIds by prefix as one range of the users’ key, and its users’ aliases and passkeys by their ids', () => {
      expect(sqlitePlan(database.url, 'usersSearch', params).details).toEqual([expect.stringMatching(/^SEARCH User USING (COVERING )?INDEX sqlite_autoindex_User_1 \(tenant=\? AND userId>\? AND userId<\?\)$/)]);
      expect(sqlitePlan(database.url, 'usersSearchToEnd', params).details).toEqual([expect.stringMatching(/^SEARCH User USING (COVERING )?INDEX sqlite_autoindex_User_1 \(tenant=\? AND userId>\?\)$/)]);
      for (const statement of ['usersAliasesOf', 'usersCredentialsOf'] as const) {
        expect(sqlitePlan(database.url, statement, params).details).toContainEqual(expect.stringMatching(/^SEARCH (Alias|Credential) USING INDEX \w+_tenant_userId_idx \(tenant=\? AND userId=\?\)$/));
      }
    });

    it('reads a filtered page of the log as one range of its (tenant, performedAt, id) index between two keys, and cuts it by the index alone', () => {
      const between = /^SEARCH Event USING (COVERING )?INDEX Event_tenant_performedAt_id_idx \(tenant=\? AND \(performedAt,id\)>\(\?,\?\) AND \(performedAt,id\)<\(\?,\?\)\)$/;
      for (const statement of ['eventsBetween', 'eventsOfTypesBetween'] as const) expect(sqlitePlan(database.url, statement, params).details).toContainEqual(expect.stringMatching(between));
      expect(sqlitePlan(database.url, 'eventsWindowEdge', params).details).toEqual([expect.stringMatching(/^SEARCH Event USING COVERING INDEX Event_tenant_performedAt_id_idx /)]);
    });
  } else {
    const params = paramsFor((ms) => new Date(ms).toISOString(), (b) => b);

    it.each(NAMES.map((s) => [s]))('%s searches keys and indexes only, never a table scan', async (statement) => {
      const nodes = await postgresPlan(database.url, statement, params);
      // A function scan reads the statement's own parameter (a batch of events as JSON), not a table.
      const scans = nodes.filter((n) => /Scan/.test(n['Node Type']) && n['Node Type'] !== 'Function Scan');
      expect({ statement, seqScans: scans.filter((n) => n['Node Type'] === 'Seq Scan').map((n) => n['Relation Name']) }).toEqual({ statement, seqScans: [] });
      // A bitmap heap scan reads the rows its bitmap index scan found, by the index condition.
      for (const scan of scans.filter((n) => n['Node Type'] !== 'Bitmap Heap Scan')) {
        expect({ statement, node: scan['Node Type'], cond: scan['Index Cond'] }).toEqual({ statement, node: expect.stringMatching(/Index/), cond: expect.stringMatching(/tenant|id/) });
      }
    });

    it('reads a users/list page in key order, with no sort of the app’s users, and users/count from the app’s row', async () => {
      const page = await postgresPlan(database.url, 'usersPage', params);
      expect(page.map((n) => [n['Node Type'], n['Index Name']])).toEqual([
        ['Limit', undefined],
        [expect.stringMatching(/^Index (Only )?Scan$/), 'User_pkey'],
      ]);
      expect((await postgresPlan(database.url, 'countUsers', params)).map((n) => [n['Node Type'], n['Index Name']])).toEqual([['Index Scan', 'AppCounter_pkey']]);
      // Run, not only planned: no step of a page, its aliases and passkeys, the count or an events page reads more rows than a page holds, in an app of 20 000 users.
      for (const statement of ['usersPage', 'usersPageAliases', 'usersPageCredentials', 'countUsers', 'eventsPage', 'eventsPageAfter', 'userCapacity', 'listCredentials', 'usersSearch', 'usersSearchToEnd', 'usersAliasesOf', 'usersCredentialsOf', 'eventsBetween', 'eventsOfTypesBetween', 'eventsWindowEdge'] as const) {
        const ran = await postgresPlan(database.url, statement, params, { analyze: true });
        const rows = Math.max(...ran.map((n) => n['Actual Rows'] ?? 0));
        expect({ statement, atMostAPage: rows <= 1000, rows }).toEqual({ statement, atMostAPage: true, rows });
      }
      const events = await postgresPlan(database.url, 'eventsPageAfter', params);
      expect(events.map((n) => [n['Node Type'], n['Scan Direction'], n['Index Name']])).toEqual([
        ['Limit', undefined, undefined],
        ['Index Scan', 'Backward', 'Event_tenant_performedAt_id_idx'],
      ]);
    });

    it('reads a search of userIds by prefix in byte order on its own index, and a filtered page of the log as one backward range of the log’s', async () => {
      for (const statement of ['usersSearch', 'usersSearchToEnd'] as const) {
        const nodes = await postgresPlan(database.url, statement, params);
        expect({ statement, nodes: nodes.map((n) => [n['Node Type'], n['Index Name']]) }).toEqual({
          statement,
          nodes: [
            ['Limit', undefined],
            [expect.stringMatching(/^Index (Only )?Scan$/), 'User_tenant_userId_c_idx'],
          ],
        });
      }
      for (const statement of ['eventsBetween', 'eventsOfTypesBetween', 'eventsWindowEdge'] as const) {
        const scans = (await postgresPlan(database.url, statement, params)).filter((n) => /Scan/.test(n['Node Type']) && n['Node Type'] !== 'Function Scan');
        expect({ statement, scans: scans.map((n) => [n['Node Type'], n['Scan Direction'], n['Index Name']]) }).toEqual({
          statement,
          scans: [[expect.stringMatching(/^Index (Only )?Scan$/), 'Backward', 'Event_tenant_performedAt_id_idx']],
        });
      }
    });
  }
});
