/**
 * The webhook destination rules on a service process (`node dist/cli.js serve`): only global
 * unicast addresses, so every IPv6 form that embeds an IPv4 address, the discard prefix and the
 * documentation ranges are refused when an endpoint is saved, and again by the worker before it
 * connects (an endpoint saved before these rules, as an older version let it be, is refused at
 * delivery and the refusal is in its log).
 */
import { openStore } from '../../src/server/store';
import { eventually } from '../support/eventually';
import { expectProblem } from '../support/problems';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

warnIfPostgresSkipped();

const PROCESS_TIMEOUT_MS = 120_000;
/** Loopback is allowed (the receiver that proves the worker runs): none of the addresses below is loopback as written. */
const ENV = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' };

/** Each host the old deny list let through, with what it is. */
const MISSED = [
  ['[::127.0.0.1]', 'IPv4-compatible loopback'],
  ['[::ffff:0:7f00:1]', 'SIIT loopback'],
  ['[64:ff9b:1::a00:1]', 'NAT64 local use'],
  ['[2002:7f00:1::1]', '6to4 of 127.0.0.1'],
  ['[2002:a9fe:a9fe::1]', '6to4 of 169.254.169.254'],
  ['[2001:0:4136:e378:8000:63bf:3fff:fdd2]', 'Teredo'],
  ['[100::1]', 'discard-only'],
  ['[2001:db8::1]', 'IPv6 documentation'],
  ['[3fff::1]', 'IPv6 documentation (RFC 9637)'],
  ['192.0.2.1', 'TEST-NET-1'],
  ['198.51.100.7', 'TEST-NET-2'],
  ['203.0.113.9', 'TEST-NET-3'],
] as const;

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

describe.each(providers())('webhook destinations on %s', (provider) => {
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

  it.each(MISSED)('refuses %s (%s) when an endpoint is created or changed, through both APIs', async (host) => {
    const app = await svc.createApp();
    const url = `https://${host}/in`;
    const res = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url, eventTypes: ['user.deleted'] });
    expectProblem(res, 400, 'webhook_url_not_allowed');
    expect(res.body.detail).toMatch(/not global unicast/);
    expectProblem(await svc.http.post(`/admin/apps/${app.appId}/webhooks`).set('ManagementKey', MANAGEMENT_KEY).send({ url, eventTypes: ['user.deleted'] }), 400, 'webhook_url_not_allowed');
    const allowed = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/ok'), eventTypes: ['user.deleted'] });
    expect(allowed.status).toBe(201);
    expectProblem(await svc.http.post('/webhooks/update').set('ApiSecret', app.apiSecret).send({ id: allowed.body.id, url }), 400, 'webhook_url_not_allowed');
    const listed = await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret);
    expect(listed.body.map((e: { url: string }) => e.url)).toEqual([receiver.url('/ok')]);
  });

  it('refuses each of them again at delivery, for endpoints saved before the rules, and records the refusal', async () => {
    // Ten endpoints an app at most: two apps hold them.
    const apps: TestApp[] = [await svc.createApp(), await svc.createApp()];
    const endpoints: { app: TestApp; id: string; url: string }[] = [];
    for (const [i, [host]] of MISSED.entries()) {
      const app = apps[i % 2];
      const created = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url(`/e${i}`), eventTypes: ['aliases.updated'] });
      expect(created.status).toBe(201);
      endpoints.push({ app, id: created.body.id, url: `https://${host}/in` });
    }
    // What an older version saved: the URLs it accepted, written as it wrote them.
    const store = openStore(database.url);
    try {
      for (const endpoint of endpoints) await store.db.webhookEndpoint.updateMany({ where: { id: endpoint.id, tenant: endpoint.app.appId }, data: { url: endpoint.url } });
    } finally {
      await store.close();
    }
    for (const app of apps) expect((await svc.http.post('/alias').set('ApiSecret', app.apiSecret).send({ userId: 'u1', aliases: ['a@example.com'], hashing: false })).status).toBe(204);

    const logOf = async (endpoint: (typeof endpoints)[number]) =>
      (await svc.http.get(`/webhooks/deliveries?id=${endpoint.id}`).set('ApiSecret', endpoint.app.apiSecret)).body as { state: string; attempts: number; lastError: string | null }[];
    for (const endpoint of endpoints) {
      const [delivery] = await eventually(`an attempt of ${endpoint.url}`, async () => {
        const log = await logOf(endpoint);
        return log.length === 1 && log[0].attempts > 0 ? log : undefined;
      }, 60_000);
      // Refused before any connection: not a network error of a connection that was tried.
      expect({ url: endpoint.url, state: delivery.state, lastError: delivery.lastError }).toEqual({ url: endpoint.url, state: 'pending', lastError: expect.stringMatching(/^destination refused: .*not global unicast/) });
    }
    expect(receiver.received).toEqual([]);
  }, PROCESS_TIMEOUT_MS);
});
