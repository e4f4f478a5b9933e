import supertest from 'supertest';
import type { Services } from '../../src/server/services';
import type { Provider } from '../../src/server/store/migrate';
import { expectProblem } from '../support/problems';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { inProcessService, LOOPBACK_ALLOWED } from '../support/inProcessWebhookService';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../support/webhookReceiver';
import { givenUsers } from '../support/webhookUsers';

warnIfPostgresSkipped();

const T0 = Date.parse('2026-11-25T12:00:00.000Z');

describe.each(providers())('the webhook delivery log, redelivery, test event and metrics on %s', (provider: Provider) => {
  let database: TestDatabase;
  let services: Services;
  let http: ReturnType<typeof supertest>;
  let receiver: WebhookReceiver;
  let app: TestApp;
  const clock = { now: T0 };

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    ({ services, http } = await inProcessService(database, LOOPBACK_ALLOWED, { now: () => clock.now, flushIntervalMs: 0, webhooks: { pollIntervalMs: 0, random: () => 0.5 } }));
    receiver = await startWebhookReceiver();
    const appId = uniqueAppId('whlog');
    const res = await http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
    app = { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
  });
  afterAll(async () => {
    await receiver.close();
    await services.close();
    await database.drop();
  });

  it('shows each delivery with its attempts and next try, sends one again on request, and sends a test event', async () => {
    const created = await http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    const { id, secret } = created.body as { id: string; secret: string };
    receiver.status = 500;
    await givenUsers(http, app.apiSecret, ['u1']);
    await http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId: 'u1' });
    await services.webhookWorker.drain();

    const log = await http.get(`/webhooks/deliveries?id=${id}`).set('ApiSecret', app.apiSecret);
    expect(log.status).toBe(200);
    expect(log.body).toEqual([
      {
        id: expect.stringMatching(/^msg_/),
        webhookId: log.body[0]?.id,
        eventType: 'user.deleted',
        state: 'pending',
        createdAt: new Date(T0).toISOString(),
        attempts: 1,
        nextAttemptAt: new Date(T0 + 5_000).toISOString(),
        lastStatus: 500,
        lastError: null,
        attemptLog: [{ at: new Date(T0).toISOString(), status: 500, error: null, durationMs: expect.any(Number) }],
      },
    ]);
    const admin = await http.get(`/admin/apps/${app.appId}/webhooks/${id}/deliveries`).set('ManagementKey', MANAGEMENT_KEY);
    expect(admin.body).toEqual(log.body);

    receiver.status = 200;
    clock.now += 5_000;
    await services.webhookWorker.drain();
    const first = (await http.get(`/webhooks/deliveries?id=${id}`).set('ApiSecret', app.apiSecret)).body[0];
    expect([first.state, first.attempts, first.nextAttemptAt, first.attemptLog.map((a: { status: number }) => a.status)]).toEqual(['delivered', 2, null, [500, 200]]);

    // Sent again on request (a replay): the same body under the same webhook-id, as a delivery of its own.
    const again = await http.post('/webhooks/redeliver').set('ApiSecret', app.apiSecret).send({ deliveryId: first.id });
    expect(again.status).toBe(202);
    expect(again.body).toEqual({ id: expect.stringMatching(/^msg_/), webhookId: first.id });
    expect(again.body.id).not.toBe(first.id);
    const test = await http.post('/webhooks/test').set('ApiSecret', app.apiSecret).send({ id });
    expect(test.status).toBe(202);
    const adminTest = await http.post(`/admin/apps/${app.appId}/webhooks/${id}/test`).set('ManagementKey', MANAGEMENT_KEY);
    expect(adminTest.status).toBe(202);
    await services.webhookWorker.drain();
    const [original, copy, testEvent, adminTestEvent] = receiver.received.slice(-4);
    expect(copy.id).toBe(original.id);
    expect(copy.body).toBe(original.body);
    expect([testEvent.id, testEvent.payload.type, testEvent.payload.data]).toEqual([test.body.id, 'webhook.test', { endpointId: id }]);
    expect(test.body.webhookId).toBe(test.body.id);
    // The log lists the replay as a delivery of its own, with the webhook-id it was sent with.
    const replay = (await http.get(`/webhooks/deliveries?id=${id}`).set('ApiSecret', app.apiSecret)).body.find((d: { id: string }) => d.id === again.body.id);
    expect([replay.webhookId, replay.state, replay.attempts]).toEqual([first.id, 'delivered', 1]);
    expect(adminTestEvent.id).toBe(adminTest.body.id);
    for (const webhook of receiver.received) verifyWebhook(webhook, secret);

    // Another app's keys find none of it.
    const otherId = uniqueAppId('whother');
    const other = await http.post(`/admin/apps/${otherId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
    expectProblem(await http.get(`/webhooks/deliveries?id=${id}`).set('ApiSecret', other.body.apiSecret1), 404, 'webhook_not_found');
    expectProblem(await http.post('/webhooks/redeliver').set('ApiSecret', other.body.apiSecret1).send({ deliveryId: first.id }), 404, 'webhook_delivery_not_found');
    expectProblem(await http.post('/webhooks/test').set('ApiSecret', other.body.apiSecret1).send({ id }), 404, 'webhook_not_found');

    // The outcomes are counted in /metrics.
    const metrics = await http.get('/metrics');
    expect(metrics.text).toMatch(/passwordless_webhook_deliveries_total\{outcome="retry"\} 1\b/);
    expect(metrics.text).toMatch(/passwordless_webhook_deliveries_total\{outcome="delivered"\} 4\b/);
  });
});
