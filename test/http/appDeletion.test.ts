/**
 * Account deletion over time: the service runs on an injected clock (createServices' `now`), its
 * own deletion sweep is off, and the test sweeps when it has moved the clock, as the background
 * sweep would at start-up or within the minute. Mail goes to a real SMTP server process.
 */
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { NO_ROWS, populateApp, rowCountsOf } from '../support/appData';
import { signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem, managementClient } from '../support/http';
import { flipCharAt, privateApi } from '../support/privateApi';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp';
import { MANAGEMENT_KEY, createTestDatabase, providers, startTestService, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase, type TestService } from '../support/testService';

warnIfPostgresSkipped();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const ADMIN = 'admin@example.com';
const PUBLIC_URL = 'https://passkeys.example.com';

describe.each(providers())('account deletion on %s', (provider) => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  /** How far the service's clock is ahead of the real one. */
  let offset = 0;
  const now = () => Date.now() + offset;
  const taken = new Set<ReceivedMail>();

  beforeAll(async () => {
    smtp = await startSmtpServer();
    svc = await startTestService(provider, { SMTP_URL: smtp.url, PUBLIC_URL }, { now, deletionSweepIntervalMs: 0, flushIntervalMs: 0 });
  });
  afterAll(async () => {
    await svc.close();
    await smtp.stop();
  });
  beforeEach(() => {
    offset = 0;
  });

  /** The next deletion warning mailed to the admin (magic links go there too). */
  const nextWarning = (appId: string) =>
    eventually(`a deletion warning for ${appId}`, () => {
      const mail = smtp.received.find((m) => !taken.has(m) && m.subject === `Your app '${appId}' is scheduled for deletion`);
      if (mail) taken.add(mail);
      return mail;
    });

  /** The abort link in the warning's text, as the path and query a browser would request. */
  function abortLinkOf(mail: ReceivedMail): string {
    const link = mail.text.split('\n').find((line) => line.startsWith(`${PUBLIC_URL}/`));
    if (!link) throw new Error(`no link in ${JSON.stringify(mail.text)}`);
    const url = new URL(link);
    return url.pathname + url.search;
  }

  const requestDeletion = (app: TestApp) => privateApi(svc, app).post('/v3/account/delete');
  const sweep = () => svc.services.deletions.sweep();
  const counts = (app: TestApp) => rowCountsOf(svc.services.store.db, app.appId);
  const eventTypesOf = async (app: TestApp) => {
    await svc.services.events.flush();
    return (await svc.services.store.db.event.findMany({ where: { tenant: app.appId }, orderBy: { performedAt: 'asc' } })).map((e) => [e.eventType, e.performedBy]);
  };

  it('mails the admin a link that cancels the deletion before the keys freeze; the link then works no more', async () => {
    const app = await svc.createApp();
    await populateApp(svc, app);
    const requested = await requestDeletion(app);
    expect(requested.status).toBe(200);

    const mail = await nextWarning(app.appId);
    expect(mail.to).toEqual([ADMIN]);
    expect(mail.text).toContain(`Its API keys stop working at ${requested.body.keysFreezeAt}`);
    expect(mail.text).toContain(`permanently deleted at ${requested.body.deleteAt}`);
    const link = abortLinkOf(mail);
    expect(link).toMatch(new RegExp(`^/apps/delete/cancel/${app.appId}\\?token=abort_`));
    expect(mail.html).toContain(`<a href="${PUBLIC_URL}${link}">`);

    offset = 23 * HOUR;
    // What a mail scanner does (HEAD, GET) changes nothing: the link shows a page that asks.
    expect((await svc.http.head(link)).status).toBe(200);
    for (let visit = 0; visit < 2; visit++) {
      const page = await svc.http.get(link);
      expect({ status: page.status, type: page.headers['content-type'] }).toEqual({ status: 200, type: 'text/html; charset=utf-8' });
      expect(page.text).toContain('<h1>Cancel the deletion?</h1>');
      expect(page.text).toContain('<form method="post" action=""><button type="submit">Cancel the deletion</button></form>');
      expect(page.text).not.toContain('<script');
      expect(page.headers).toMatchObject({ 'content-security-policy': "default-src 'none'; frame-ancestors 'none'", 'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'cache-control': 'no-store' });
    }
    expect((await svc.services.store.db.app.findUnique({ where: { id: app.appId } }))?.deleteAt).not.toBeNull();
    // The page's button posts to its own address (a form without fields: an empty body).
    const confirmed = await svc.http.post(link).set('Content-Type', 'application/x-www-form-urlencoded').send('');
    expect({ status: confirmed.status, type: confirmed.headers['content-type'] }).toEqual({ status: 200, type: 'text/html; charset=utf-8' });
    expect(confirmed.text).toContain('<h1>Deletion cancelled</h1>');

    for (const again of [await svc.http.post(link), await svc.http.get(link)]) {
      expect(again.status).toBe(400);
      expect(again.text).toContain('This link is not valid');
      expect(again.text).toContain('Nothing was changed.');
    }

    offset = 15 * DAY;
    expect(await sweep()).toEqual({ frozen: [], deleted: [] });
    expect((await privateApi(svc, app).post('/v3/credentials/list', { userId: 'x' })).status).toBe(200);
    expect(await eventTypesOf(app)).toEqual(
      expect.arrayContaining([
        ['ApiManagementAppMarkedForDeletion', expect.stringContaining(app.apiSecret.slice(-4))],
        ['ApiManagementAppDeletionCancelled', 'Abort link'],
      ]),
    );
  });

  it('refuses forged links, links of another app, and a link past the deletion date, changing nothing', async () => {
    const [app, other] = [await svc.createApp(), await svc.createApp()];
    expect((await requestDeletion(app)).status).toBe(200);
    const link = abortLinkOf(await nextWarning(app.appId));
    const token = new URL(link, PUBLIC_URL).searchParams.get('token')!;
    const forged = [
      link.replace(`token=${token}`, `token=${flipCharAt(token, token.length - 10)}`),
      link.replace(`token=${token}`, `token=${flipCharAt(token, 12)}`),
      link.replace(`token=${token}`, 'token='),
      link.replace(`?token=${token}`, ''),
      link.replace(app.appId, other.appId),
      `${link}&token=${token}`,
      link.replace(app.appId, 'NUL%00'),
    ];
    for (const path of forged) {
      for (const res of [await svc.http.get(path), await svc.http.post(path)]) {
        expect({ path, status: res.status, invalid: res.text.includes('This link is not valid') }).toEqual({ path, status: 400, invalid: true });
      }
    }
    offset = 14 * DAY + HOUR; // the sweep has not run yet: the link has expired all the same
    expect((await svc.http.get(link)).status).toBe(400);
    expect((await svc.http.post(link)).status).toBe(400);
    expect(await sweep()).toEqual({ frozen: [], deleted: [app.appId] });
  });

  it('freezes every key after 24 hours and deletes all data after 14 days, leaving another app untouched; the id is then free and starts empty', async () => {
    const [app, bystander] = [await svc.createApp(), await svc.createApp()];
    await populateApp(svc, app);
    const kept = await populateApp(svc, bystander);
    await svc.services.events.flush();
    expect(Object.values(await counts(app)).every((n) => n > 0)).toBe(true);
    expect(Object.values(await counts(bystander)).every((n) => n > 0)).toBe(true);
    // A first request cancelled by the operator, then the one that goes through.
    expect((await requestDeletion(app)).status).toBe(200);
    const firstLink = abortLinkOf(await nextWarning(app.appId));
    expect((await managementClient(svc).post(`/admin/apps/${app.appId}/cancel-delete`)).body).toEqual({ message: `The deletion of the app '${app.appId}' was cancelled; its keys work again.` });
    expect((await requestDeletion(app)).status).toBe(200);
    await nextWarning(app.appId);
    expect((await svc.http.post(firstLink)).status).toBe(400); // a cancelled request's link does not cancel the next one

    offset = 23 * HOUR;
    expect(await sweep()).toEqual({ frozen: [], deleted: [] });
    expect((await privateApi(svc, app).post('/v3/credentials/list', { userId: 'x' })).status).toBe(200);

    offset = 25 * HOUR;
    expect(await sweep()).toEqual({ frozen: [app.appId], deleted: [] });
    expect(await sweep()).toEqual({ frozen: [], deleted: [] });
    for (const res of [
      await privateApi(svc, app).post('/credentials/list', { userId: 'x' }),
      await privateApi(svc, app).post('/v3/account/delete'),
      await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).send({}),
      await svc.http.post('/signin/begin').set('ApiKey', app.apiKey2).send({}),
      await svc.http.post('/register/token').set('ApiSecret', app.apiSecret2).send({}),
    ]) {
      expect(res.status).toBe(401);
      expect(res.body.detail).toMatch(/is being deleted/);
    }
    // The other app still signs in.
    expect((await signIn(svc, bystander, kept.credential, { userId: kept.userId })).complete.status).toBe(200);

    offset = 14 * DAY - HOUR;
    expect(await sweep()).toEqual({ frozen: [], deleted: [] });
    expect((await counts(app)).credential).toBe(1);

    offset = 15 * DAY;
    const bystanderRows = await counts(bystander);
    expect(await sweep()).toEqual({ frozen: [], deleted: [app.appId] });
    expect(await counts(app)).toEqual(NO_ROWS);
    expect(await counts(bystander)).toEqual(bystanderRows);
    expect((await signIn(svc, bystander, kept.credential, { userId: kept.userId })).complete.status).toBe(200);
    expectProblem(await privateApi(svc, app).post('/credentials/list', { userId: 'x' }), 401, 'ApiSecret');

    // The id is free again, and an app created under it inherits nothing.
    expect((await managementClient(svc).get(`/admin/apps/${app.appId}/available`)).body).toEqual({ available: true });
    const reborn = await svc.createApp({ appId: app.appId });
    expect(await counts(reborn)).toEqual({ ...NO_ROWS, app: 1, apiKey: 4 });
    expect((await privateApi(svc, reborn).get('/auth-configs/list')).body.configurations.map((c: { purpose: string }) => c.purpose)).toEqual(['sign-in', 'step-up']);
    expect((await privateApi(svc, reborn).get('/users/count')).body).toEqual({ count: 0 });
  });

  describe('the management API and its events', () => {
    it('marks for deletion with who asked, refuses a second mark, cancels, and says what is not there', async () => {
      const admin = managementClient(svc);
      const app = await svc.createApp();
      await admin.post(`/admin/apps/${app.appId}/features`, { eventLoggingIsEnabled: true });
      const marked = await admin.post(`/admin/apps/${app.appId}/mark-delete`, { appId: app.appId, deletedBy: 'ops@example.com' });
      expect(marked.status).toBe(200);
      expect(marked.body).toEqual({ message: expect.stringContaining('will be deleted'), isDeleted: false, keysFreezeAt: expect.any(String), deleteAt: expect.any(String), adminEmails: [ADMIN] });
      expect((await nextWarning(app.appId)).text).toContain('requested (by ops@example.com)');
      expectProblem(await admin.post(`/admin/apps/${app.appId}/mark-delete`), 409, 'app_pending_deletion');
      expectProblem(await requestDeletion(app), 409, 'app_pending_deletion');
      expect((await admin.get('/admin/apps')).body.values).toContainEqual(expect.objectContaining({ appId: app.appId, deleteAt: marked.body.deleteAt }));

      expect((await admin.post(`/admin/apps/${app.appId}/cancel-delete`)).status).toBe(200);
      expectProblem(await admin.post(`/admin/apps/${app.appId}/cancel-delete`), 409, 'app_not_pending_deletion');
      expect(await eventTypesOf(app)).toEqual(
        expect.arrayContaining([
          ['ApiManagementAppMarkedForDeletion', 'ops@example.com'],
          ['ApiManagementAppDeletionCancelled', 'Unknown User'],
        ]),
      );
      const missing = uniqueAppId();
      for (const path of [`/admin/apps/${missing}/mark-delete`, `/admin/apps/${missing}/cancel-delete`, '/admin/apps/NOT_AN_ID/mark-delete']) {
        expectProblem(await admin.post(path), 404, 'app_not_found');
      }
      expectProblem(await svc.http.post(`/admin/apps/${app.appId}/mark-delete`), 401, 'ManagementKey');
    });

    it('keeps the keys frozen by the deletion apart from a freeze by the operator', async () => {
      const admin = managementClient(svc);
      const app = await svc.createApp();
      await admin.post(`/admin/apps/${app.appId}/freeze`);
      expect((await admin.post(`/admin/apps/${app.appId}/mark-delete`)).status).toBe(200);
      offset = 25 * HOUR;
      expect((await sweep()).frozen).toEqual([app.appId]);
      expect((await privateApi(svc, app).get('/users/count')).body.detail).toMatch(/is being deleted/);
      await admin.post(`/admin/apps/${app.appId}/cancel-delete`);
      expect((await privateApi(svc, app).get('/users/count')).body.detail).toMatch(/is locked, or its app is frozen/);
    });
  });

  it('schedules nothing when the warning cannot be mailed (502), so no deletion happens unannounced', async () => {
    await smtp.stop();
    try {
      const app = await svc.createApp();
      expectProblem(await requestDeletion(app), 502, 'mail_delivery_failed');
      expect((await svc.services.store.db.app.findUnique({ where: { id: app.appId } }))?.deleteAt).toBeNull();
      offset = 15 * DAY;
      expect(await sweep()).toEqual({ frozen: [], deleted: [] });
    } finally {
      smtp = await startSmtpServer(smtp.port);
    }
  });
});

