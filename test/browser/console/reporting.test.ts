/**
 * The console's reporting page (issue 36) renders its charts from data made under an injected
 * clock: the service runs in process (its clock two days ahead of the real one and moved by the
 * test), listening on loopback so that the console's middleware calls it as in production; users
 * register and sign in by passkey, magic link and generated token through the HTTP API on three
 * days, the daily snapshots are swept after each day; an operator (Chromium, virtual authenticator)
 * opens the page and sees every day's figures in the SVG charts.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../../src/server/app';
import { consoleHandler } from '../../../src/server/console/consoleRouter';
import { inviteOperator } from '../../../src/server/console/inviteOperator';
import { loadConfig } from '../../../src/server/core/config';
import { createLogger } from '../../../src/server/core/logger';
import { DAY_MS, utcDateOf, utcDayOf } from '../../../src/server/core/utcDay';
import { createServices, type Services } from '../../../src/server/services';
import { openStore } from '../../../src/server/store';
import { registerPasskey, signIn, verifyToken } from '../../support/ceremonies';
import { MANAGEMENT_KEY, createTestDatabase, type TestApp, type TestDatabase } from '../../support/testService';
import { addVirtualAuthenticator, browserSuite, launchChromium, requireChromium } from '../support/chromium';
import type { Browser } from 'playwright-core';

jest.setTimeout(90_000);

const HOUR = 3_600_000;
const ADMIN = 'admin@example.com';

browserSuite('console reporting')('the console: reporting charts from an injected clock', () => {
  let database: TestDatabase;
  let mailDir: string;
  let services: Services;
  let server: Server;
  let browser: Browser;
  let http: ReturnType<typeof supertest>;
  let origin: string;
  const DAY0 = utcDayOf(Date.now()) + 2;
  let now = DAY0 * DAY_MS + 9 * HOUR;
  const at = (day: number, hours: number) => {
    now = (DAY0 + day) * DAY_MS + hours * HOUR;
  };
  const date = (day: number) => utcDateOf(DAY0 + day);

  beforeAll(async () => {
    const executablePath = requireChromium();
    database = await createTestDatabase('sqlite');
    const tmp = join(__dirname, '..', '..', '..', '.test-tmp');
    mkdirSync(tmp, { recursive: true });
    mailDir = mkdtempSync(join(tmp, 'console-reporting-'));
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', CONSOLE: 'on', MAIL_FILE: join(mailDir, 'mail.md') });
    const store = openStore(config.databaseUrl);
    await store.migrate();
    services = createServices(config, store, { now: () => now, reportSweepIntervalMs: 0, deletionSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, webhooks: { pollIntervalMs: 0 } });
    const logger = createLogger('silent');
    let ownUrl = '';
    // The console's own clock (its sessions' expiry, as express-session dates cookies) stays the real one.
    const app = createApp(services, logger, { console: consoleHandler(services, { serviceUrl: () => ownUrl, logger }) });
    server = await new Promise<Server>((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
    const port = (server.address() as { port: number }).port;
    ownUrl = `http://127.0.0.1:${port}`;
    origin = `http://localhost:${port}`;
    // The console reads PUBLIC_URL when its first request builds it: the port is known only now.
    (services.config as { publicUrl: string }).publicUrl = origin;
    http = supertest(ownUrl);
    browser = await launchChromium(executablePath);
  });

  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => server?.close(resolve));
    await services?.close();
    await database?.drop();
    rmSync(mailDir, { recursive: true, force: true });
  });

  async function newApp(appId: string): Promise<TestApp> {
    const res = await http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: ADMIN });
    expect(res.status).toBe(200);
    return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
  }

  async function magicLinkSignIn(app: TestApp, userId: string): Promise<void> {
    expect((await http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: ADMIN, urlTemplate: 'https://shop.example.com/login?token=$TOKEN', userId })).status).toBe(204);
    const entries = readFileSync(join(mailDir, 'mail.md'), 'utf8').split(/^---$/m).filter((e) => e.trim());
    const link = entries[entries.length - 1].split('\n').find((line) => line.startsWith('https://shop.example.com/'))!;
    expect((await verifyToken({ http }, app, new URL(link).searchParams.get('token')!)).body).toMatchObject({ success: true, type: 'magic_link' });
  }

  async function generatedSignIn(app: TestApp, userId: string): Promise<void> {
    const generated = await http.post('/signin/generate-token').set('ApiSecret', app.apiSecret).send({ userId });
    expect(generated.status).toBe(200);
    expect((await verifyToken({ http }, app, generated.body.token)).body).toMatchObject({ success: true, type: 'generated_signin' });
  }

  async function passkeySignIn(app: TestApp, who: Awaited<ReturnType<typeof registerPasskey>>): Promise<void> {
    const { complete } = await signIn({ http }, app, who.credential, { userId: who.userId });
    expect((await verifyToken({ http }, app, complete.body.token)).body).toMatchObject({ success: true, type: 'passkey_signin' });
  }

  it('draws users, passkeys, active users and the share of sign-ins by method for the days asked', async () => {
    const shop = await newApp('shopreports');
    // Day 0: two users; four passkey sign-ins, one generated token.
    at(0, 9);
    const ada = await registerPasskey({ http }, shop, { userId: 'ada' });
    const bob = await registerPasskey({ http }, shop, { userId: 'bob' });
    for (let i = 0; i < 2; i++) await passkeySignIn(shop, ada);
    for (let i = 0; i < 2; i++) await passkeySignIn(shop, bob);
    await generatedSignIn(shop, 'bob');
    // Day 1: a third user and a second passkey of Ada's; two passkey sign-ins and a magic link.
    at(1, 9);
    expect((await services.reports.sweep()) >= 1).toBe(true);
    const cy = await registerPasskey({ http }, shop, { userId: 'cy' });
    await registerPasskey({ http }, shop, { userId: 'ada' });
    await passkeySignIn(shop, cy);
    await passkeySignIn(shop, ada);
    await magicLinkSignIn(shop, 'cy');
    at(2, 9);
    expect((await services.reports.sweep()) >= 1).toBe(true);

    // The operator, with a passkey of the console's app made in Chromium from the CLI's kind of invite.
    const invite = await inviteOperator(services, { email: 'analyst@example.com', by: 'test', now });
    const context = await browser.newContext();
    const page = await context.newPage();
    await addVirtualAuthenticator(await context.newCDPSession(page));
    await page.goto(invite.link);
    await page.click('[data-accept-invite]');
    await page.waitForURL(`${origin}/console/apps`);

    await page.goto(`${origin}/console/apps/${shop.appId}/reporting?from=${date(0)}&to=${date(2)}`);
    const totals = await page.innerHTML('[data-chart=totals] svg');
    expect(totals).toContain(`<title>users, ${date(0)}: 2</title>`);
    expect(totals).toContain(`<title>users, ${date(1)}: 3</title>`);
    expect(totals).toContain(`<title>passkeys, ${date(1)}: 4</title>`);
    const active = await page.innerHTML('[data-chart=active] svg');
    expect(active).toContain(`<title>daily active, ${date(0)}: 2</title>`);
    expect(active).toContain(`<title>weekly active, ${date(1)}: 3</title>`);
    // 6 passkey sign-ins, 1 magic link, 1 generated token: 75 %, 13 %, 12 % (whole shares adding up to 100).
    const signIns = await page.textContent('[data-chart=sign-ins] svg');
    expect(signIns).toMatch(/passkey 75 %/);
    expect(signIns).toMatch(/magic link 1[23] %/);
    expect(signIns).toMatch(/generated token 1[23] %/);
    await page.screenshot({ path: join(__dirname, '..', '..', '..', 'docs', 'images', 'console-reporting.png'), fullPage: true });
    await context.close();
  });
});
