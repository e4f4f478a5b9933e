/**
 * The operator console's apps and app settings (issue 36), in Debian's Chromium with a virtual
 * authenticator, against a real service process: an app created with the live id check, its
 * freshly shown secret used against the API, magic links toggled and the API's answer changing, a
 * key made (shown once), used, locked (refused), and deleted after a passkey step-up.
 */
import type { Page } from 'playwright-core';
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness, type OperatorDevice } from '../support/consoleHarness';
import { MANAGEMENT_KEY } from '../../support/testService';

jest.setTimeout(120_000);

const OPERATOR = 'ops@example.com';
const APP = 'shop';
const TEMPLATE = 'https://shop.example.com/sign-in?token=$TOKEN';

browserSuite('console app settings')('the console: creating an app and changing its settings', () => {
  let h: ConsoleHarness;
  let device: OperatorDevice;
  let page: Page;

  beforeAll(async () => {
    h = await startConsoleHarness();
    device = await h.operator(OPERATOR);
    page = device.page;
    // The destructive forms ask confirm() first: the operator says yes.
    page.on('dialog', (dialog) => void dialog.accept());
  });

  afterAll(async () => {
    await h?.close();
  });

  const registerToken = (secret: string) => h.service.http.post('/register/token').set('ApiSecret', secret).send({ userId: 'user-1', username: 'user-1@example.com' });
  const sendMagicLink = (secret: string) => h.service.http.post('/magic-links/send').set('ApiSecret', secret).send({ emailAddress: OPERATOR, urlTemplate: TEMPLATE, userId: 'user-1' });
  const notice = async () => (await page.textContent('main .notice'))?.trim();
  /** Submits a form of the page by its button and waits for the page the action sends back. */
  const submit = async (button: string) => {
    await Promise.all([page.waitForNavigation(), page.click(button)]);
  };

  it('creates an app with the live id check, and its freshly shown ApiSecret works against the API', async () => {
    expect((await h.service.http.post('/admin/apps/acme/create').set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' })).status).toBe(200);
    await page.goto(`${h.origin}/console/apps`);
    const statusIs = (text: string) => page.waitForFunction((want) => document.querySelector('[data-availability-status]')?.textContent === want, text);
    await page.fill('input[name=appId]', APP);
    await statusIs('available');
    await page.fill('input[name=appId]', 'acme');
    await statusIs('taken');
    await page.fill('input[name=appId]', APP);
    await statusIs('available');
    expect(await page.inputValue('input[name=adminEmail]')).toBe(OPERATOR);
    await h.screenshot(page, 'apps');

    await submit('[data-apps] ~ section button[type=submit]');
    const secret = (await page.textContent('[data-created-keys] tr:has(th:text-is("ApiSecret")) [data-secret]'))!.trim();
    expect(secret).toMatch(new RegExp(`^${APP}:secret:[0-9a-f]{32}$`));
    await h.screenshot(page, 'app-created');

    const token = await registerToken(secret);
    expect(token.status).toBe(200);
    expect(token.body.token).toMatch(/^register_/);
  });

  it('toggles magic links off and on, and the API refuses and then sends them', async () => {
    const secret = await freshSecret();
    expect((await sendMagicLink(secret)).status).toBe(204);
    await page.goto(`${h.origin}/console/apps/${APP}`);

    await page.uncheck('input[name=isMagicLinksEnabled]');
    await submit('[data-save-features]');
    expect(await notice()).toBe('Saved: isMagicLinksEnabled.');
    expect(await page.isChecked('input[name=isMagicLinksEnabled]')).toBe(false);
    const refused = await sendMagicLink(secret);
    expect(refused.status).toBe(403);
    expect(refused.body.errorCode).toBe('magic_links_disabled');

    await page.check('input[name=isMagicLinksEnabled]');
    await submit('[data-save-features]');
    expect(await notice()).toBe('Saved: isMagicLinksEnabled.');
    expect((await sendMagicLink(secret)).status).toBe(204);

    // A value the API's schema refuses is refused here too, with its message, and changes nothing.
    await page.fill('input[name=eventLoggingRetentionPeriod]', '91');
    await page.$eval('form:has([data-save-features])', (form) => ((form as HTMLFormElement).noValidate = true));
    await submit('[data-save-features]');
    expect(await notice()).toContain('eventLoggingRetentionPeriod');
    expect((await h.service.http.get(`/admin/apps/${APP}/features`).set('ManagementKey', MANAGEMENT_KEY)).body.eventLoggingRetentionPeriod).toBe(90);
  });

  /** A secret made on the settings page (the created page's secret is gone with it): the key answer shows it once. */
  async function freshSecret(scopes?: string[]): Promise<string> {
    await page.goto(`${h.origin}/console/apps/${APP}`);
    const form = page.locator('form:has([data-create-key=secret])');
    if (scopes) {
      for (const box of await form.locator('input[name=scopes]').all()) {
        if (scopes.includes((await box.getAttribute('value'))!)) await box.check();
        else await box.uncheck();
      }
    }
    await submit('[data-create-key=secret]');
    return (await page.textContent('[data-new-key]'))!.trim();
  }

  it('creates a key shown once, which works, is refused once locked, and is gone after a step-up delete', async () => {
    const key = await freshSecret(['token_register']);
    const keyId = key.slice(-4);
    expect(await page.textContent('main')).toContain('token_register');
    expect((await registerToken(key)).status).toBe(200);
    // Its scopes are what was ticked: magic links are not among them.
    expect((await sendMagicLink(key)).body.errorCode).toBe('forbidden');

    await page.goto(`${h.origin}/console/apps/${APP}`);
    const row = `[data-keys] tr[data-key="${keyId}"]`;
    expect(await page.textContent(`${row} td.scopes`)).toBe('token_register');
    // The page lists it, masked: the value is not on it any more.
    expect(await page.content()).not.toContain(key);

    await submit(`${row} [data-lock]`);
    expect(await notice()).toBe(`The key ${keyId} was locked: it is refused until it is unlocked.`);
    expect(await page.textContent(`${row} .badge`)).toBe('locked');
    const locked = await registerToken(key);
    expect(locked.status).toBe(401);
    expect(locked.body.errorCode).toBe('ApiSecret');

    await submit(`${row} [data-unlock]`);
    expect((await registerToken(key)).status).toBe(200);
    await h.screenshot(page, 'app-settings');

    // Delete: the page asks to confirm, then for a passkey step-up (the virtual authenticator says yes), then sends the form.
    await submit(`${row} [data-delete-key]`);
    expect(await notice()).toBe(`The key ${keyId} was deleted.`);
    expect(await page.locator(row).count()).toBe(0);
    expect((await registerToken(key)).status).toBe(401);
    const keys = (await h.service.http.get(`/admin/apps/${APP}/api-keys`).set('ManagementKey', MANAGEMENT_KEY)).body as { id: string }[];
    expect(keys.map((k) => k.id)).not.toContain(keyId);
  });
});
