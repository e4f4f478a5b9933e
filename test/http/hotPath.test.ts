import type { Response } from 'supertest';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore, type Db, type Queries, type Store } from '../../src/server/store';
import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { createCredential, getAssertion } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase, type TestService } from '../support/testService';

/**
 * Counts every call that reaches the database: one per Prisma delegate method, one per batch
 * transaction, one per hot-path statement (each a single prepared statement on the driver).
 */
function countingStore(store: Store): { db: Db; hot: Queries; calls: string[] } {
  const calls: string[] = [];
  const hot = new Proxy(store.queries, {
    get(target, method) {
      const fn = Reflect.get(target, method);
      if (typeof fn !== 'function' || method === 'close') return fn;
      return (...args: unknown[]) => {
        calls.push(`hot.${String(method)}`);
        return fn.apply(target, args);
      };
    },
  });
  const db = store.db;
  const proxied = new Proxy(db, {
    get(target, property, receiver) {
      const value = Reflect.get(target, property, receiver);
      if (property === '$transaction') {
        return (...args: unknown[]) => {
          calls.push('$transaction');
          return (value as (...a: unknown[]) => unknown).apply(target, args);
        };
      }
      if (typeof property !== 'string' || property.startsWith('$') || typeof value !== 'object' || value === null) return value;
      return new Proxy(value as object, {
        get(delegate, method) {
          const fn = Reflect.get(delegate, method);
          if (typeof fn !== 'function') return fn;
          return (...args: unknown[]) => {
            calls.push(`${property}.${String(method)}`);
            return fn.apply(delegate, args);
          };
        },
      });
    },
  });
  return { db: proxied, hot, calls };
}

warnIfPostgresSkipped();

