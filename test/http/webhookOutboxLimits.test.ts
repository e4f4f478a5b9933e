/**
 * What one key can write to the webhook outbox, on a service process (`node dist/cli.js serve`):
 * webhooks/test and webhooks/redeliver are limited per app (10 a minute by default), a test event
 * or a replay waits behind at most 100 pending deliveries of its endpoint, and an app's pending
 * deliveries stop at its outbox quota; /metrics counts what was not queued.
 */
import type { Response } from 'supertest';
import { expectProblem } from '../support/problems';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const PROCESS_TIMEOUT_MS = 120_000;
/** Nothing listens on port 9 of loopback: every attempt fails at once, so what is queued stays pending. */
const NOWHERE = 'http://127.0.0.1:9/in';
const ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

async function endpointOf(svc: ServiceProcess, app: TestApp, eventTypes = ['aliases.updated']): Promise<string> {
  const res = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: NOWHERE, eventTypes });
  expect(res.status).toBe(201);
  return res.body.id;
}
const sendTest = (svc: ServiceProcess, app: TestApp, id: string) => svc.http.post('/webhooks/test').set('ApiSecret', app.apiSecret).send({ id });
const redeliver = (svc: ServiceProcess, app: TestApp, deliveryId: string) => svc.http.post('/webhooks/redeliver').set('ApiSecret', app.apiSecret).send({ deliveryId });
const deliveriesOf = async (svc: ServiceProcess, app: TestApp, id: string) => ((await svc.http.get(`/webhooks/deliveries?id=${id}&limit=100`).set('ApiSecret', app.apiSecret)).body as unknown[]).length;
const metric = async (svc: ServiceProcess, pattern: RegExp) => Number(pattern.exec((await svc.http.get('/metrics')).text)?.[1] ?? 0);

function expectRateLimited(res: Response): void {
  expectProblem(res, 429, 'rate_limited');
  expect(res.body.detail).toMatch(/webhooks\/test and webhooks\/redeliver/);
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['ratelimit']).toMatch(/^limit=10, remaining=0, reset=\d+$/);
}

