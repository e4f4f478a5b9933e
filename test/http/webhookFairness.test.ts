/**
 * One app's slow receivers never hold up another app's webhooks, on a service process
 * (`node dist/cli.js serve`): the worker sends each endpoint's run on its own, under a cap per app,
 * so a test webhook of a third app goes out while twenty endpoints of two other apps hang.
 * Deterministic: the hanging receivers hold every request until the test releases them, and the
 * proof is that the third app's webhook arrived while they were still holding (no clock decides).
 */
import { eventually } from '../support/eventually';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../support/webhookReceiver';

warnIfPostgresSkipped();

const PROCESS_TIMEOUT_MS = 120_000;
/** Loopback receivers; a long delivery timeout, so that no held request is given up while the test looks. */
const ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1', WEBHOOK_TIMEOUT_SECONDS: '30' };
const ENDPOINTS_PER_APP = 10;

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

describe.each(providers())('webhook delivery across apps on %s', (provider) => {
  let database: TestDatabase;
  let svc: ServiceProcess;
  let hanging: WebhookReceiver;
  let prompt: WebhookReceiver;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    svc = await startServiceProcess(ENV, database);
    [hanging, prompt] = [await startWebhookReceiver(), await startWebhookReceiver()];
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    hanging?.release();
    await hanging?.close();
    await prompt?.close();
    await svc?.stop();
    await database?.drop();
  }, PROCESS_TIMEOUT_MS);

  it(
    "sends another app's test webhook while 20 endpoints of two other apps hang, and the hanging ones once they answer",
    async () => {
      const [slowOne, slowTwo, other]: TestApp[] = [await svc.createApp(), await svc.createApp(), await svc.createApp()];
      hanging.hold = true;
      for (const app of [slowOne, slowTwo]) {
        for (let i = 0; i < ENDPOINTS_PER_APP; i++) {
          const res = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: hanging.url(`/${app.appId}/${i}`), eventTypes: ['aliases.updated'] });
          expect(res.status).toBe(201);
        }
      }
      const created = await svc.http.post('/webhooks/create').set('ApiSecret', other.apiSecret).send({ url: prompt.url('/other'), eventTypes: ['aliases.updated'] });
      expect(created.status).toBe(201);

      // One change each: a delivery to each of their twenty endpoints, whose receivers never answer.
      for (const app of [slowOne, slowTwo]) {
        expect((await svc.http.post('/alias').set('ApiSecret', app.apiSecret).send({ userId: 'u1', aliases: ['one@example.com'], hashing: false })).status).toBe(204);
      }
      const from = (app: TestApp) => hanging.received.filter((w) => w.path.startsWith(`/${app.appId}/`));
      await eventually('both apps’ receivers holding requests', () => (from(slowOne).length > 0 && from(slowTwo).length > 0 ? true : undefined), 60_000);
      const holding = hanging.heldOpen();

      const asked = Date.now();
      const test = await svc.http.post('/webhooks/test').set('ApiSecret', other.apiSecret).send({ id: created.body.id });
      expect(test.status).toBe(202);
      const arrived = await eventually('the other app’s test webhook', () => prompt.received.find((w) => w.payload.type === 'webhook.test'), 60_000);
      const open = new Set(hanging.heldOpen());
      const given = holding.filter((w) => !open.has(w));
      process.stdout.write(
        `[webhook fairness, ${provider}] the other app's webhook arrived ${arrived.at - asked} ms after it was asked for; ` +
          `${holding.length} requests were held when it was asked for, ${given.length} of them given up by the sender when it arrived ` +
          `(${hanging.received.length} received by the hanging receivers so far)\n`,
      );
      // The proof: it came while every request that was held when it was asked for still was.
      expect(holding.length).toBeGreaterThan(0);
      expect(given.map((w) => w.path)).toEqual([]);
      expect(arrived.id).toBe(test.body.id);
      verifyWebhook(arrived, created.body.secret);

      // Released, every endpoint of the slow apps gets its delivery after all.
      hanging.release();
      await eventually('each slow endpoint served', () => (new Set(hanging.received.map((w) => w.path)).size === 2 * ENDPOINTS_PER_APP ? true : undefined), 60_000);
      expect(from(slowOne).every((w) => w.payload.type === 'aliases.updated')).toBe(true);
    },
    PROCESS_TIMEOUT_MS,
  );
});