describe.each(providers())('hot path database round trips on %s', (provider) => {
  let database: TestDatabase;
  let store: Store;
  let services: Services;
  let svc: TestService;
  let calls: string[];

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent' });
    store = openStore(config.databaseUrl);
    await store.migrate();
    const counting = countingStore(store);
    calls = counting.calls;
    // Buffered writes (events, auth-config last use) only when the test flushes, and no background
    // work on a timer (the webhook worker's poll, the deletion and report sweeps), so that no call
    // but the request's own can land inside a counted window.
    services = createServices(config, { ...store, db: counting.db, queries: counting.hot }, { flushIntervalMs: 0, deletionSweepIntervalMs: 0, reportSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, webhooks: { pollIntervalMs: 0 } });
    const http = supertest(createApp(services, createLogger('silent')));
    svc = {
      provider,
      config,
      services,
      app: undefined as never,
      http,
      async createApp() {
        const appId = `hot${Date.now().toString(36)}`;
        const res = await http
          .post(`/admin/apps/${appId}/create`)
          .set('ManagementKey', MANAGEMENT_KEY)
          .send({ adminEmail: 'a@example.com', eventLoggingIsEnabled: true });
        return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
      },
      close: async () => undefined,
    };
  });
  afterAll(async () => {
    await services.close();
    await database.drop();
  });

  it('signin/complete takes at most three round trips and signin/verify one, once caches are warm', async () => {
    const app = await svc.createApp();
    const { credential, userId } = await registerPasskey(svc, app, { aliases: ['hot@example.com'] });
    // Warm the key, settings and token-key caches with one full sign-in.
    const warm = await signIn(svc, app, credential, { userId });
    expect((await verifyToken(svc, app, warm.complete.body.token)).status).toBe(200);

    const begin = await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ userId, RPID, Origin: ORIGIN });
    const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });

    calls.length = 0;
    const complete = await svc.http
      .post('/signin/complete')
      .set('ApiKey', app.apiKey)
      .send({ session: begin.body.session, response, RPID, Origin: ORIGIN });
    expect(complete.status).toBe(200);
    expect(calls).toEqual(['hot.redeemTokenAndFindCredential', 'hot.recordCredentialUse']);

    calls.length = 0;
    const verified = await verifyToken(svc, app, complete.body.token);
    expect(verified.status).toBe(200);
    expect(calls).toEqual(['hot.redeemToken']);

    // The events of both are written later, in one batch, off the request.
    calls.length = 0;
    await services.events.flush();
    expect(calls).toEqual(['hot.writeEvents']);
    const page = await services.events.page(app.appId, { pageNumber: 1, numberOfResults: 2 });
    expect(page.events.map((e) => e.eventType)).toEqual(['ApiUserSignInVerified', 'ApiUserSignInCompleted']);
  });

  it('signin/begin makes the same database calls for a name nobody has (a decoy list) as for a known one', async () => {
    const app = await svc.createApp();
    const { userId } = await registerPasskey(svc, app, { aliases: ['known@example.com'] });
    const callsOf = async (body: object) => {
      calls.length = 0;
      const res = await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ ...body, RPID, Origin: ORIGIN });
      expect(res.status).toBe(200);
      expect(res.body.data.allowCredentials.length).toBeGreaterThanOrEqual(1);
      return [...calls];
    };
    await callsOf({ userId }); // warm the key, settings and token-key caches
    const byAlias = await callsOf({ alias: 'known@example.com' });
    expect(byAlias).toEqual(['alias.findUnique', 'hot.findUserCredentials']);
    expect(await callsOf({ alias: 'nobody@example.com' })).toEqual(byAlias);
    const byUserId = await callsOf({ userId });
    expect(byUserId).toEqual(['hot.findUserCredentials']);
    expect(await callsOf({ userId: 'nobody' })).toEqual(byUserId);
  });

  it('registration with maxUsers set, credentials/list, users/count, a users/list page and an /events page go through the hot path only', async () => {
    const app = await svc.createApp();
    expect((await svc.http.post(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ maxUsers: 1_000_000 })).status).toBe(204);
    // Warm the key, settings and token-key caches with one full registration.
    expect((await registerPasskey(svc, app, { userId: 'warm' })).complete.status).toBe(200);
    await services.events.flush();
    const secret = (req: ReturnType<typeof svc.http.get>) => req.set('ApiSecret', app.apiSecret);
    const counted = async <T>(request: () => Promise<T>): Promise<{ result: T; calls: string[] }> => {
      calls.length = 0;
      const result = await request();
      return { result, calls: [...calls] };
    };

    const token = await counted(() => secret(svc.http.post('/register/token')).send({ userId: 'fresh', username: 'fresh@example.com' }));
    expect([token.result.status, token.calls]).toEqual([200, ['hot.userCapacity']]);
    const begin = await counted(() => svc.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token: token.result.body.token, RPID, Origin: ORIGIN }));
    expect([begin.result.status, begin.calls]).toEqual([200, ['hot.isTokenRedeemed', 'hot.findUserCredentials']]);
    const { response } = createCredential({ challenge: begin.result.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.result.body.data.user.id });
    const complete = await counted(() => svc.http.post('/register/complete').set('ApiKey', app.apiKey).send({ session: begin.result.body.session, response, RPID, Origin: ORIGIN }));
    expect([complete.result.status, complete.calls]).toEqual([200, ['hot.redeemToken', 'hot.storeRegistration']]);

    const reads: [string, string[]][] = [
      ['/credentials/list?userId=fresh', ['hot.listCredentials']],
      ['/users/count', ['hot.countUsers']],
      ['/users/list?limit=10', ['hot.usersPage']],
    ];
    for (const [path, expected] of reads) {
      const read = await counted(() => secret(svc.http.get(path)));
      expect({ path, status: read.result.status, calls: read.calls }).toEqual({ path, status: 200, calls: expected });
    }
    await services.events.flush();
    const events = await counted(() => secret(svc.http.get('/events?pageNumber=1&numberOfResults=5')));
    expect([events.result.status, events.calls]).toEqual([200, ['hot.eventsPage']]);
    const next = await counted(() => secret(svc.http.get(`/events?after=${events.result.body.next}&numberOfResults=5`)));
    expect([next.result.status, next.calls]).toEqual([200, ['hot.eventsPage']]);
  });

  it('concurrent sign-ins with event logging on make no database call for their events', async () => {
    const app = await svc.createApp();
    const users = [];
    for (let i = 0; i < 8; i++) users.push(await registerPasskey(svc, app));
    await services.events.flush();
    const begins: Response[] = [];
    for (const { userId } of users) begins.push(await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ userId, RPID, Origin: ORIGIN }));

    calls.length = 0;
    const completes = await Promise.all(
      users.map(({ credential }, i) => {
        const response = getAssertion(credential, { challenge: begins[i].body.data.challenge, rpId: RPID, origin: ORIGIN });
        return svc.http.post('/signin/complete').set('ApiKey', app.apiKey).send({ session: begins[i].body.session, response, RPID, Origin: ORIGIN });
      }),
    );
    expect(completes.map((c) => c.status)).toEqual(users.map(() => 200));
    expect([...calls].sort()).toEqual(users.flatMap(() => ['hot.redeemTokenAndFindCredential', 'hot.recordCredentialUse']).sort());

    calls.length = 0;
    await services.events.flush();
    expect(calls).toEqual(['hot.writeEvents']);
    const signIns = (await services.events.page(app.appId, { pageNumber: 1, numberOfResults: 100 })).events.filter((e) => e.eventType === 'ApiUserSignInCompleted');
    expect(signIns.map((e) => e.subject).sort()).toEqual(users.map((u) => u.userId).sort());
  });
});