describe.each(providers())('bounded webhook outbox writes on %s', (provider) => {
  describe('the per-app limit on webhooks/test and webhooks/redeliver', () => {
    let database: TestDatabase;
    let svc: ServiceProcess;
    beforeAll(async () => {
      database = await createTestDatabase(provider);
      svc = await startServiceProcess(ENV, database);
    }, PROCESS_TIMEOUT_MS);
    afterAll(async () => {
      await svc?.stop();
      await database?.drop();
    }, PROCESS_TIMEOUT_MS);

    it('answers the 11th test in a minute with a 429, counts replays with tests, writes nothing refused, and leaves other apps and the management API alone', async () => {
      const [app, other] = [await svc.createApp(), await svc.createApp()];
      const id = await endpointOf(svc, app);
      // Wrong secrets claiming the app spend none of its budget.
      const wrong = app.apiSecret.replace(/[0-9a-f]{8}$/, (tail) => (tail === '00000000' ? '11111111' : '00000000'));
      for (let i = 0; i < 3; i++) expectProblem(await svc.http.post('/webhooks/test').set('ApiSecret', wrong).send({ id }), 401, 'ApiSecret');
      // Nor do the app's keys without the webhooks scope, which the route refuses.
      const narrow = await svc.http.post(`/admin/apps/${app.appId}/secret-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes: ['users'] });
      expect(narrow.status).toBe(200);
      for (let i = 0; i < 12; i++) expectProblem(await svc.http.post('/webhooks/test').set('ApiSecret', narrow.body.apiKey).send({ id }), 403, 'forbidden');
      const queued: string[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await sendTest(svc, app, id);
        expect(res.status).toBe(202);
        expect(res.headers['ratelimit']).toMatch(new RegExp(`^limit=10, remaining=${9 - i}, reset=\\d+$`));
        queued.push(res.body.id);
      }
      expectRateLimited(await sendTest(svc, app, id));
      expectRateLimited(await redeliver(svc, app, queued[0]));
      expect(await deliveriesOf(svc, app, id)).toBe(10);

      // Another app has a budget of its own; the operator is not limited.
      expect((await sendTest(svc, other, await endpointOf(svc, other))).status).toBe(202);
      expect((await svc.http.post(`/admin/apps/${app.appId}/webhooks/${id}/test`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(202);
      expect(await metric(svc, /passwordless_rate_limit_refusals_total\{limit="webhook_sends_app"\} (\d+)/)).toBe(2);
    });
  });

  describe('the pending limit of an endpoint and the outbox quota of an app', () => {
    let database: TestDatabase;
    let svc: ServiceProcess;
    beforeAll(async () => {
      database = await createTestDatabase(provider);
      // The per-app rate limit off, to fill an endpoint fast; a quota of 150 pending deliveries.
      svc = await startServiceProcess({ ...ENV, RATE_LIMIT_WEBHOOK_SENDS_PER_APP: '0', WEBHOOK_OUTBOX_QUOTA: '150' }, database);
    }, PROCESS_TIMEOUT_MS);
    afterAll(async () => {
      await svc?.stop();
      await database?.drop();
    }, PROCESS_TIMEOUT_MS);

    it("refuses a test or a replay behind 100 pending deliveries (409) and past the app's quota (429), queues no event's deliveries past it, and counts each", async () => {
      const [app, other] = [await svc.createApp(), await svc.createApp()];
      const [first, second] = [await endpointOf(svc, app), await endpointOf(svc, app)];
      const queued: string[] = [];
      for (let i = 0; i < 100; i++) {
        const res = await sendTest(svc, app, first);
        expect(res.status).toBe(202);
        queued.push(res.body.id);
      }
      const behind = await sendTest(svc, app, first);
      expectProblem(behind, 409, 'webhook_pending_limit_reached');
      expect(behind.body.detail).toMatch(/100 pending/);
      expectProblem(await redeliver(svc, app, queued[0]), 409, 'webhook_pending_limit_reached');
      expect(await deliveriesOf(svc, app, first)).toBe(100);

      // The other endpoint takes the app to its quota of 150; then nothing more is queued for the app.
      for (let i = 0; i < 50; i++) expect((await sendTest(svc, app, second)).status).toBe(202);
      const full = await sendTest(svc, app, second);
      expectProblem(full, 429, 'webhook_outbox_quota_exceeded');
      expect(full.body.detail).toMatch(/150 pending/);
      // A change still happens, but its deliveries are not queued.
      expect((await svc.http.post('/alias').set('ApiSecret', app.apiSecret).send({ userId: 'u1', aliases: ['u1@example.com'], hashing: false })).status).toBe(204);
      expect([await deliveriesOf(svc, app, first), await deliveriesOf(svc, app, second)]).toEqual([100, 50]);
      expect((await svc.http.get('/alias/list?userId=u1').set('ApiSecret', app.apiSecret)).body).toEqual([expect.objectContaining({ plaintext: 'u1@example.com' })]);
      // Another app's outbox is its own.
      expect((await sendTest(svc, other, await endpointOf(svc, other))).status).toBe(202);

      expect(await metric(svc, /passwordless_webhook_deliveries_not_queued_total\{reason="pending_limit"\} (\d+)/)).toBe(2);
      // The refused test, and the change's two deliveries.
      expect(await metric(svc, /passwordless_webhook_deliveries_not_queued_total\{reason="outbox_quota"\} (\d+)/)).toBe(3);

      // Deleting an endpoint takes its pending deliveries with it: there is room again.
      expect((await svc.http.post('/webhooks/delete').set('ApiSecret', app.apiSecret).send({ id: first })).status).toBe(204);
      expect((await sendTest(svc, app, second)).status).toBe(202);
    });

    it('lets concurrent tests pass neither limit', async () => {
      const app = await svc.createApp();
      const id = await endpointOf(svc, app);
      const answers = await Promise.all(Array.from({ length: 130 }, () => sendTest(svc, app, id)));
      const statuses: Record<string, number> = {};
      for (const res of answers) statuses[`${res.status} ${res.body.errorCode ?? ''}`] = (statuses[`${res.status} ${res.body.errorCode ?? ''}`] ?? 0) + 1;
      expect(statuses).toEqual({ '202 ': 100, '409 webhook_pending_limit_reached': 30 });
      for (const res of answers.filter((r) => r.status !== 202)) expectProblem(res, 409, 'webhook_pending_limit_reached');
      expect(await deliveriesOf(svc, app, id)).toBe(100);
    });
  });
});

// Replicas share the per-app limit through Redis (and a PostgreSQL database).
const redisUrl = testRedisUrl();
const onReplicas = redisUrl && process.env.TEST_DATABASE_URL ? describe : describe.skip;

onReplicas('the per-app limit on webhooks/test across two replicas sharing Redis', () => {
  let database: TestDatabase;
  let replicas: ServiceProcess[];
  const prefix = uniqueRedisPrefix();
  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    const env = { ...ENV, REDIS_URL: redisUrl!, REDIS_KEY_PREFIX: prefix };
    replicas = [await startServiceProcess(env, database), await startServiceProcess(env, database)];
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    for (const replica of replicas ?? []) await replica.stop();
    await database?.drop();
    await dropRedisKeys(redisUrl!, prefix);
  }, PROCESS_TIMEOUT_MS);

  it('refuses the 11th test of an app in a minute whichever replica the ten went to', async () => {
    const [one, two] = replicas;
    const app = await one.createApp();
    const id = await endpointOf(one, app);
    for (let i = 0; i < 10; i++) expect((await sendTest(replicas[i % 2], app, id)).status).toBe(202);
    expectRateLimited(await sendTest(one, app, id));
    expectRateLimited(await sendTest(two, app, id));
  });
});
