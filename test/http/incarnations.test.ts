/**
 * The deterministic half of app incarnations, without notifications between replicas: two sets of
 * services on one database are two replicas with caches of their own. Once replica B has read the
 * re-created app (any request with its keys), the old app's cached key checks and token keys fail
 * there, with no round trip added to any request. (With PostgreSQL, notifications make this
 * immediate even before; test/http/replicas.test.ts.)
 */
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore, type Store } from '../../src/server/store';
import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { expectProblem } from '../support/http';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

describe.each(providers())('app incarnations on one %s database, no notifications', (provider) => {
  let database: TestDatabase;
  let store: Store;
  let replicas: Services[];
  let a: { http: ReturnType<typeof supertest> };
  let b: { http: ReturnType<typeof supertest> };

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md'), RATE_LIMITS: 'off' });
    store = openStore(config.databaseUrl);
    await store.migrate();
    // One store, two sets of caches; B takes no notifications.
    replicas = [createServices(config, store, { deletionSweepIntervalMs: 0 }), createServices(config, store, { deletionSweepIntervalMs: 0, appChangeNotifications: false })];
    [a, b] = replicas.map((services) => ({ http: supertest(createApp(services, createLogger('silent'))) }));
  });
  afterAll(async () => {
    await replicas[1].close().catch(() => undefined);
    await replicas[0].close().catch(() => undefined);
    await database.drop();
  });

  it("refuses the old app's cached key and its tokens once it has seen the new app", async () => {
    const appId = uniqueAppId('again');
    const create = async (): Promise<TestApp> => {
      const res = await a.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
      expect(res.status).toBe(200);
      return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
    };
    const old = await create();
    const { credential } = await registerPasskey(b, old, { userId: 'u-old' });
    const oldVerifyToken = (await signIn(b, old, credential)).complete.body.token as string;
    // B caches the old secret's check and the old app's token keys.
    expect((await verifyToken(b, old, (await signIn(b, old, credential)).complete.body.token)).body).toMatchObject({ success: true });

    expect((await a.http.delete(`/admin/apps/${appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
    const reborn = await create();
    // B serves the new app: its key is read from the database, with the new incarnation.
    const fresh = await registerPasskey(b, reborn, { userId: 'u-new' });
    expect(fresh.complete.status).toBe(200);

    expectProblem(await verifyToken(b, old, oldVerifyToken), 401, 'ApiSecret');
    expectProblem(await verifyToken(b, reborn, oldVerifyToken), 400, 'invalid_token');
    const signin = await signIn(a, reborn, fresh.credential);
    expect((await verifyToken(b, reborn, signin.complete.body.token)).body).toMatchObject({ success: true, userId: 'u-new' });
  });
});
