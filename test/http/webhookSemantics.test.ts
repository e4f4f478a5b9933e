/**
 * Webhooks as Standard Webhooks defines them, on a service process (`node dist/cli.js serve`): the
 * `webhook-id` names the event, so a replay keeps it; and a webhook reports a change that happened,
 * so deleting a userId the app never had reports nothing.
 */
import { eventually } from '../support/eventually';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../support/webhookReceiver';
import { givenUsers } from '../support/webhookUsers';

warnIfPostgresSkipped();

const PROCESS_TIMEOUT_MS = 120_000;
const ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };

interface LoggedDelivery {
  id: string;
  webhookId: string;
  state: string;
  attempts: number;
}

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

describe.each(providers())('webhook semantics on %s', (provider) => {
  let database: TestDatabase;
  let svc: ServiceProcess;
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    svc = await startServiceProcess(ENV, database);
    receiver = await startWebhookReceiver();
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop();
    await database?.drop();
  }, PROCESS_TIMEOUT_MS);

  async function endpointOf(app: TestApp, path: string): Promise<{ id: string; secret: string }> {
    const res = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url(path), eventTypes: ['user.deleted'] });
    expect(res.status).toBe(201);
    return res.body;
  }
  const at = (path: string) => receiver.received.filter((w) => w.path === path);
  const logOf = async (app: TestApp, endpointId: string) => (await svc.http.get(`/webhooks/deliveries?id=${endpointId}`).set('ApiSecret', app.apiSecret)).body as LoggedDelivery[];

  it('replays a delivery under its original webhook-id, signed and with the same body, as a delivery of its own', async () => {
    const app = await svc.createApp();
    const endpoint = await endpointOf(app, '/replay');
    await givenUsers(svc.http, app.apiSecret, ['u1']);
    expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId: 'u1' })).status).toBe(204);
    const original = await eventually('the user.deleted webhook', () => at('/replay')[0]);
    const [delivery] = await logOf(app, endpoint.id);
    expect([delivery.id, delivery.webhookId]).toEqual([original.id, original.id]);

    const replay = await svc.http.post('/webhooks/redeliver').set('ApiSecret', app.apiSecret).send({ deliveryId: delivery.id });
    expect(replay.status).toBe(202);
    expect(replay.body).toEqual({ id: expect.stringMatching(/^msg_[0-9a-f]{36}$/), webhookId: original.id });
    expect(replay.body.id).not.toBe(delivery.id);
    const replayed = await eventually('the replay', () => at('/replay')[1]);
    expect(replayed.id).toBe(original.id);
    expect(replayed.body).toBe(original.body);
    expect(verifyWebhook(replayed, endpoint.secret)).toEqual(original.payload);

    // A replay of the replay still carries the event's id.
    const again = await svc.http.post('/webhooks/redeliver').set('ApiSecret', app.apiSecret).send({ deliveryId: replay.body.id });
    expect(again.body.webhookId).toBe(original.id);
    await eventually('the second replay', () => at('/replay')[2]);

    // A receiver that de-duplicates on webhook-id, as docs/api.md tells it to, handles the event once.
    expect(new Set(at('/replay').map((w) => w.id))).toEqual(new Set([original.id]));
    // The log keeps each send apart: three deliveries, each with its own attempt, under one webhook-id.
    const log = await eventually('every send recorded', async () => {
      const found = await logOf(app, endpoint.id);
      return found.every((d) => d.state === 'delivered') ? found : undefined;
    });
    expect(log.map((d) => [d.webhookId, d.state, d.attempts])).toEqual([0, 1, 2].map(() => [original.id, 'delivered', 1]));
    expect(new Set(log.map((d) => d.id)).size).toBe(3);
  });

  it('sends no user.deleted for a userId the app never had, nor for a user deleted a second time', async () => {
    const app = await svc.createApp();
    const endpoint = await endpointOf(app, '/users');
    const remove = (userId: string) => svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId });
    expect((await remove('stranger')).status).toBe(204);
    await givenUsers(svc.http, app.apiSecret, ['known']);
    expect((await remove('known')).status).toBe(204);
    expect((await remove('known')).status).toBe(204);
    // One more that is reported: an endpoint's deliveries arrive in the order they were made, so whatever came before it has arrived by then.
    await givenUsers(svc.http, app.apiSecret, ['last']);
    expect((await remove('last')).status).toBe(204);
    await eventually('the last user.deleted', () => at('/users').find((w) => w.payload.data.userId === 'last'));

    expect(at('/users').map((w) => w.payload.data)).toEqual([{ userId: 'known' }, { userId: 'last' }]);
    const log = await eventually('both recorded', async () => {
      const found = await logOf(app, endpoint.id);
      return found.every((d) => d.state === 'delivered') ? found : undefined;
    });
    expect(log).toHaveLength(2);
  });
});
