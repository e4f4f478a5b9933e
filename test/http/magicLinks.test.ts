import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { PasswordlessClient, SendMagicLinkRequest } from '@passwordlessdev/passwordless-nodejs';
import pino from 'pino';
import { verifyToken } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem, managementClient } from '../support/http';
import { privateApi, setFeatures } from '../support/privateApi';
import { startSmtpServer, type ReceivedMail, type TestSmtpServer } from '../support/smtp';
import { providers, startTestService, warnIfPostgresSkipped, type TestApp, type TestService } from '../support/testService';

warnIfPostgresSkipped();

const ADMIN = 'admin@example.com'; // the admin email of every test app
const FROM = 'login@passwordless.test';
const TEMPLATE = 'https://shop.example.com/login?next=%2Fcart&token=$TOKEN';
const DAY_S = 86_400;

const send = (svc: TestService, app: TestApp, body: Record<string, unknown>) =>
  privateApi(svc, app).post('/magic-links/send', { emailAddress: ADMIN, urlTemplate: TEMPLATE, userId: 'user-1', ...body });

/** The token in the mail's link, as the browser would hand it back. */
function tokenOf(mail: ReceivedMail, prefix = 'https://shop.example.com/'): string {
  const link = mail.text.split('\n').find((line) => line.startsWith(prefix));
  if (!link) throw new Error(`no link in ${JSON.stringify(mail.text)}`);
  return new URL(link).searchParams.get('token')!;
}

/** A logger whose lines the test can read. */
function capturedLogger() {
  const lines: string[] = [];
  return { lines, logger: pino({ level: 'info' }, { write: (line: string) => void lines.push(line) }) };
}

const sendsOf = (svc: TestService, app: TestApp) => svc.services.store.db.dispatchedEmail.count({ where: { tenant: app.appId } });

