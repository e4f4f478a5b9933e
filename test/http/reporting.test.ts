/**
 * Daily reports: two replicas on one database sweep with one injected clock, day after day, both
 * at once. Each app gets exactly one snapshot per day, and its figures are what was registered and
 * signed in. `/reporting/*` answers them by day, for the app of the key only.
 */
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { DAY_MS, utcDateOf, utcDayOf } from '../../src/server/core/utcDay';
import { createServices, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { registerPasskey, signIn, type ServiceHttp } from '../support/ceremonies';
import { expectProblem } from '../support/http';
import type { SoftCredential } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const HOUR = 3_600_000;

interface Replica {
  services: Services;
  http: ReturnType<typeof supertest>;
}

describe.each(providers())('daily reports on %s', (provider) => {
  let database: TestDatabase;
  let replicas: Replica[];
  // Ahead of the real clock, so that every app can be dated on the injected one.
  const DAY0 = utcDayOf(Date.now()) + 2;
  let now = DAY0 * DAY_MS + 10 * HOUR;
  const at = (day: number, hours: number) => {
    now = (DAY0 + day) * DAY_MS + hours * HOUR;
  };
  const date = (day: number) => utcDateOf(DAY0 + day);

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md') });
    replicas = [];
    for (let i = 0; i < 2; i++) {
      const store = openStore(config.databaseUrl);
      await store.migrate();
      const services = createServices(config, store, { now: () => now, reportSweepIntervalMs: 0, deletionSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, flushIntervalMs: 0 });
      replicas.push({ services, http: supertest(createApp(services, createLogger('silent'))) });
    }
  });
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.services.close();
    await database.drop();
  });

  const svc = (): ServiceHttp => replicas[0];
  async function createAppNamed(prefix: string): Promise<TestApp> {
    const appId = uniqueAppId(prefix);
    const res = await replicas[1].http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
    expect(res.status).toBe(200);
    // The database dates a new app by its own clock: date it by the injected one.
    await replicas[0].services.store.db.app.update({ where: { id: appId }, data: { createdAt: new Date(now) } });
    return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
  }

  /** Both replicas sweep at once; returns how many snapshots each wrote. */
  const sweepBoth = () => Promise.all(replicas.map((replica) => replica.services.reports.sweep()));
  const report = (app: TestApp, kind: 'credentials' | 'active-users', query = '') => replicas[1].http.get(`/reporting/${kind}/periodic${query}`).set('ApiSecret', app.apiSecret);

  it('writes one snapshot per app and day, whoever sweeps, with the users, passkeys and active users of that day', async () => {
    const shop = await createAppNamed('shop');
    const blog = await createAppNamed('blog');
    const passkeys = new Map<string, { credential: SoftCredential; userId: string }>();
    const registerAs = async (app: TestApp, userId: string) => {
      const { credential, complete } = await registerPasskey(svc(), app, { userId });
      expect(complete.status).toBe(200);
      passkeys.set(`${app.appId}/${userId}`, { credential, userId });
    };
    const signInAs = async (app: TestApp, userId: string) => {
      const { credential } = passkeys.get(`${app.appId}/${userId}`)!;
      expect((await signIn(svc(), app, credential, { userId })).complete.status).toBe(200);
    };

    // Day 0: alice and bob sign up at the shop, carol at the blog.
    at(0, 10);
    await registerAs(shop, 'alice');
    await registerAs(shop, 'bob');
    await registerAs(blog, 'carol');
    // Nothing is due while the day lasts (the day before, the apps did not exist).
    expect(await sweepBoth()).toEqual([0, 0]);

    at(1, 0.1);
    const firstSweep = await sweepBoth();
    expect(firstSweep[0] + firstSweep[1]).toBe(2);
    at(1, 7);
    expect(await sweepBoth()).toEqual([0, 0]);

    // Day 1: alice signs in and adds a second passkey.
    at(1, 10);
    await signInAs(shop, 'alice');
    await registerAs(shop, 'alice');
    at(2, 0.1);
    await sweepBoth();

    // Day 2: nobody. Day 3: bob and carol sign in.
    at(3, 0.1);
    await sweepBoth();
    at(3, 15);
    await signInAs(shop, 'bob');
    await signInAs(blog, 'carol');
    at(4, 0.1);
    await sweepBoth();

    // The service is down from day 4 to day 8; the snapshot of day 8 is taken on day 9.
    at(9, 0.5);
    const late = await sweepBoth();
    expect(late[0] + late[1]).toBe(2);

    const shopCredentials = await report(shop, 'credentials');
    expect(shopCredentials.status).toBe(200);
    expect(shopCredentials.body).toEqual([
      { createdAt: date(0), users: 2, credentials: 2 },
      { createdAt: date(1), users: 2, credentials: 3 },
      { createdAt: date(2), users: 2, credentials: 3 },
      { createdAt: date(3), users: 2, credentials: 3 },
      { createdAt: date(8), users: 2, credentials: 3 },
    ]);
    expect((await report(shop, 'active-users')).body).toEqual([
      { createdAt: date(0), dailyActiveUsers: 2, weeklyActiveUsers: 2, totalUsers: 2 },
      { createdAt: date(1), dailyActiveUsers: 1, weeklyActiveUsers: 2, totalUsers: 2 },
      { createdAt: date(2), dailyActiveUsers: 0, weeklyActiveUsers: 2, totalUsers: 2 },
      { createdAt: date(3), dailyActiveUsers: 1, weeklyActiveUsers: 2, totalUsers: 2 },
      // Days 2 to 8: bob (day 3) only; alice was last seen on day 1.
      { createdAt: date(8), dailyActiveUsers: 0, weeklyActiveUsers: 1, totalUsers: 2 },
    ]);
    expect((await report(blog, 'active-users')).body).toEqual([
      { createdAt: date(0), dailyActiveUsers: 1, weeklyActiveUsers: 1, totalUsers: 1 },
      { createdAt: date(1), dailyActiveUsers: 0, weeklyActiveUsers: 1, totalUsers: 1 },
      { createdAt: date(2), dailyActiveUsers: 0, weeklyActiveUsers: 1, totalUsers: 1 },
      { createdAt: date(3), dailyActiveUsers: 1, weeklyActiveUsers: 1, totalUsers: 1 },
      { createdAt: date(8), dailyActiveUsers: 0, weeklyActiveUsers: 1, totalUsers: 1 },
    ]);

    // Exactly one row per app and day, for all the racing.
    const rows = await replicas[0].services.store.db.dailyReport.findMany({ where: { tenant: { in: [shop.appId, blog.appId] } }, select: { tenant: true, day: true } });
    expect(rows).toHaveLength(10);
    expect(new Set(rows.map((row) => `${row.tenant}/${row.day}`)).size).toBe(10);

    // From and to are inclusive; either may be left out; an empty range is an empty list.
    const days = async (query: string) => ((await report(shop, 'credentials', query)).body as { createdAt: string }[]).map((row) => row.createdAt);
    expect(await days(`?from=${date(1)}&to=${date(3)}`)).toEqual([date(1), date(2), date(3)]);
    expect(await days(`?from=${date(3)}`)).toEqual([date(3), date(8)]);
    expect(await days(`?to=${date(0)}`)).toEqual([date(0)]);
    expect(await days(`?from=${date(3)}&to=${date(1)}`)).toEqual([]);
    expect(await days('?from=&to=')).toHaveLength(5);
  });

  it('gives an app created after a day ended no snapshot of that day', async () => {
    at(20, 0.01);
    const late = await createAppNamed('late');
    at(20, 1);
    await sweepBoth();
    expect((await report(late, 'credentials')).body).toEqual([]);
    at(21, 1);
    await sweepBoth();
    expect((await report(late, 'credentials')).body).toEqual([{ createdAt: date(20), users: 0, credentials: 0 }]);
  });

  it("answers only the key's own app, and refuses dates that are not yyyy-MM-dd", async () => {
    const mine = await createAppNamed('mine');
    at(30, 10);
    await registerPasskey(svc(), mine, { userId: 'dave' });
    at(31, 1);
    await sweepBoth();
    const theirs = await createAppNamed('theirs');
    expect((await report(theirs, 'credentials')).body).toEqual([]);
    expect((await report(mine, 'credentials', `?from=${date(30)}`)).body).toEqual([{ createdAt: date(30), users: 1, credentials: 1 }]);
    for (const bad of ['?from=2026-02-30', '?to=yesterday', `?from=${date(30)}T00:00:00Z`]) expectProblem(await report(mine, 'credentials', bad), 400, 'validation_failed');
    expectProblem(await replicas[0].http.get('/reporting/active-users/periodic'), 401, 'ApiSecret');
  });
});
