import { createLogger } from '../../src/server/core/logger';
import { parseKeyEncryptionKey } from '../../src/server/core/parseKeyEncryptionKey';
import { WEBHOOK_EVENT_TYPES } from '../../src/server/core/webhookEventTypes';
import { MAGIC_LINK_SENT_HOLD_MS } from '../../src/server/services/magicLinks/magicLinks';
import { resealWebhookSecrets } from '../../src/server/services/webhooks/resealWebhookSecrets';
import type { Provider } from '../../src/server/store/migrate';
import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { bareVerifyPayload } from '../support/privateApi';
import { KEYS, metadataEnv, testBlob, writeBlob } from '../support/metadata';
import { expectProblem, expectValidationProblem } from '../support/problems';
import { startSmtpServer, type TestSmtpServer } from '../support/smtp';
import { startSmtpGate, type SmtpGate } from '../support/smtpGate';
import { createTestPki } from '../support/testPki';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { LOOPBACK_ALLOWED, inProcessService, type InProcessService } from '../support/inProcessWebhookService';
import { startWebhookReceiver, verifyWebhook, type ReceivedWebhook, type WebhookReceiver } from '../support/webhookReceiver';
import { givenUsers } from '../support/webhookUsers';
import { WebhookEndpointRepository } from '../../src/server/store/repositories/webhookEndpoints';

warnIfPostgresSkipped();

const SUBSCRIBABLE = WEBHOOK_EVENT_TYPES.filter((t) => t !== 'webhook.test');
const T0 = Date.parse('2026-11-25T12:00:00.000Z');

type Running = InProcessService;

/** The service in-process on `database`, with the injected clock and a worker that runs only when drained. */
const serviceOn = (database: TestDatabase, env: Record<string, string>, clock: { now: number }): Promise<Running> =>
  inProcessService(database, env, { now: () => clock.now, flushIntervalMs: 0, webhooks: { pollIntervalMs: 0, random: () => 0.5 } });

async function newApp(svc: Running, plan?: 'enterprise'): Promise<TestApp> {
  const appId = uniqueAppId('wh');
  const res = await svc.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', plan });
  expect(res.status).toBe(200);
  return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
}

async function createEndpoint(svc: Running, app: TestApp, body: object): Promise<{ id: string; secret: string }> {
  const res = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send(body);
  expect([res.status, res.body.errorCode]).toEqual([201, undefined]);
  return { id: res.body.id, secret: res.body.secret };
}

const typesOf = (webhooks: ReceivedWebhook[]) => webhooks.map((w) => w.payload.type);

/** Deletes a user the app has (made one first): a deletion that a user.deleted webhook reports. */
async function deleteUser(svc: Running, app: TestApp, userId: string) {
  await givenUsers(svc.http, app.apiSecret, [userId]);
  return svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId });
}

