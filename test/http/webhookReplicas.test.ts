import { MANAGEMENT_KEY, createTestDatabase, uniqueAppId, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';
import { inProcessService, LOOPBACK_ALLOWED, type InProcessService } from '../support/inProcessWebhookService';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../support/webhookReceiver';
import { givenUsers } from '../support/webhookUsers';

warnIfPostgresSkipped();

// Replicas share one PostgreSQL database; SQLite has one process, so there is nothing to share there.
const onPostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

onPostgres('webhooks from two replicas on one PostgreSQL database', () => {
  let database: TestDatabase;
  let replicas: InProcessService[];
  let receiver: WebhookReceiver;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    replicas = [];
    for (let i = 0; i < 2; i++) replicas.push(await inProcessService(database, LOOPBACK_ALLOWED, { flushIntervalMs: 0, webhooks: { pollIntervalMs: 0 } }));
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    for (const replica of replicas) await replica.services.close();
    await database.drop();
  });

  it('delivers each event once, in order per endpoint, while both replicas send at the same time', async () => {
    const [one, two] = replicas;
    const appId = uniqueAppId('whrep');
    const created = await one.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
    const secret = created.body.apiSecret1 as string;
    const endpoints: { id: string; secret: string; path: string }[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await one.http.post('/webhooks/create').set('ApiSecret', secret).send({ url: receiver.url(`/e${i}`), eventTypes: ['user.deleted'] });
      endpoints.push({ id: res.body.id, secret: res.body.secret, path: `/e${i}` });
    }
    // Events made on both replicas (each knows of the endpoints: one through the change feed or its first read).
    const users = Array.from({ length: 30 }, (_, i) => `user${String(i).padStart(2, '0')}`);
    await givenUsers(one.http, secret, users);
    for (const [i, userId] of users.entries()) {
      const res = await replicas[i % 2].http.post('/users/delete').set('ApiSecret', secret).send({ userId });
      expect(res.status).toBe(204);
    }
    // Both workers claim and send at once, round after round, until nothing is left.
    await Promise.all([one.services.webhookWorker.drain(), two.services.webhookWorker.drain(), one.services.webhookWorker.drain()]);
    await Promise.all([one.services.webhookWorker.drain(), two.services.webhookWorker.drain()]);

    const ids = receiver.received.map((w) => w.id);
    expect(ids).toHaveLength(users.length * endpoints.length);
    expect(new Set(ids).size).toBe(ids.length);
    for (const endpoint of endpoints) {
      const got = receiver.received.filter((w) => w.path === endpoint.path);
      // Each endpoint's deliveries in the outbox's order, every user once.
      const outbox = await one.services.store.db.webhookDelivery.findMany({ where: { tenant: appId, endpointId: endpoint.id }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }], select: { id: true } });
      expect(got.map((w) => w.id)).toEqual(outbox.map((d) => d.id));
      expect(got.map((w) => w.payload.data.userId).sort()).toEqual(users);
      for (const webhook of got) verifyWebhook(webhook, endpoint.secret);
    }
    const pending = await one.services.store.db.webhookDelivery.count({ where: { tenant: appId, state: { not: 'delivered' } } });
    expect(pending).toBe(0);
  });
});
