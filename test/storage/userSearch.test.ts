/**
 * Users by userId prefix (`UserService.search`, the console's user search): exactly the userIds
 * that start with the prefix, in the order of their UTF-8 bytes, paged by key, on SQLite, on
 * PostgreSQL, and on a PostgreSQL database whose collation (ICU en-US) sorts `Ab` and `àb` among
 * the userIds that start with `a`: there a range of the primary key would not be the prefix's users.
 * test/storage/queryPlans.test.ts shows that each page is one range of an index.
 */
import { Client } from 'pg';
import { ApiError } from '../../src/server/core/apiError';
import { decodeCursor } from '../../src/server/core/pageCursor';
import { utcDayOf } from '../../src/server/core/utcDay';
import type { Services } from '../../src/server/services';
import type { UserView } from '../../src/server/services/users/users';
import { inProcessService, type InProcessService } from '../support/inProcessWebhookService';
import { createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

/** Userids whose order differs between bytes, UTF-16 and a linguistic collation, and prefixes with LIKE's wildcards. */
const USER_IDS = [
  'a', 'a%', 'a%b', 'a%%', 'a_', 'a_b', 'aXb', 'ab', 'abc', 'ab%', 'ab_', 'a-b', 'a.b', 'ac', 'Ab', 'AB', 'àb', 'b',
  'zoe', 'zoë', 'zoë-2', 'zoê', 'Zoë', 'zoë\u0301',
  'émile', 'e', 'E', 'é', 'ｅ', '\uFFFD', '\uFFFDx', '😀', '😀x', '😀😀', '😁', '\u{10FFFF}', '\u{10FFFF}a',
  'user-1', 'user-10', 'user-2', 'user_1', 'user%1',
];
const PREFIXES = ['', 'a', 'a%', 'a_', 'ab', 'A', 'à', 'zoë', 'é', 'e', '😀', '\uFFFD', '\u{10FFFF}', 'user', 'user-1', 'user_', 'user%', 'nobody', '%', '_'];

const bytes = (text: string) => Buffer.from(text, 'utf8');
const byBytes = (a: string, b: string) => Buffer.compare(bytes(a), bytes(b));

/** Each userId a user of the app: a passkey each, every other one also an alias. */
async function givenUsers(services: Services, appId: string, userIds: string[]): Promise<void> {
  const now = Date.now();
  for (const [i, userId] of userIds.entries()) {
    const outcome = await services.store.queries.storeRegistration({
      webhookDeliveries: [],
      tenant: appId,
      credential: {
        descriptorId: `cred-${i}-${appId}`,
        userId,
        userHandle: Buffer.from(userId).toString('base64url'),
        publicKey: 'pQECAyYgASFYIA',
        signatureCounter: 0,
        attestationFmt: 'none',
        aaGuid: '00000000-0000-0000-0000-000000000000',
        transports: '[]',
        rpid: 'example.com',
        origin: 'https://example.com',
        country: '',
        device: '',
        nickname: '',
        backupEligible: false,
        backupState: false,
        isDiscoverable: true,
        uvInitialized: true,
        createdAt: now,
        lastUsedAt: now,
        lastUsedDay: utcDayOf(now),
        prfSalt: null,
        prfEnabled: null,
        madeByUpgrade: false,
      },
      aliases: i % 2 === 0 ? [{ aliasHash: `hash-${i}-${appId}`, plaintext: `alias-${i}` }] : undefined,
    });
    if (!outcome.ok) throw new Error(`storing a passkey for ${userId} failed: ${JSON.stringify(outcome)}`);
  }
}

/** Every page of a search, `limit` at a time, following `next`. */
async function searchAll(services: Services, appId: string, prefix: string, limit: number): Promise<{ pages: UserView[][]; users: UserView[] }> {
  const pages: UserView[][] = [];
  let after: string | undefined;
  for (;;) {
    const page = await services.users.search(appId, prefix, after, limit);
    pages.push(page.values);
    if (page.next === null) break;
    after = decodeCursor(page.next);
    expect(after).toBe(page.values[page.values.length - 1].userId);
    if (pages.length > USER_IDS.length + 2) throw new Error('the pages do not end');
  }
  return { pages, users: pages.flat() };
}

/** A PostgreSQL database for this suite whose collation is ICU's en-US (not byte order). */
async function createIcuDatabase(): Promise<TestDatabase> {
  const adminUrl = process.env.TEST_DATABASE_URL!;
  const name = `pwl_icu_${Date.now().toString(36)}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}" TEMPLATE template0 LOCALE_PROVIDER icu ICU_LOCALE 'en-US' LOCALE 'C.UTF-8'`);
  } finally {
    await admin.end();
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const c = new Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      await c.end();
    },
  };
}