describe.each(providers())('webhooks on %s', (provider: Provider) => {
  let database: TestDatabase;
  let svc: Running;
  let receiver: WebhookReceiver;
  const clock = { now: T0 };

  beforeEach(async () => {
    clock.now = T0;
    database = await createTestDatabase(provider);
    svc = await serviceOn(database, LOOPBACK_ALLOWED, clock);
    receiver = await startWebhookReceiver();
  });
  afterEach(async () => {
    await receiver.close();
    await svc.close();
    await database.drop();
  });

  it('creates an endpoint with its secret shown once, lists none, and keeps each app to its own endpoints and to 10 of them', async () => {
    const [app, other] = [await newApp(svc), await newApp(svc)];
    const created = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/a'), eventTypes: ['user.deleted', 'user.deleted'], description: 'first' });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      id: expect.stringMatching(/^ep_[0-9a-f]{24}$/),
      url: receiver.url('/a'),
      eventTypes: ['user.deleted'],
      description: 'first',
      enabled: true,
      disabledReason: null,
      createdAt: new Date(T0).toISOString(),
      previousSecretExpiresAt: null,
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/),
    });
    const listed = await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret);
    expect(listed.status).toBe(200);
    const { secret: _secret, ...view } = created.body;
    expect(listed.body).toEqual([view]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.secret.slice(6));
    // The same through the management API, for the app it names.
    const admin = await svc.http.get(`/admin/apps/${app.appId}/webhooks`).set('ManagementKey', MANAGEMENT_KEY);
    expect(admin.body).toEqual(listed.body);
    expectProblem(await svc.http.get(`/admin/apps/nosuchapp/webhooks`).set('ManagementKey', MANAGEMENT_KEY), 404, 'app_not_found');

    // Another app neither sees nor changes it.
    expect((await svc.http.get('/webhooks/list').set('ApiSecret', other.apiSecret)).body).toEqual([]);
    expectProblem(await svc.http.post('/webhooks/update').set('ApiSecret', other.apiSecret).send({ id: created.body.id, enabled: false }), 404, 'webhook_not_found');
    expectProblem(await svc.http.post('/webhooks/delete').set('ApiSecret', other.apiSecret).send({ id: created.body.id }), 404, 'webhook_not_found');
    expectProblem(await svc.http.post('/webhooks/rotate-secret').set('ApiSecret', other.apiSecret).send({ id: created.body.id }), 404, 'webhook_not_found');
    expectProblem(await svc.http.post(`/admin/apps/${other.appId}/webhooks/${created.body.id}`).set('ManagementKey', MANAGEMENT_KEY).send({ enabled: false }), 404, 'webhook_not_found');

    const updated = await svc.http.post('/webhooks/update').set('ApiSecret', app.apiSecret).send({ id: created.body.id, eventTypes: ['passkey.registered'], enabled: false });
    expect([updated.status, updated.body.eventTypes, updated.body.enabled, updated.body.description]).toEqual([200, ['passkey.registered'], false, 'first']);

    for (let i = 2; i <= 10; i++) {
      const res = await svc.http.post(`/admin/apps/${app.appId}/webhooks`).set('ManagementKey', MANAGEMENT_KEY).send({ url: receiver.url(`/${i}`), eventTypes: ['user.deleted'] });
      expect(res.status).toBe(201);
    }
    const eleventh = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/11'), eventTypes: ['user.deleted'] });
    expectProblem(eleventh, 409, 'webhook_limit_reached');
    expect((await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret)).body).toHaveLength(10);
    // The other app has its own ten.
    await createEndpoint(svc, other, { url: receiver.url('/other'), eventTypes: ['user.deleted'] });

    expect((await svc.http.post('/webhooks/delete').set('ApiSecret', app.apiSecret).send({ id: created.body.id })).status).toBe(204);
    expectProblem(await svc.http.post('/webhooks/delete').set('ApiSecret', app.apiSecret).send({ id: created.body.id }), 404, 'webhook_not_found');
    expect((await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/again'), eventTypes: ['user.deleted'] })).status).toBe(201);
  });

  it('refuses what is not an event type, and URLs that are not https or reach private networks', async () => {
    const app = await newApp(svc);
    const create = (body: object) => svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send(body);
    expectValidationProblem(await create({ url: receiver.url('/x'), eventTypes: ['passkey.exploded'] }), 'eventTypes');
    expectValidationProblem(await create({ url: receiver.url('/x'), eventTypes: [] }), 'eventTypes');
    expectValidationProblem(await create({ url: receiver.url('/x'), eventTypes: ['webhook.test'] }), 'eventTypes');
    expectValidationProblem(await create({ eventTypes: ['user.deleted'] }), 'url');

    // Loopback is allowed here, other private networks are not.
    for (const url of ['https://10.0.0.1/in', 'https://169.254.169.254/latest', 'https://[fd00::1]/in', 'http://127.0.0.2:9/in', 'ftp://127.0.0.1/in', 'https://user:pw@127.0.0.1/in', 'not a url']) {
      const res = await create({ url, eventTypes: ['user.deleted'] });
      expectProblem(res, 400, 'webhook_url_not_allowed');
      expect({ url, detail: typeof res.body.detail }).toEqual({ url, detail: 'string' });
    }
    expect((await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret)).body).toEqual([]);

    // Without the operator's settings: https only, and no loopback at all.
    await svc.close();
    svc = await serviceOn(database, {}, clock);
    expectProblem(await create({ url: receiver.url('/x'), eventTypes: ['user.deleted'] }), 400, 'webhook_url_not_allowed');
    expectProblem(await create({ url: 'https://127.0.0.1/x', eventTypes: ['user.deleted'] }), 400, 'webhook_url_not_allowed');
    expectProblem(await create({ url: 'https://localhost/x', eventTypes: ['user.deleted'] }), 400, 'webhook_url_not_allowed');
  });

  it('delivers each event once to every endpoint subscribed to it, signed, with its data, and nowhere else', async () => {
    const app = await newApp(svc);
    const all = await createEndpoint(svc, app, { url: receiver.url('/all'), eventTypes: SUBSCRIBABLE });
    const some = await createEndpoint(svc, app, { url: receiver.url('/some'), eventTypes: ['user.deleted', 'signin.verified'] });
    await createEndpoint(svc, app, { url: receiver.url('/off'), eventTypes: SUBSCRIBABLE, enabled: false });
    const secret = (path: string, body: object) => svc.http.post(path).set('ApiSecret', app.apiSecret).send(body);

    const { userId, credential } = await registerPasskey(svc, app, { aliases: ['secret-alias@example.com'], nickname: 'Laptop' });
    const signin = await signIn(svc, app, credential, { userId });
    const verified = await verifyToken(svc, app, signin.complete.body.token);
    expect(verified.status).toBe(200);
    expect((await secret('/credentials/update', { credentialId: credential.idB64, nickname: 'Work laptop' })).status).toBe(204);
    expect((await secret('/alias', { userId, aliases: ['other-alias@example.com'], hashing: false })).status).toBe(204);
    expect((await secret('/magic-links/send', { emailAddress: 'admin@example.com', urlTemplate: 'https://shop.example.com/?t=$TOKEN', userId })).status).toBe(204);
    expect((await secret('/credentials/delete', { credentialId: credential.idB64 })).status).toBe(204);
    expect((await secret('/users/delete', { userId })).status).toBe(204);
    expect((await svc.http.post(`/admin/apps/${app.appId}/mark-delete`).set('ManagementKey', MANAGEMENT_KEY).send({ deletedBy: 'ops' })).status).toBe(200);
    expect((await svc.http.post(`/admin/apps/${app.appId}/cancel-delete`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);

    await svc.services.webhookWorker.drain();
    const at = (path: string) => receiver.received.filter((w) => w.path === path);
    expect(typesOf(at('/all'))).toEqual([
      'passkey.registered',
      'signin.completed',
      'signin.verified',
      'passkey.renamed',
      'aliases.updated',
      'magic_link.sent',
      'passkey.deleted',
      'user.deleted',
      'app.deletion_scheduled',
      'app.deletion_cancelled',
    ]);
    expect(typesOf(at('/some'))).toEqual(['signin.verified', 'user.deleted']);
    expect(at('/off')).toEqual([]);

    for (const [path, key] of [['/all', all.secret], ['/some', some.secret]] as const) {
      for (const webhook of at(path)) {
        expect(webhook.headers['content-type']).toBe('application/json');
        expect(webhook.signatures).toEqual([expect.stringMatching(/^v1,/)]);
        expect(verifyWebhook(webhook, key)).toEqual(webhook.payload);
        expect(webhook.payload.timestamp).toBe(new Date(T0).toISOString());
      }
    }
    // One webhook-id per delivery, whatever the endpoint.
    expect(new Set(receiver.received.map((w) => w.id)).size).toBe(receiver.received.length);

    const data = Object.fromEntries(at('/all').map((w) => [w.payload.type, w.payload.data]));
    expect(data['passkey.registered']).toEqual(expect.objectContaining({ userId, credentialId: credential.idB64, nickname: 'Laptop' }));
    expect(data['signin.completed']).toEqual(expect.objectContaining({ userId, credentialId: credential.idB64, purpose: 'sign-in' }));
    expect(data['signin.verified']).toEqual(expect.objectContaining({ userId, type: 'passkey_signin', credentialId: credential.idB64 }));
    expect(data['passkey.renamed']).toEqual({ userId, credentialId: credential.idB64, nickname: 'Work laptop' });
    expect(data['aliases.updated']).toEqual({ userId, aliasCount: 1 });
    expect(data['magic_link.sent']).toEqual({ userId });
    expect(data['passkey.deleted']).toEqual({ userId, credentialId: credential.idB64 });
    expect(data['user.deleted']).toEqual({ userId });
    expect(data['app.deletion_scheduled']).toEqual({ keysFreezeAt: expect.any(String), deleteAt: expect.any(String) });
    // No alias, token or address in any of them.
    const everything = receiver.received.map((w) => w.body).join('\n');
    for (const text of ['secret-alias@example.com', 'other-alias@example.com', signin.complete.body.token, 'admin@example.com', 'https://shop.example.com']) expect(everything).not.toContain(text);

    // Every delivery is recorded as delivered, with its one attempt.
    const deliveries = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId } });
    expect(deliveries.map((d) => [d.state, d.attempts, d.lastStatus])).toEqual(deliveries.map(() => ['delivered', 1, 204]));
    expect(await svc.services.store.db.webhookAttempt.count({ where: { tenant: app.appId } })).toBe(deliveries.length);
  });

  it('reports each change of the authenticator allow and block lists as authenticators.updated, once to each endpoint subscribed to it', async () => {
    const pki = createTestPki();
    try {
      // The lists need FIDO metadata that knows the AAGUIDs, and an app on the enterprise plan.
      await svc.close();
      svc = await serviceOn(database, { ...LOOPBACK_ALLOWED, ...metadataEnv(pki, writeBlob(pki, 'webhooks.jwt', testBlob(pki))) }, clock);
      const [app, other] = [await newApp(svc, 'enterprise'), await newApp(svc, 'enterprise')];
      const lists = await createEndpoint(svc, app, { url: receiver.url('/lists'), eventTypes: ['authenticators.updated'] });
      const both = await createEndpoint(svc, app, { url: receiver.url('/both'), eventTypes: ['user.deleted', 'authenticators.updated'] });
      await createEndpoint(svc, app, { url: receiver.url('/users'), eventTypes: ['user.deleted'] });
      await createEndpoint(svc, app, { url: receiver.url('/off'), eventTypes: ['authenticators.updated'], enabled: false });
      await createEndpoint(svc, other, { url: receiver.url('/other-app'), eventTypes: ['authenticators.updated'] });
      const call = (path: string, body: object) => svc.http.post(path).set('ApiSecret', app.apiSecret).send(body);

      expect((await call('/authenticators/add', { aaGuids: [KEYS.trusted, KEYS.other.toUpperCase(), KEYS.trusted], isAllowed: true })).status).toBe(204);
      expect((await call('/authenticators/add', { aaGuids: [KEYS.other], isAllowed: false })).status).toBe(204);
      expect((await call('/authenticators/remove', { aaGuids: [KEYS.other, KEYS.trusted, KEYS.unknown] })).status).toBe(204);
      // What changes nothing reports nothing: a removal of what no list holds, a refused addition.
      expect((await call('/authenticators/remove', { aaGuids: [KEYS.trusted] })).status).toBe(204);
      expectProblem(await call('/authenticators/add', { aaGuids: [KEYS.unknown], isAllowed: true }), 400, 'unknown_authenticator');

      await svc.services.webhookWorker.drain();
      const at = (path: string) => receiver.received.filter((w) => w.path === path);
      const expected = [
        { change: 'allowed', aaGuids: [KEYS.trusted, KEYS.other] },
        { change: 'blocked', aaGuids: [KEYS.other] },
        { change: 'removed', aaGuids: [KEYS.other, KEYS.trusted].sort() },
      ];
      for (const [path, key] of [['/lists', lists.secret], ['/both', both.secret]] as const) {
        expect(typesOf(at(path))).toEqual(['authenticators.updated', 'authenticators.updated', 'authenticators.updated']);
        for (const webhook of at(path)) expect(verifyWebhook(webhook, key)).toEqual(webhook.payload);
        expect(at(path).map((w) => ({ ...w.payload.data, aaGuids: [...(w.payload.data.aaGuids as string[])].sort() }))).toEqual(
          expected.map((e) => ({ ...e, aaGuids: [...e.aaGuids].sort() })),
        );
      }
      expect(receiver.received.filter((w) => !['/lists', '/both'].includes(w.path))).toEqual([]);
    } finally {
      pki.remove();
    }
  });

  describe('magic_link.sent, for mail that went out', () => {
    let smtp: TestSmtpServer;
    let gate: SmtpGate;
    beforeEach(async () => {
      smtp = await startSmtpServer();
      gate = await startSmtpGate(smtp.port);
      await svc.close();
      svc = await serviceOn(database, { ...LOOPBACK_ALLOWED, SMTP_URL: gate.url, MAIL_FROM: 'login@passwordless.test' }, clock);
    });
    afterEach(async () => {
      await gate.close();
      await smtp.stop();
    });

    const sendLink = (on: Running, app: TestApp, userId: string) =>
      on.http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: 'admin@example.com', urlTemplate: 'https://shop.example.com/?t=$TOKEN', userId });
    const deliveryLog = async (app: TestApp, id: string) => (await svc.http.get(`/webhooks/deliveries?id=${id}`).set('ApiSecret', app.apiSecret)).body as { eventType: string; state: string }[];

    it('is not sent while the mail is in flight, is sent once it went out, and never for a mail that failed', async () => {
      const app = await newApp(svc);
      const endpoint = await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['magic_link.sent', 'user.deleted'] });
      const sent = () => receiver.received.map((w) => [w.payload.type, w.payload.data]);
      // An event before the send, still to be sent when the send is in flight.
      await givenUsers(svc.http, app.apiSecret, ['u0']);
      expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId: 'u0' })).status).toBe(204);

      // The SMTP server has the mail; the service has not heard so yet: what came before goes, the send's event waits.
      gate.holdReplies = true;
      const pending = sendLink(svc, app, 'u1').then((res) => res);
      await smtp.nextMailTo('admin@example.com');
      await svc.services.webhookWorker.drain();
      expect(sent()).toEqual([['user.deleted', { userId: 'u0' }]]);
      gate.release();
      expect((await pending).status).toBe(204);
      await svc.services.webhookWorker.drain();
      expect(sent()).toEqual([
        ['user.deleted', { userId: 'u0' }],
        ['magic_link.sent', { userId: 'u1' }],
      ]);
      for (const webhook of receiver.received) expect(verifyWebhook(webhook, endpoint.secret)).toEqual(webhook.payload);

      // SMTP down: the send fails, and nothing says it went out, even once any hold has run out.
      await smtp.stop();
      expectProblem(await sendLink(svc, app, 'u2'), 502, 'mail_delivery_failed');
      clock.now += MAGIC_LINK_SENT_HOLD_MS + 1;
      await svc.services.webhookWorker.drain();
      expect(receiver.received).toHaveLength(2);
      expect((await deliveryLog(app, endpoint.id)).map((d) => [d.eventType, d.state])).toEqual([
        ['magic_link.sent', 'delivered'],
        ['user.deleted', 'delivered'],
      ]);
    });

    it('is sent for a mail that went out though the service that sent it never heard back, once its hold runs out', async () => {
      const app = await newApp(svc);
      const endpoint = await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['magic_link.sent'] });
      gate.holdReplies = true;
      const stuck = sendLink(svc, app, 'u1').then((res) => res);
      await smtp.nextMailTo('admin@example.com');

      // Another process on the database (what a restart after a crash here would be) sends it once the hold runs out.
      const restarted = await serviceOn(database, LOOPBACK_ALLOWED, clock);
      try {
        clock.now += MAGIC_LINK_SENT_HOLD_MS - 1;
        await restarted.services.webhookWorker.drain();
        expect(receiver.received).toEqual([]);
        clock.now += 1;
        await restarted.services.webhookWorker.drain();
        expect(receiver.received.map((w) => [w.payload.type, w.payload.data])).toEqual([['magic_link.sent', { userId: 'u1' }]]);
        expect(verifyWebhook(receiver.received[0], endpoint.secret)).toEqual(receiver.received[0].payload);

        // The first service hears back after all: nothing is sent twice.
        gate.release();
        expect((await stuck).status).toBe(204);
        await svc.services.webhookWorker.drain();
        await restarted.services.webhookWorker.drain();
        expect(receiver.received).toHaveLength(1);
      } finally {
        await restarted.close();
      }
    });
  });

  it('keeps what a receiver that is down misses, and delivers it all in order once it is back, on the backoff schedule', async () => {
    const app = await newApp(svc);
    const endpoint = await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    await receiver.stop();
    await givenUsers(svc.http, app.apiSecret, ['u1', 'u2', 'u3']);
    for (const userId of ['u1', 'u2', 'u3']) expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId })).status).toBe(204);

    const drain = async (advanceMs: number) => {
      clock.now += advanceMs;
      await svc.services.webhookWorker.drain();
    };
    const attempts = () => svc.services.store.db.webhookAttempt.findMany({ where: { tenant: app.appId }, orderBy: { at: 'asc' }, include: { delivery: { select: { eventType: true, payload: true } } } });
    await drain(0);
    // Only the oldest was tried: the others wait behind it.
    expect((await attempts()).map((a) => [a.status, typeof a.error])).toEqual([[null, 'string']]);
    await drain(4_999);
    expect(await attempts()).toHaveLength(1);
    await drain(1);
    expect(await attempts()).toHaveLength(2);
    // Then 5 minutes, 30 minutes, 2 hours, each one try of the same oldest delivery.
    for (const wait of [300_000, 1_800_000, 7_200_000]) {
      await drain(wait - 1);
      const before = (await attempts()).length;
      await drain(1);
      expect((await attempts()).length).toBe(before + 1);
    }
    const oldest = await svc.services.store.db.webhookDelivery.findFirst({ where: { tenant: app.appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect([oldest?.state, oldest?.attempts, oldest?.nextAttemptAt.getTime()]).toEqual(['pending', 5, clock.now + 18_000_000]);
    expect(receiver.received).toEqual([]);

    await receiver.start();
    await drain(18_000_000);
    expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(['u1', 'u2', 'u3']);
    for (const webhook of receiver.received) verifyWebhook(webhook, endpoint.secret);
    const log = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(log.map((d) => [d.state, d.attempts])).toEqual([['delivered', 6], ['delivered', 1], ['delivered', 1]]);
  });

  it('writes no delivery for a sign-in refused as a cloned authenticator, nor for a token verified a second time', async () => {
    const app = await newApp(svc);
    await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['signin.completed', 'signin.verified'] });
    const { userId, credential } = await registerPasskey(svc, app, {});
    credential.counter = 5;
    const first = await signIn(svc, app, credential, { userId });
    expect(first.complete.status).toBe(200);
    // A clone reports a counter that is not above the stored one: refused, and nothing reported.
    credential.counter = 5;
    const cloned = await signIn(svc, app, credential, { userId });
    expect(cloned.complete.status).toBe(400);
    expect((await verifyToken(svc, app, first.complete.body.token)).status).toBe(200);
    expect((await verifyToken(svc, app, first.complete.body.token)).status).not.toBe(200);

    await svc.services.webhookWorker.drain();
    expect(typesOf(receiver.received)).toEqual(['signin.completed', 'signin.verified']);
    expect(await svc.services.store.db.webhookDelivery.count({ where: { tenant: app.appId } })).toBe(2);
  });

  it('reports every verify of a magic-link token, which stays reusable and is never redeemed', async () => {
    const app = await newApp(svc);
    await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['signin.verified'] });
    const token = await svc.services.tokens.issue('verify', bareVerifyPayload(app.appId, 'magic_link', 'link-user', clock.now));
    expect((await verifyToken(svc, app, token)).status).toBe(200);
    expect((await verifyToken(svc, app, token)).status).toBe(200);

    await svc.services.webhookWorker.drain();
    expect(receiver.received.map((w) => [w.payload.type, w.payload.data.type, w.payload.data.userId])).toEqual([
      ['signin.verified', 'magic_link', 'link-user'],
      ['signin.verified', 'magic_link', 'link-user'],
    ]);
    expect(await svc.services.store.db.redeemedToken.count({ where: { tenant: app.appId } })).toBe(0);
  });

  it('stops a run at a delivery held back until later, and sends nothing after it before it', async () => {
    const app = await newApp(svc);
    await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    await givenUsers(svc.http, app.apiSecret, ['h1', 'h2', 'h3']);
    for (const userId of ['h1', 'h2', 'h3']) expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId })).status).toBe(204);
    // The second is held for ten minutes (as magic_link.sent is until its mail is taken).
    const [, held] = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    await svc.services.store.db.webhookDelivery.updateMany({ where: { id: held.id, tenant: app.appId }, data: { nextAttemptAt: new Date(T0 + 600_000) } });
    await svc.services.webhookWorker.drain();
    expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(['h1']);
    const waiting = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId, state: 'pending' }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(waiting.map((d) => [d.attempts, d.claimedBy])).toEqual([[0, null], [0, null]]);
    clock.now += 600_000;
    await svc.services.webhookWorker.drain();
    expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(['h1', 'h2', 'h3']);
  });

  it("takes turns between apps: every app's first waiting endpoint before any app's second, and never more of one app's than its share", async () => {
    const [busy, quiet] = [await newApp(svc), await newApp(svc)];
    const busyEndpoints = [];
    for (let i = 0; i < 5; i++) busyEndpoints.push(await createEndpoint(svc, busy, { url: receiver.url(`/busy/${i}`), eventTypes: ['aliases.updated'] }));
    const quietEndpoint = await createEndpoint(svc, quiet, { url: receiver.url('/quiet'), eventTypes: ['aliases.updated'] });
    // The busy app's five deliveries are older than the quiet app's one.
    await givenUsers(svc.http, busy.apiSecret, ['u1']);
    clock.now += 1;
    await givenUsers(svc.http, quiet.apiSecret, ['u1']);
    const { db } = svc.services.store;
    const { webhookDeliveries } = svc.services.store.repositories({ now: () => clock.now, outboxQuota: 10_000, logger: createLogger('silent') });
    const claim = async (limit: number, perApp: number, sending: Map<string, number>) => {
      const claimed = await webhookDeliveries.claim({ now: clock.now, leaseUntil: clock.now + 60_000, workerId: 'test-worker', limit, runLength: 1, perApp, sending });
      await db.webhookDelivery.updateMany({ where: { id: { in: claimed.map((d) => d.id) } }, data: { leaseUntil: null, claimedBy: null } });
      return claimed.map((d) => d.endpointId).sort();
    };
    const set = (...ids: string[]) => ids.sort();
    // Two slots: the quiet app's endpoint gets one though the busy app's five waited longer.
    expect(await claim(2, 4, new Map())).toEqual(set(busyEndpoints[0].id, quietEndpoint.id));
    // Ten slots, a share of two: the busy app's two longest waiting, and the quiet app's.
    expect(await claim(10, 2, new Map())).toEqual(set(busyEndpoints[0].id, quietEndpoint.id, busyEndpoints[1].id));
    // Those already sent to count: with two of the busy app's under way, only the quiet app's is claimed.
    expect(await claim(10, 2, new Map([[busy.appId, 2]]))).toEqual(set(quietEndpoint.id));
    expect(await claim(10, 3, new Map([[busy.appId, 2], [quiet.appId, 3]]))).toEqual(set(busyEndpoints[0].id));
  });

  it("makes an endpoint whose run spent its budget yield its turn to another app's endpoint that was waiting", async () => {
    await svc.close();
    svc = await inProcessService(database, LOOPBACK_ALLOWED, {
      now: () => clock.now,
      flushIntervalMs: 0,
      // One slot, and a budget that every run has spent after its first delivery.
      webhooks: { pollIntervalMs: 0, random: () => 0.5, concurrency: 1, perAppConcurrency: 1, runBudgetMs: 0 },
    });
    const [slow, other] = [await newApp(svc), await newApp(svc)];
    await createEndpoint(svc, slow, { url: receiver.url('/slow'), eventTypes: ['user.deleted'] });
    await createEndpoint(svc, other, { url: receiver.url('/other'), eventTypes: ['user.deleted'] });
    await givenUsers(svc.http, slow.apiSecret, ['s1', 's2', 's3']);
    for (const userId of ['s1', 's2', 's3']) expect((await svc.http.post('/users/delete').set('ApiSecret', slow.apiSecret).send({ userId })).status).toBe(204);
    clock.now += 1;
    await deleteUser(svc, other, 'o1');
    clock.now += 1;
    await svc.services.webhookWorker.drain();
    // s1's run yielded after it: o1, which had waited since before, went next; s2 and s3 then in order.
    expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(['s1', 'o1', 's2', 's3']);
    const log = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: slow.appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(log.map((d) => [d.state, d.attempts])).toEqual([['delivered', 1], ['delivered', 1], ['delivered', 1]]);
  });

  it('sends a backlog in order in runs over one connection, and a failure mid-run holds back what follows it', async () => {
    const app = await newApp(svc);
    const endpoint = await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    const users = Array.from({ length: 250 }, (_, i) => `u${i + 1}`);
    await givenUsers(svc.http, app.apiSecret, users);
    for (const userId of users) expect((await svc.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId })).status).toBe(204);
    // u120's first attempt fails.
    let failed = false;
    receiver.status = (_path, webhook) => (webhook.payload.data.userId === 'u120' && !failed ? ((failed = true), 500) : 204);

    // One round sends one run of 100; the second stops at u120.
    expect(await svc.services.webhookWorker.tick()).toBe(100);
    await svc.services.webhookWorker.drain();
    expect(receiver.received.map((w) => w.payload.data.userId)).toEqual(users.slice(0, 120));
    const states = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId }, orderBy: [{ createdAt: 'asc' }, { id: 'asc' }] });
    expect(states.slice(0, 119).every((d) => d.state === 'delivered' && d.attempts === 1)).toBe(true);
    expect([states[119].state, states[119].attempts, states[119].lastStatus]).toEqual(['pending', 1, 500]);
    // What followed it was not attempted, and no one holds it.
    expect(states.slice(120).map((d) => [d.state, d.attempts, d.claimedBy])).toEqual(users.slice(120).map(() => ['pending', 0, null]));

    clock.now += 5_000;
    await svc.services.webhookWorker.drain();
    expect(receiver.received.map((w) => w.payload.data.userId)).toEqual([...users.slice(0, 120), ...users.slice(119)]);
    for (const webhook of receiver.received) verifyWebhook(webhook, endpoint.secret);
    expect(await svc.services.store.db.webhookDelivery.count({ where: { tenant: app.appId, state: 'delivered' } })).toBe(250);
    expect(await svc.services.store.db.webhookAttempt.count({ where: { tenant: app.appId } })).toBe(251);
    // Kept alive: one connection for all of it (the failure was an answer, not a broken connection).
    expect(receiver.connections).toBe(1);
  });

  it('gives a delivery up about three days after it was made', async () => {
    const app = await newApp(svc);
    await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    receiver.status = 503;
    expect((await deleteUser(svc, app, 'u1')).status).toBe(204);
    for (let step = 0; step < 80; step++) {
      await svc.services.webhookWorker.drain();
      clock.now += 3_600_000;
    }
    const [delivery] = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId } });
    expect([delivery.state, delivery.attempts, delivery.lastStatus]).toEqual(['failed', 12, 503]);
    expect(receiver.received).toHaveLength(12);
    expect(new Set(receiver.received.map((w) => w.id)).size).toBe(1);
  });

  it('disables an endpoint that answers 410 Gone, and fails what it still had pending', async () => {
    const app = await newApp(svc);
    const gone = await createEndpoint(svc, app, { url: receiver.url('/gone'), eventTypes: ['user.deleted'] });
    await createEndpoint(svc, app, { url: receiver.url('/fine'), eventTypes: ['user.deleted'] });
    receiver.status = (path) => (path === '/gone' ? 410 : 200);
    for (const userId of ['u1', 'u2']) await deleteUser(svc, app, userId);
    await svc.services.webhookWorker.drain();
    expect(receiver.received.map((w) => `${w.path} ${w.payload.data.userId}`).sort()).toEqual(['/fine u1', '/fine u2', '/gone u1']);

    const listed = (await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret)).body as { id: string; enabled: boolean; disabledReason: string | null }[];
    expect(listed.find((e) => e.id === gone.id)).toEqual(expect.objectContaining({ enabled: false, disabledReason: expect.stringContaining('410') }));
    const states = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId, endpointId: gone.id } });
    expect(states.map((d) => d.state)).toEqual(['failed', 'failed']);

    // No more deliveries for it, until the app enables it again.
    await deleteUser(svc, app, 'u3');
    expect(await svc.services.store.db.webhookDelivery.count({ where: { tenant: app.appId, endpointId: gone.id } })).toBe(2);
    const enabled = await svc.http.post('/webhooks/update').set('ApiSecret', app.apiSecret).send({ id: gone.id, enabled: true });
    expect([enabled.body.enabled, enabled.body.disabledReason]).toEqual([true, null]);
    await deleteUser(svc, app, 'u4');
    expect(await svc.services.store.db.webhookDelivery.count({ where: { tenant: app.appId, endpointId: gone.id } })).toBe(3);
  });

  it('refuses a destination at delivery time that the rules no longer allow, and records the refusal as an attempt', async () => {
    const app = await newApp(svc);
    await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    // The operator takes loopback off the allowed networks and restarts.
    await svc.close();
    svc = await serviceOn(database, { WEBHOOK_ALLOW_INSECURE: 'true' }, clock);
    await deleteUser(svc, app, 'u1');
    await svc.services.webhookWorker.drain();
    expect(receiver.received).toEqual([]);
    const [attempt] = await svc.services.store.db.webhookAttempt.findMany({ where: { tenant: app.appId } });
    expect([attempt.status, attempt.error]).toEqual([null, expect.stringContaining('destination refused')]);
    const [delivery] = await svc.services.store.db.webhookDelivery.findMany({ where: { tenant: app.appId } });
    expect([delivery.state, delivery.attempts]).toEqual(['pending', 1]);
  });

  it('signs with both secrets for a day after a rotation, each signature verifying on its own', async () => {
    const app = await newApp(svc);
    const endpoint = await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    const rotated = await svc.http.post('/webhooks/rotate-secret').set('ApiSecret', app.apiSecret).send({ id: endpoint.id });
    expect(rotated.status).toBe(200);
    expect(rotated.body).toEqual({ id: endpoint.id, secret: expect.stringMatching(/^whsec_/), previousSecretExpiresAt: new Date(T0 + 86_400_000).toISOString() });
    expect(rotated.body.secret).not.toBe(endpoint.secret);
    await deleteUser(svc, app, 'u1');
    await svc.services.webhookWorker.drain();
    const [webhook] = receiver.received;
    expect(webhook.signatures).toEqual([expect.stringMatching(/^v1,/), expect.stringMatching(/^v1,/)]);
    expect(verifyWebhook(webhook, rotated.body.secret)).toEqual(webhook.payload);
    expect(verifyWebhook(webhook, endpoint.secret)).toEqual(webhook.payload);
    // Each signature is one secret's: the receiver that knows only one of them finds it.
    for (const [signature, key] of [[webhook.signatures[0], rotated.body.secret], [webhook.signatures[1], endpoint.secret]]) {
      expect(verifyWebhook({ ...webhook, headers: { ...webhook.headers, 'webhook-signature': signature } }, key)).toEqual(webhook.payload);
    }

    // A day later only the new secret signs.
    clock.now += 86_400_001;
    await deleteUser(svc, app, 'u2');
    await svc.services.webhookWorker.drain();
    const later = receiver.received[1];
    expect(later.signatures).toHaveLength(1);
    expect(verifyWebhook(later, rotated.body.secret)).toEqual(later.payload);
    expect(() => verifyWebhook(later, endpoint.secret)).toThrow();
  });

  it('moves its secrets to a new key-encryption key with token-keys rewrap, dropping a previous secret past its day', async () => {
    const [first, second] = ['11'.repeat(32), '22'.repeat(32)];
    const keks = { first: parseKeyEncryptionKey(first)!, second: parseKeyEncryptionKey(second)! };
    await svc.close();
    svc = await serviceOn(database, { ...LOOPBACK_ALLOWED, TOKEN_KEY_ENCRYPTION_KEY: first }, clock);
    const app = await newApp(svc);
    const endpoint = await createEndpoint(svc, app, { url: receiver.url('/in'), eventTypes: ['user.deleted'] });
    const rotated = await svc.http.post('/webhooks/rotate-secret').set('ApiSecret', app.apiSecret).send({ id: endpoint.id });
    expect(rotated.status).toBe(200);
    clock.now += 86_400_001;

    const rotation = { current: keks.second, previous: [keks.first] };
    const endpoints = new WebhookEndpointRepository({ db: svc.services.store.db, sql: svc.services.store.sql });
    expect(await resealWebhookSecrets(endpoints, rotation, clock.now)).toEqual({ rewrapped: 1, unchanged: 0, cleared: 1, unreadable: [] });
    expect(await resealWebhookSecrets(endpoints, rotation, clock.now)).toEqual({ rewrapped: 0, unchanged: 1, cleared: 0, unreadable: [] });

    // The first key gone, the endpoint signs with its current secret alone.
    await svc.close();
    svc = await serviceOn(database, { ...LOOPBACK_ALLOWED, TOKEN_KEY_ENCRYPTION_KEY: second }, clock);
    await deleteUser(svc, app, 'u1');
    await svc.services.webhookWorker.drain();
    const [webhook] = receiver.received;
    expect(webhook.signatures).toHaveLength(1);
    expect(verifyWebhook(webhook, rotated.body.secret)).toEqual(webhook.payload);
    const listed = (await svc.http.get('/webhooks/list').set('ApiSecret', app.apiSecret)).body;
    expect(listed).toEqual([expect.objectContaining({ id: endpoint.id, previousSecretExpiresAt: null })]);
  });
});