describe.each(providers())('magic links over SMTP on %s', (provider) => {
  let smtp: TestSmtpServer;
  let svc: TestService;
  let log: ReturnType<typeof capturedLogger>;
  beforeAll(async () => {
    smtp = await startSmtpServer();
    log = capturedLogger();
    svc = await startTestService(provider, { SMTP_URL: smtp.url, MAIL_FROM: FROM }, { logger: log.logger });
  });
  afterAll(async () => {
    await svc.close();
    await smtp.stop();
  });

  it('mails a text and an HTML part whose link carries a magic_link token that verifies as often as needed', async () => {
    const app = await svc.createApp();
    const res = await send(svc, app, { userId: 'user-42' });
    expect(res.status).toBe(204);
    expect(res.text).toBe('');

    const mail = await smtp.nextMailTo(ADMIN);
    expect(mail).toMatchObject({ from: FROM, to: [ADMIN], subject: 'Sign in to shop.example.com' });
    const token = tokenOf(mail);
    expect(token).toMatch(/^verify_/);
    const link = TEMPLATE.replace('$TOKEN', encodeURIComponent(token));
    expect(mail.text).toContain(link);
    expect(mail.html).toContain(`<a href="${link.replaceAll('&', '&amp;')}">`);

    for (let i = 0; i < 2; i++) {
      const verified = await verifyToken(svc, app, token);
      expect(verified.status).toBe(200);
      expect(verified.body).toMatchObject({ success: true, type: 'magic_link', userId: 'user-42', purpose: null, credentialId: null });
      const lifetime = (Date.parse(verified.body.expiresAt) - Date.parse(verified.body.timestamp)) / 1000;
      expect(lifetime).toBe(3600);
    }
    // Only when it was sent is kept: no address, user or link.
    const rows = await svc.services.store.db.dispatchedEmail.findMany({ where: { tenant: app.appId } });
    expect(rows).toEqual([{ id: expect.any(String), tenant: app.appId, createdAt: expect.any(Date) }]);
  });

  it('refuses the token with 403 expired_token once its lifetime is over', async () => {
    const app = await svc.createApp();
    expect((await send(svc, app, { timeToLive: 1 })).status).toBe(204);
    const token = tokenOf(await smtp.nextMailTo(ADMIN));
    expect((await verifyToken(svc, app, token)).status).toBe(200);
    const expired = await eventually('the token to expire', async () => {
      const res = await verifyToken(svc, app, token);
      return res.status === 200 ? undefined : res;
    });
    expectProblem(expired, 403, 'expired_token');
  });

  it('mails the link as the URL parser serialises it, escaped in the HTML part', async () => {
    const app = await svc.createApp();
    const template = `https://shop.example.com/login?q="><script>alert(1)</script>&token=$TOKEN`;
    expect((await send(svc, app, { urlTemplate: template })).status).toBe(204);
    const mail = await smtp.nextMailTo(ADMIN);
    expect(mail.html).not.toContain('<script>');
    expect(mail.html).toContain('q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&amp;token=verify_');
    expect(mail.text).toContain('https://shop.example.com/login?q=%22%3E%3Cscript%3Ealert(1)%3C/script%3E&token=verify_');
    expect(tokenOf(mail)).toMatch(/^verify_/);
  });

  it('is off with 403 when the app switches magic links off (either way), and on again', async () => {
    const app = await svc.createApp();
    const before = smtp.received.length;
    await setFeatures(svc, app, { isMagicLinksEnabled: false });
    const off = await send(svc, app, {});
    expectProblem(off, 403, 'magic_links_disabled');
    expect(off.body.title).toBe('You must enable Magic Links in settings in order to use this feature.');
    expect(off.body.detail).toContain('enableMagicLinks');

    expect((await privateApi(svc, app).post('/apps/features', { enableMagicLinks: true })).status).toBe(204);
    expect((await send(svc, app, {})).status).toBe(204);
    expect((await privateApi(svc, app).post('/apps/features', { enableMagicLinks: false, performedBy: 'ops@example.com' })).status).toBe(204);
    expectProblem(await send(svc, app, {}), 403, 'magic_links_disabled');
    expect(smtp.received.length).toBe(before + 1);
    await smtp.nextMailTo(ADMIN);
  });

  it('lets an app younger than a day mail only its admin address (any case), and an older one anyone', async () => {
    const app = await svc.createApp();
    const refused = await send(svc, app, { emailAddress: 'customer@example.com' });
    expectProblem(refused, 403, 'magic_link_email_admin_address_only');
    expect(refused.body.title).toContain('less than 1 day ago');
    expect((await send(svc, app, { emailAddress: 'Admin@Example.com' })).status).toBe(204);
    await smtp.nextMailTo('Admin@Example.com');

    await svc.services.store.db.app.update({ where: { id: app.appId }, data: { createdAt: new Date(Date.now() - 2 * DAY_S * 1000) } });
    expect((await send(svc, app, { emailAddress: 'customer@example.com' })).status).toBe(204);
    expect((await smtp.nextMailTo('customer@example.com')).subject).toBe('Sign in to shop.example.com');
  });

  it('gives a new app the configured quota, and beyond its quota in 30 days answers 429 with Retry-After', async () => {
    const app = await svc.createApp();
    expect((await managementClient(svc).get(`/admin/apps/${app.appId}/features`)).body.magicLinkEmailMonthlyQuota).toBe(1000);
    await setFeatures(svc, app, { magicLinkEmailMonthlyQuota: 2 });
    // One send a day ago and one now fill the quota; the older one leaves the window first.
    const dayAgo = new Date(Date.now() - DAY_S * 1000);
    await svc.services.store.db.dispatchedEmail.create({ data: { id: `old-${app.appId}`, tenant: app.appId, createdAt: dayAgo } });
    expect((await send(svc, app, {})).status).toBe(204);
    await smtp.nextMailTo(ADMIN);

    const over = await send(svc, app, {});
    expectProblem(over, 429, 'magic_link_email_quota_exceeded');
    const retryAfter = Number(over.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(29 * DAY_S - 60);
    expect(retryAfter).toBeLessThanOrEqual(29 * DAY_S);
    expect(await sendsOf(svc, app)).toBe(2);

    // Sends older than 30 days no longer count (and the background sweep drops them).
    await svc.services.store.db.dispatchedEmail.update({ where: { id: `old-${app.appId}` }, data: { createdAt: new Date(Date.now() - 31 * DAY_S * 1000) } });
    expect((await send(svc, app, {})).status).toBe(204);
    await smtp.nextMailTo(ADMIN);
    await svc.services.magicLinks.sweep();
    expect(await sendsOf(svc, app)).toBe(2);
  });

  it('answers a quota of 0 with 429 at once', async () => {
    const app = await svc.createApp();
    await setFeatures(svc, app, { magicLinkEmailMonthlyQuota: 0 });
    const res = await send(svc, app, {});
    expectProblem(res, 429, 'magic_link_email_quota_exceeded');
    expect(Number(res.headers['retry-after'])).toBe(30 * DAY_S);
  });

  it.each([
    ['no emailAddress', { emailAddress: undefined }, 'emailAddress'],
    ['an emailAddress without @', { emailAddress: 'admin.example.com' }, 'emailAddress'],
    ['an emailAddress with a line break', { emailAddress: 'admin@example.com\nBcc: x@evil.test' }, 'emailAddress'],
    ['no urlTemplate', { urlTemplate: undefined }, 'urlTemplate'],
    ['a urlTemplate without $TOKEN', { urlTemplate: 'https://shop.example.com/login' }, 'urlTemplate'],
    ['a relative urlTemplate', { urlTemplate: '/login?token=$TOKEN' }, 'urlTemplate'],
    ['an ftp urlTemplate', { urlTemplate: 'ftp://shop.example.com/?token=$TOKEN' }, 'urlTemplate'],
    ['a javascript: urlTemplate', { urlTemplate: 'javascript:alert("$TOKEN")' }, 'urlTemplate'],
    ['no userId', { userId: undefined }, 'userId'],
    ['a userId over 64 bytes', { userId: 'u'.repeat(65) }, 'userId'],
    ['a timeToLive of 0', { timeToLive: 0 }, 'timeToLive'],
    ['a timeToLive over 30 days', { timeToLive: 30 * DAY_S + 1 }, 'timeToLive'],
    ['a fractional timeToLive', { timeToLive: 1.5 }, 'timeToLive'],
  ])('refuses %s with a 400 naming the field, and sends nothing', async (_case, body, field) => {
    const app = await svc.createApp();
    const before = smtp.received.length;
    const res = await send(svc, app, body);
    expectProblem(res, 400, 'validation_failed');
    expect(Object.keys(res.body.errors)).toEqual([field]);
    expect(smtp.received.length).toBe(before);
    expect(await sendsOf(svc, app)).toBe(0);
  });

  it('works through the official Node SDK', async () => {
    const app = await svc.createApp();
    const server = svc.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const sdk = new PasswordlessClient(app.apiSecret, { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}` });
      await sdk.sendMagicLink(new SendMagicLinkRequest(ADMIN, TEMPLATE, 'sdk-user', 600));
      const verified = await sdk.verifyToken(tokenOf(await smtp.nextMailTo(ADMIN)));
      expect(verified).toMatchObject({ success: true, userId: 'sdk-user', type: 'magic_link' });
    } finally {
      server.close();
    }
  });

  // Last: it takes the SMTP server down (and brings a new one up on the same port).
  it('answers 502 mail_delivery_failed while SMTP is down, counts nothing, logs no token, and /api/health/mail says 503', async () => {
    const app = await svc.createApp();
    expect((await svc.http.get('/api/health/mail')).body).toMatchObject({ status: 'Healthy', results: { smtp: { status: 'Healthy' } } });
    const port = smtp.port;
    await smtp.stop();

    const res = await send(svc, app, {});
    expectProblem(res, 502, 'mail_delivery_failed');
    expect(res.text).not.toContain('verify_');
    expect(await sendsOf(svc, app)).toBe(0);
    const health = await svc.http.get('/api/health/mail');
    expect(health.status).toBe(503);
    expect(health.body).toMatchObject({ status: 'Unhealthy', results: { smtp: { status: 'Unhealthy', data: { error: expect.any(String) } } } });

    const logged = log.lines.join('');
    expect(logged).toContain('magic link mail delivery failed');
    expect(logged).not.toContain('verify_');
    expect(logged).not.toContain(ADMIN);

    smtp = await startSmtpServer(port);
    expect((await svc.http.get('/api/health/mail')).status).toBe(200);
    expect((await send(svc, app, {})).status).toBe(204);
    expect(tokenOf(await smtp.nextMailTo(ADMIN))).toMatch(/^verify_/);
  });
});

describe.each(providers())('magic links without SMTP on %s', (provider) => {
  let dir: string;
  let svc: TestService;
  beforeAll(async () => {
    const tmp = join(__dirname, '..', '..', '.test-tmp');
    mkdirSync(tmp, { recursive: true });
    dir = mkdtempSync(join(tmp, 'mail-'));
    svc = await startTestService(provider, { MAIL_FILE: join(dir, 'outbox', 'mail.md'), MAIL_FROM: FROM });
  });
  afterAll(async () => {
    await svc.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('appends one readable entry per message to MAIL_FILE, with a link whose token verifies', async () => {
    const app = await svc.createApp();
    expect((await send(svc, app, { userId: 'file-user' })).status).toBe(204);
    expect((await send(svc, app, { userId: 'file-user-2' })).status).toBe(204);
    const entries = readFileSync(join(dir, 'outbox', 'mail.md'), 'utf8').split(/^---$/m).filter((e) => e.trim());
    expect(entries).toHaveLength(2);
    expect(entries[0]).toContain(`From: ${FROM}\nTo: ${ADMIN}\nSubject: Sign in to shop.example.com`);
    const token = tokenOf({ text: entries[0] } as ReceivedMail);
    expect((await verifyToken(svc, app, token)).body).toMatchObject({ type: 'magic_link', userId: 'file-user' });
    expect((await svc.http.get('/api/health/mail')).body).toEqual({ status: 'Healthy', elapsedMilliseconds: expect.any(Number), results: {} });
  });
});