const databases: [string, () => Promise<TestDatabase>][] = [
  ...providers().map((provider): [string, () => Promise<TestDatabase>] => [provider, () => createTestDatabase(provider)]),
  ...(process.env.TEST_DATABASE_URL ? [['postgresql with an ICU en-US collation', createIcuDatabase] as [string, () => Promise<TestDatabase>]] : []),
];

describe.each(databases)('users by userId prefix on %s', (_name, createDatabase) => {
  let database: TestDatabase;
  let service: InProcessService;
  let services: Services;
  const appId = uniqueAppId('search');
  const otherAppId = uniqueAppId('other');

  beforeAll(async () => {
    database = await createDatabase();
    service = await inProcessService(database, {}, { flushIntervalMs: 0 });
    services = service.services;
    for (const id of [appId, otherAppId]) await services.apps.create(id, { adminEmail: 'admin@example.com' });
    await givenUsers(services, appId, USER_IDS);
    // Another app's users share the prefixes and are never found.
    await givenUsers(services, otherAppId, ['a', 'ab', 'a%b', 'zoë', '😀', 'user-1', 'user-99']);
  }, 60_000);
  afterAll(async () => {
    await service.close();
    await database.drop();
  });

  it.each(PREFIXES.map((prefix) => [prefix]))('finds exactly the userIds that start with %j, in byte order, a page at a time', async (prefix) => {
    const expected = USER_IDS.filter((userId) => userId.startsWith(prefix)).sort(byBytes);
    for (const limit of [1, 3, 1000]) {
      const { pages, users } = await searchAll(services, appId, prefix, limit);
      expect({ limit, found: users.map((u) => u.userId) }).toEqual({ limit, found: expected });
      // Full pages but the last, which is short (or empty when the one before it was full).
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      expect(pages[pages.length - 1].length).toBeLessThan(limit === 1000 ? 1001 : limit + 1);
    }
  });

  it('answers each user as users/list does: aliases, passkey count, last use', async () => {
    const page = await services.users.search(appId, 'zoë', undefined, 10);
    const zoe = page.values.find((u) => u.userId === 'zoë')!;
    const index = USER_IDS.indexOf('zoë');
    expect(zoe).toEqual({
      userId: 'zoë',
      aliasCount: index % 2 === 0 ? 1 : 0,
      aliases: index % 2 === 0 ? [`alias-${index}`] : [],
      credentialsCount: 1,
      lastUsedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    // The same view as a users/list page gives.
    const listed = (await services.users.page(appId, undefined, 1000)).values.find((u) => u.userId === 'zoë');
    expect(zoe).toEqual(listed);
  });

  it('continues after any userId, one in the prefix’s range or not', async () => {
    const expected = USER_IDS.filter((userId) => userId.startsWith('a')).sort(byBytes);
    expect((await services.users.search(appId, 'a', 'ab', 1000)).values.map((u) => u.userId)).toEqual(expected.filter((id) => byBytes(id, 'ab') > 0));
    // Before the prefix: from its first user; past it: nothing.
    expect((await services.users.search(appId, 'a', 'A', 1000)).values.map((u) => u.userId)).toEqual(expected);
    expect((await services.users.search(appId, 'a', 'b', 1000)).values).toEqual([]);
    expect((await services.users.search(appId, 'a', 'a\u{10FFFF}', 1000)).values).toEqual([]);
    // A userId nobody has, between two that match.
    expect((await services.users.search(appId, 'a', 'abb', 1000)).values.map((u) => u.userId)).toEqual(expected.filter((id) => byBytes(id, 'abb') > 0));
  });

  it.each([
    ['a prefix with a NUL', 'a\u0000', undefined, 10, 'prefix'],
    ['a prefix with an unpaired surrogate', 'a\uD800', undefined, 10, 'prefix'],
    ['an after with a NUL', 'a', 'a\u0000', 10, 'after'],
    ['a limit of 0', 'a', undefined, 0, 'limit'],
    ['a limit of 1001', 'a', undefined, 1001, 'limit'],
    ['a fractional limit', 'a', undefined, 1.5, 'limit'],
  ] as const)('refuses %s with a 400 naming the field', async (_case, prefix, after, limit, field) => {
    const error = await services.users.search(appId, prefix, after, limit).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect({ status: (error as ApiError).status, code: (error as ApiError).code, fields: Object.keys(((error as ApiError).extras as { errors: object }).errors) }).toEqual({
      status: 400,
      code: 'validation_failed',
      fields: [field],
    });
  });
});
