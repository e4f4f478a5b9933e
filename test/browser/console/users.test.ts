/**
 * The operator console's users, credentials and event log (issue 36), in Debian's Chromium with a
 * virtual authenticator, against a real service process: users registered through the HTTP API
 * with the software authenticator are seen on the users page; one passkey is deleted after a
 * step-up and the deletion is found in the app's event log with the operator as performedBy;
 * another user is revoked and its passkeys are gone from the API.
 */
import { registerPasskey } from '../../support/ceremonies';
import { aaguidBytes } from '../../support/softwareAuthenticator';
import type { TestApp } from '../../support/testService';
import { MANAGEMENT_KEY } from '../../support/testService';
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness, type OperatorDevice } from '../support/consoleHarness';

jest.setTimeout(120_000);

const GOOGLE_PASSWORD_MANAGER = 'ea9b8d66-4d01-1d21-3ce4-b6b48cb575d4';
const ICLOUD_KEYCHAIN = 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd';
const CHROME_ON_ANDROID = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Mobile Safari/537.36';
const SAFARI_ON_IPHONE = 'Mozilla/5.0 (iPhone; CPU iPhone OS 18_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/18.1 Mobile/15E148 Safari/604.1';
const OPERATOR = 'ops@example.com';

browserSuite('console users')('the console: users, their passkeys and the event log', () => {
  let h: ConsoleHarness;
  let app: TestApp;
  let device: OperatorDevice;

  const credentialsOf = async (userId: string) => {
    const res = await h.service.http.get('/credentials/list').query({ userId }).set('ApiSecret', app.apiSecret);
    expect(res.status).toBe(200);
    return (Array.isArray(res.body) ? res.body : res.body.values) as { descriptor: { id: string } }[];
  };

  beforeAll(async () => {
    h = await startConsoleHarness();
    app = await h.service.createApp();
    const features = await h.service.http.post(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY).send({ eventLoggingIsEnabled: true });
    expect(features.status).toBe(204);
    // alice: two synced passkeys of two providers; bob: one, to be revoked.
    const synced = { backupEligible: true, backupState: true };
    await registerPasskey(h.service, app, { userId: 'alice', aliases: ['alice@example.com'], aliasHashing: false, nickname: 'Pixel', authenticator: { ...synced, aaguid: aaguidBytes(GOOGLE_PASSWORD_MANAGER) }, headers: { 'User-Agent': CHROME_ON_ANDROID } });
    await registerPasskey(h.service, app, { userId: 'alice', nickname: 'iPhone', authenticator: { ...synced, aaguid: aaguidBytes(ICLOUD_KEYCHAIN) }, headers: { 'User-Agent': SAFARI_ON_IPHONE } });
    await registerPasskey(h.service, app, { userId: 'bob', aliases: ['bob@example.com'], aliasHashing: true });
    await registerPasskey(h.service, app, { userId: 'bob' });
    device = await h.operator(OPERATOR);
    // The destructive forms ask for a confirmation first: the operator says yes.
    device.page.on('dialog', (dialog) => void dialog.accept());
  });

  afterAll(async () => {
    await h?.close();
  });

  it('shows the users, opens one, deletes a passkey after a step-up, and finds the deletion in the event log with the operator as performedBy', async () => {
    const { page } = device;
    await page.goto(`${h.origin}/console/apps/${app.appId}/users`);
    const alice = page.locator('[data-user="alice"]');
    await expect(alice.locator('td').nth(1).textContent()).resolves.toContain('alice@example.com');
    await expect(alice.locator('td').nth(2).textContent()).resolves.toBe('2');
    // bob's alias is kept only as a hash: not shown, counted.
    await expect(page.locator('[data-user="bob"] td').nth(1).textContent()).resolves.toContain('1 hashed');
    await expect(page.locator('[data-user="bob"] td').nth(1).textContent()).resolves.not.toContain('bob@example.com');
    await h.screenshot(page, 'users');

    // The search by userId prefix.
    await page.fill('input[name=q]', 'al');
    await Promise.all([page.waitForURL(/\/users\?q=al$/), page.click('form.filters button[type=submit]')]);
    expect(await page.locator('[data-users] tbody tr').evaluateAll((rows) => rows.map((row) => row.getAttribute('data-user')))).toEqual(['alice']);

    await Promise.all([page.waitForURL(`${h.origin}/console/apps/${app.appId}/users/alice`), alice.locator('a').click()]);
    const rows = page.locator('[data-credentials] tbody tr');
    expect(await rows.count()).toBe(2);
    const cells = await rows.first().locator('td').allTextContents();
    expect(cells.slice(0, 4)).toEqual(['Google Password Manager', expect.stringContaining('Android'), 'Pixel', 'synced']);
    expect(await rows.nth(1).locator('td').first().textContent()).toBe('Apple Passwords');
    await h.screenshot(page, 'user-credentials');

    const [pixel, iphone] = await credentialsOf('alice');
    await Promise.all([page.waitForSelector('.notice.ok'), page.locator(`[data-credential="${pixel.descriptor.id}"] button.danger`).click()]);
    expect(await page.textContent('.notice.ok')).toContain('The passkey was deleted.');
    expect(await rows.evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-credential')))).toEqual([iphone.descriptor.id]);
    expect((await credentialsOf('alice')).map((c) => c.descriptor.id)).toEqual([iphone.descriptor.id]);

    // The event log: the registrations, then the deletion, found by its type.
    await page.goto(`${h.origin}/console/apps/${app.appId}/events`);
    await h.screenshot(page, 'events');
    await page.selectOption('select[name=type]', 'ApiUserDeleteCredential');
    await Promise.all([page.waitForURL(/\/events\?type=ApiUserDeleteCredential&from=&to=$/), page.click('form.filters button[type=submit]')]);
    const deletions = page.locator('[data-events] tbody tr');
    expect(await deletions.count()).toBe(1);
    expect(await deletions.first().locator('[data-performed-by]').textContent()).toBe(OPERATOR);
    expect(await deletions.first().textContent()).toContain(pixel.descriptor.id);

    // The operators' own audit trail, from the Operators page: the same action, by the same operator.
    await page.goto(`${h.origin}/console/operators`);
    await Promise.all([page.waitForURL(`${h.origin}/console/apps/pwlconsole/events`), page.click('a[href$="/apps/pwlconsole/events"]')]);
    const trail = await page.locator('[data-events] tbody tr[data-event="ConsoleActionPerformed"]').allTextContents();
    expect(trail.some((row) => row.includes(OPERATOR) && row.includes(pixel.descriptor.id))).toBe(true);
  });

  it('revokes a user after a step-up: every passkey of it is gone from the API', async () => {
    const { page } = device;
    expect(await credentialsOf('bob')).toHaveLength(2);
    await page.goto(`${h.origin}/console/apps/${app.appId}/users`);
    await Promise.all([page.waitForSelector('.notice.ok'), page.locator('[data-user="bob"] button.danger').click()]);
    expect(await page.textContent('.notice.ok')).toContain('bob was revoked');
    expect(await page.locator('[data-user="bob"]').count()).toBe(0);
    expect(await credentialsOf('bob')).toEqual([]);
    expect(await credentialsOf('alice')).toHaveLength(1);

    // And the app's log says who did it.
    await page.goto(`${h.origin}/console/apps/${app.appId}/events?type=ApiUserDeleted`);
    expect(await page.locator('[data-events] tbody tr [data-performed-by]').allTextContents()).toEqual([OPERATOR]);
  });

  it('says so when the app does not log events', async () => {
    const quiet = await h.service.createApp();
    await device.page.goto(`${h.origin}/console/apps/${quiet.appId}/events`);
    expect(await device.page.textContent('[data-logging-off]')).toContain('Event logging is off');
  });
});
