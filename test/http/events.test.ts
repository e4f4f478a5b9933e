import pino from 'pino';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices } from '../../src/server/services';
import { EventLog } from '../../src/server/services/events/eventLog';
import { openStore } from '../../src/server/store';
import { EventRepository } from '../../src/server/store/repositories/events';
import supertest from 'supertest';
import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { keyIdOf, managementClient } from '../support/http';
import { privateApi, publicApi, setFeatures } from '../support/privateApi';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { MANAGEMENT_KEY, createTestDatabase, providers, type TestApp, type TestService } from '../support/testService';

interface ListedEvent {
  id: string;
  performedAt: string;
  message: string;
  performedBy: string;
  tenantId: string;
  eventType: string;
  severity: string;
  subject: string;
  apiKeyId: string;
}

const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

describe.each(providers())('event log on %s', (provider) => {
  const service = useTestService(provider);
  let svc: TestService;
  beforeEach(() => {
    svc = service();
  });

  const loggingApp = async () => {
    const app = await svc.createApp();
    await setFeatures(svc, app, { eventLoggingIsEnabled: true });
    return app;
  };
  const eventsOf = async (app: TestApp, query = 'pageNumber=1&numberOfResults=1000') => {
    const res = await privateApi(svc, app).get(`/events?${query}`);
    expect(res.status).toBe(200);
    return res.body as { tenantId: string; events: ListedEvent[]; totalEventCount: number };
  };

  it('records each action with its type, severity, subject and who performed it; never a secret, token or alias', async () => {
    const app = await loggingApp();
    const admin = managementClient(svc);
    const alias = 'secret-alias@example.com';
    const { credential, userId } = await registerPasskey(svc, app, { aliases: [alias] });
    const signedIn = await signIn(svc, app, credential, { userId });
    const signinToken = signedIn.complete.body.token as string;
    expect((await verifyToken(svc, app, signinToken)).status).toBe(200);
    const generated = await privateApi(svc, app).post('/signin/generate-token', { userId });
    expect((await privateApi(svc, app).post('/alias', { userId, aliases: [alias, 'other-alias'] })).status).toBe(204);
    expect((await privateApi(svc, app).post('/magic-links/send', { emailAddress: 'admin@example.com', urlTemplate: 'https://shop.example.com/?t=$TOKEN', userId })).status).toBe(204);
    expect((await privateApi(svc, app).post('/auth-configs/add', { purpose: 'pay', timeToLive: '00:01:00', performedBy: 'alice' })).status).toBe(201);
    expect((await privateApi(svc, app).post('/auth-configs', { purpose: 'pay', timeToLive: '00:02:00', performedBy: 'bob' })).status).toBe(204);
    expect((await privateApi(svc, app).post('/auth-configs/delete', { purpose: 'pay', performedBy: 'carol' })).status).toBe(204);
    expect((await privateApi(svc, app).post('/apps/features', { enableMagicLinks: false, performedBy: 'dave' })).status).toBe(204);
    expect((await privateApi(svc, app).post('/apps/features', { enableManuallyGeneratedAuthenticationTokens: true })).status).toBe(204);
    const newKey: string = (await admin.post(`/admin/apps/${app.appId}/public-keys`, { scopes: [0] })).body.apiKey;
    for (const action of ['lock', 'unlock']) expect((await admin.post(`/admin/apps/${app.appId}/api-keys/${keyIdOf(newKey)}/${action}`)).status).toBe(204);
    expect((await admin.delete(`/admin/apps/${app.appId}/api-keys/${keyIdOf(newKey)}`)).status).toBe(204);
    expect((await admin.post(`/admin/apps/${app.appId}/api-keys/${keyIdOf(app.apiKey2)}/lock`)).status).toBe(204);
    expect((await publicApi(svc, { ...app, apiKey: app.apiKey2 }).post('/signin/begin', {})).status).toBe(401);
    // Same app and key id, another secret.
    const at = app.apiSecret.length - 10;
    const wrongSecret = app.apiSecret.slice(0, at) + (app.apiSecret[at] === '0' ? '1' : '0') + app.apiSecret.slice(at + 1);
    expect((await svc.http.get('/users/count').set('ApiSecret', wrongSecret)).status).toBe(401);
    for (const action of ['freeze', 'unfreeze']) expect((await admin.post(`/admin/apps/${app.appId}/${action}`)).status).toBe(204);
    const credentialId = (await privateApi(svc, app).get(`/credentials/list?userId=${userId}`)).body[0].descriptor.id;
    expect((await privateApi(svc, app).post('/credentials/delete', { credentialId })).status).toBe(204);
    expect((await privateApi(svc, app).post('/users/delete', { userId })).status).toBe(204);
    // Refused keys are tallied for a minute (one event per key id and address); stopping writes them at once, as this does.
    svc.services.failedKeyUses.recordAll();

    const page = await eventsOf(app);
    expect(page.tenantId).toBe(app.appId);
    expect(page.totalEventCount).toBe(page.events.length);
    for (const event of page.events) {
      expect(event).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        performedAt: expect.stringMatching(ISO),
        message: expect.any(String),
        performedBy: expect.any(String),
        tenantId: app.appId,
        eventType: expect.any(String),
        severity: expect.stringMatching(/^(Informational|Warning|Alert)$/),
        subject: expect.any(String),
        apiKeyId: expect.any(String),
      });
    }
    const summary = page.events.map((e) => [e.eventType, e.severity, e.subject, e.performedBy, e.apiKeyId]).reverse();
    const user = (type: string) => [type, 'Informational', userId, userId, ''];
    expect(summary).toEqual([
      // Turning logging on is the first thing logged; the app's creation happened while it was off.
      ['ApiManagementFeaturesChanged', 'Warning', app.appId, 'Unknown User', ''],
      user('ApiAuthUserRegistered'),
      user('ApiAuthPasskeyRegistrationBegan'),
      user('ApiAuthPasskeyRegistrationCompleted'),
      user('ApiUserSignInCompleted'),
      user('ApiUserSignInVerified'),
      user('ApiUserSigninTokenCreated'),
      user('ApiUserSetAliases'),
      user('ApiUserMagicLinkCreated'),
      ['ApiAuthenticationConfigurationCreated', 'Informational', 'pay', 'alice', ''],
      ['ApiAuthenticationConfigurationUpdated', 'Informational', 'pay', 'bob', ''],
      ['ApiAuthenticationConfigurationDeleted', 'Informational', 'pay', 'carol', ''],
      ['AdminMagicLinksDisabled', 'Alert', app.appId, 'dave', ''],
      ['AdminGenerateSignInTokenEndpointEnabled', 'Alert', app.appId, 'Unknown User', ''],
      ['AdminApiKeyCreated', 'Informational', keyIdOf(newKey), 'Unknown User', keyIdOf(newKey)],
      ['AdminApiKeyLocked', 'Informational', keyIdOf(newKey), 'Unknown User', keyIdOf(newKey)],
      ['AdminApiKeyUnlocked', 'Informational', keyIdOf(newKey), 'Unknown User', keyIdOf(newKey)],
      ['AdminApiKeyDeleted', 'Informational', keyIdOf(newKey), 'Unknown User', keyIdOf(newKey)],
      ['AdminApiKeyLocked', 'Informational', keyIdOf(app.apiKey2), 'Unknown User', keyIdOf(app.apiKey2)],
      // Written as tallies, dated at their first refusal.
      ['ApiAuthDisabledPublicKeyUsed', 'Alert', keyIdOf(app.apiKey2), 'Unknown User', keyIdOf(app.apiKey2)],
      ['ApiAuthInvalidSecretKeyUsed', 'Alert', keyIdOf(app.apiSecret), 'Unknown User', keyIdOf(app.apiSecret)],
      ['ApiManagementAppFrozen', 'Alert', app.appId, 'System', ''],
      ['ApiManagementAppUnfrozen', 'Alert', app.appId, 'System', ''],
      ['ApiUserDeleteCredential', 'Informational', userId, 'System', ''],
      ['ApiUserDeleted', 'Informational', userId, 'System', ''],
    ]);
    const everything = JSON.stringify(page);
    for (const secret of [app.apiSecret.slice(-32), wrongSecret.slice(-32), app.apiKey.slice(-32), signinToken, generated.body.token, alias, 'other-alias', 'admin@example.com']) {
      expect(everything).not.toContain(secret);
    }
    expect(everything).not.toContain('verify_');
  });

  it('pages newest first with the total count; an empty numberOfResults means 100', async () => {
    const app = await loggingApp();
    for (let i = 0; i < 12; i++) expect((await privateApi(svc, app).post('/signin/generate-token', { userId: `u${i}` })).status).toBe(200);
    const first = await eventsOf(app, 'pageNumber=1&numberOfResults=5');
    // 12 tokens, after the event of turning logging on.
    expect(first.totalEventCount).toBe(13);
    expect(first.events.map((e) => e.subject)).toEqual(['u11', 'u10', 'u9', 'u8', 'u7']);
    expect((await eventsOf(app, 'pageNumber=3&numberOfResults=5')).events.map((e) => e.subject)).toEqual(['u1', 'u0', app.appId]);
    expect(await eventsOf(app, 'pageNumber=4&numberOfResults=5')).toEqual({ tenantId: app.appId, events: [], totalEventCount: 13, next: null });
    expect((await eventsOf(app, 'pageNumber=1&numberOfResults=')).events).toHaveLength(13);
    expect((await eventsOf(app, 'PageNumber=2147483647')).events).toEqual([]);
  });

  it('pages by key after any page: each next continues where the last page ended, and the first page gives the same as pageNumber=1', async () => {
    const app = await loggingApp();
    for (let i = 0; i < 12; i++) expect((await privateApi(svc, app).post('/signin/generate-token', { userId: `u${i}` })).status).toBe(200);
    const first = await eventsOf(app, 'pageNumber=1&numberOfResults=5');
    const subjects: string[] = first.events.map((e) => e.subject);
    let next = (first as unknown as { next: string | null }).next;
    while (next !== null) {
      const page = (await eventsOf(app, `after=${next}&numberOfResults=5`)) as unknown as { events: ListedEvent[]; totalEventCount: number; next: string | null };
      expect(page.totalEventCount).toBe(13);
      subjects.push(...page.events.map((e) => e.subject));
      next = page.next;
    }
    expect(subjects).toEqual([...Array.from({ length: 12 }, (_, i) => `u${11 - i}`), app.appId]);
    const everything = await eventsOf(app, 'pageNumber=1&numberOfResults=13');
    expect(everything.events.map((e) => e.subject)).toEqual(subjects);
    // A full page always names a next one, which is empty when the log ends there.
    expect(await eventsOf(app, `after=${(everything as unknown as { next: string }).next}`)).toEqual({ tenantId: app.appId, events: [], totalEventCount: 13, next: null });
  });

  it('keeps the total as events are written and swept, without counting the log', async () => {
    const app = await loggingApp();
    await setFeatures(svc, app, { eventLoggingRetentionPeriod: 7 });
    expect((await eventsOf(app)).totalEventCount).toBe(2);
    const { db } = svc.services.store;
    const old = { tenant: app.appId, performedAt: new Date(Date.now() - 8 * 86_400_000), eventType: 'ApiUserDeleted', message: 'm', severity: 'Informational', performedBy: 'System', subject: 'old' };
    // Written as the event log writes them: the rows and the app's count together.
    await db.$transaction([db.event.createMany({ data: [{ ...old, id: `${app.appId}-a` }, { ...old, id: `${app.appId}-b` }] }), db.appCounter.update({ where: { tenant: app.appId }, data: { eventCount: { increment: 2 } } })]);
    expect((await eventsOf(app)).totalEventCount).toBe(4);
    await svc.services.events.sweep();
    const page = await eventsOf(app);
    expect([page.totalEventCount, page.events.length]).toEqual([2, 2]);
  });

  it.each([
    ['a cursor that no page gave', 'after=bm90LWEta2V5', 'after'],
    ['a damaged cursor', 'after=%25%25', 'after'],
    ['both pageNumber and after', 'pageNumber=1&after=MTc5NTQzOTA5ODgxOC5hYmM', 'after'],
    ['no pageNumber', '', 'pageNumber'],
    ['pageNumber 0', 'pageNumber=0', 'pageNumber'],
    ['a pageNumber that is not a number', 'pageNumber=first', 'pageNumber'],
    ['numberOfResults 0', 'pageNumber=1&numberOfResults=0', 'numberOfResults'],
    ['numberOfResults 1001', 'pageNumber=1&numberOfResults=1001', 'numberOfResults'],
  ])('refuses %s with a 400 naming the parameter', async (_case, query, field) => {
    const app = await loggingApp();
    expectValidationProblem(await privateApi(svc, app).get(`/events?${query}`), field);
  });

  it('answers 403 while logging is off, and keeps nothing that happened meanwhile', async () => {
    const app = await svc.createApp();
    const off = await privateApi(svc, app).get('/events?pageNumber=1');
    expectProblem(off, 403, 'event_logging_disabled');
    expect(off.body.detail).toContain('eventLoggingIsEnabled');
    expect((await privateApi(svc, app).post('/signin/generate-token', { userId: 'while-off' })).status).toBe(200);
    await svc.services.events.flush();
    await setFeatures(svc, app, { eventLoggingIsEnabled: true });
    expect((await privateApi(svc, app).post('/signin/generate-token', { userId: 'while-on' })).status).toBe(200);
    expect((await eventsOf(app)).events.map((e) => [e.eventType, e.subject])).toEqual([
      ['ApiUserSigninTokenCreated', 'while-on'],
      ['ApiManagementFeaturesChanged', app.appId],
    ]);
  });

  it('keeps apps apart', async () => {
    const [one, two] = [await loggingApp(), await loggingApp()];
    expect((await privateApi(svc, one).post('/signin/generate-token', { userId: 'only-one' })).status).toBe(200);
    expect((await eventsOf(two)).events.map((e) => e.subject)).not.toContain('only-one');
  });

  it('drops events older than the retention period in the background sweep', async () => {
    const app = await loggingApp();
    await setFeatures(svc, app, { eventLoggingRetentionPeriod: 7 });
    const { db } = svc.services.store;
    const at = (daysAgo: number) => new Date(Date.now() - daysAgo * 86_400_000);
    const row = (id: string, daysAgo: number) => ({ id, tenant: app.appId, performedAt: at(daysAgo), eventType: 'ApiUserDeleted', message: 'm', severity: 'Informational', performedBy: 'System', subject: id });
    await db.event.createMany({ data: [row(`${app.appId}-old`, 8), row(`${app.appId}-recent`, 6)] });
    await svc.services.events.sweep();
    expect((await eventsOf(app)).events.map((e) => e.id).filter((id) => id.startsWith(app.appId))).toEqual([`${app.appId}-recent`]);
  });

  it('bounds the buffer: beyond its size events are dropped and the drop is logged', async () => {
    const app = await loggingApp();
    const lines: string[] = [];
    const logger = pino({ level: 'warn' }, { write: (line: string) => void lines.push(line) });
    const log = new EventLog({ events: new EventRepository({ db: svc.services.store.db, queries: svc.services.store.queries }), isLoggingEnabled: async () => true, logger, options: { flushIntervalMs: 0, maxBuffered: 3 } });
    for (let i = 0; i < 5; i++) log.record(app.appId, { type: 'ApiUserDeleted', message: 'm', subject: `b${i}`, performedBy: 'System' });
    await log.close();
    const subjects = (await eventsOf(app)).events.map((e) => e.subject);
    expect(subjects.filter((s) => s.startsWith('b')).sort()).toEqual(['b0', 'b1', 'b2']);
    expect(lines.join('')).toContain('"dropped":2');
  });
});