describe.each(providers())('concurrent deletion sweepers on %s', (provider) => {
  let database: TestDatabase;
  let replicas: Services[] = [];
  let offset = 0;
  const now = () => Date.now() + offset;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md') });
    for (let i = 0; i < 3; i++) {
      const store = openStore(config.databaseUrl);
      await store.migrate();
      replicas.push(createServices(config, store, { now, deletionSweepIntervalMs: 0, flushIntervalMs: 0 }));
    }
    const http = supertest(createApp(replicas[0], createLogger('silent')));
    // Ten apps pending deletion.
    for (let i = 0; i < 10; i++) {
      const appId = uniqueAppId('sweep');
      expect((await http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: ADMIN })).status).toBe(200);
      expect((await http.post(`/admin/apps/${appId}/mark-delete`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
    }
  });
  afterAll(async () => {
    for (const services of replicas) await services.close();
    replicas = [];
    await database.drop();
  });

  it('perform each step once: every app frozen by exactly one sweeper, then deleted by exactly one', async () => {
    const pending = (await replicas[0].store.db.app.findMany({ select: { id: true } })).map((a) => a.id).sort();
    expect(pending).toHaveLength(10);
    for (const [at, step] of [
      [25 * HOUR, 'frozen'],
      [15 * DAY, 'deleted'],
    ] as const) {
      offset = at;
      const reports = await Promise.all(replicas.map((r) => r.deletions.sweep()));
      const performed = reports.flatMap((r) => r[step]);
      expect(performed.sort()).toEqual(pending);
      expect(reports.flatMap((r) => r[step === 'frozen' ? 'deleted' : 'frozen'])).toEqual([]);
    }
    expect(await replicas[0].store.db.app.count()).toBe(0);
    expect(await replicas[0].store.db.apiKey.count()).toBe(0);
  });
});