describe.each(providers())('event log across a shutdown on %s', (provider) => {
  it('writes buffered events when the service closes', async () => {
    const database = await createTestDatabase(provider);
    try {
      const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent' });
      const store = openStore(config.databaseUrl);
      await store.migrate();
      // No timer: only close() can have written them.
      const services = createServices(config, store, { flushIntervalMs: 0 });
      const http = supertest(createApp(services, createLogger('silent')));
      const created = await http.post('/admin/apps/shutdownapp/create').set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'a@example.com', eventLoggingIsEnabled: true });
      expect(created.status).toBe(200);
      expect((await http.post('/signin/generate-token').set('ApiSecret', created.body.apiSecret1).send({ userId: 'last-words' })).status).toBe(200);
      expect(await store.db.event.count({ where: { tenant: 'shutdownapp' } })).toBe(0);
      await services.close();

      const reopened = openStore(config.databaseUrl);
      try {
        const events = await reopened.db.event.findMany({ where: { tenant: 'shutdownapp' }, orderBy: { performedAt: 'asc' } });
        expect(events.map((e) => [e.eventType, e.subject])).toEqual([
          ['ApiManagementAppCreated', 'shutdownapp'],
          ['ApiUserSigninTokenCreated', 'last-words'],
        ]);
      } finally {
        await reopened.close();
      }
    } finally {
      await database.drop();
    }
  });
});
