/**
 * The operator console's playground (issue 36), in Debian's Chromium with a virtual authenticator,
 * against a real service process: an operator registers a test user of an app with the published
 * browser client and the app's public key, signs it in by username and by picking its passkey, and
 * sees the verify result the console got in process; the API lists the passkey. An app that does
 * not allow the console's origin shows the API's refusal; an app without an unlocked public key says so.
 */
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness, type OperatorDevice } from '../support/consoleHarness';
import { MANAGEMENT_KEY, uniqueAppId } from '../../support/testService';

jest.setTimeout(120_000);

interface VerifyResult {
  success: boolean;
  userId: string;
  type: string;
  origin: string;
  nickname: string | null;
}

browserSuite('console playground')('the console: the playground registers and signs in a test user', () => {
  let h: ConsoleHarness;
  let device: OperatorDevice;

  /** An app made through the management API, as an operator's tooling would; answers its id and first secret. */
  async function createApp(allowedOrigins: string[]): Promise<{ appId: string; apiSecret: string; apiKeys: string[] }> {
    const appId = uniqueAppId('play');
    const res = await h.service.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', allowedOrigins });
    expect(res.status).toBe(200);
    return { appId, apiSecret: res.body.apiSecret1, apiKeys: [res.body.apiKey1, res.body.apiKey2] };
  }

  /** What the page shows after a ceremony: its status line, and the verify result it printed. */
  async function shownResult(label: string): Promise<{ text: string; result: VerifyResult }> {
    await device.page.waitForSelector(`[data-playground-step].ok:has-text("${label}")`);
    const text = (await device.page.textContent('[data-playground-result]')) ?? '';
    return { text, result: JSON.parse(text) as VerifyResult };
  }

  beforeAll(async () => {
    h = await startConsoleHarness();
    device = await h.operator('player@example.com');
  });

  afterAll(async () => {
    await h?.close();
  });

  it('registers a test user, signs it in by username and by picking its passkey, and the API lists the passkey', async () => {
    const app = await createApp([h.origin]);
    const { page } = device;
    await page.goto(`${h.origin}/console/apps/${app.appId}/playground`);
    expect(await page.locator('[data-playground-origin], [data-playground-no-key]').count()).toBe(0);

    await page.fill('[data-playground-register] input[name=username]', 'tester@example.com');
    await page.click('[data-playground-register] button[type=submit]');
    const registered = await shownResult('Registered tester@example.com');
    expect(registered.text).toContain('"success": true');
    expect(registered.result).toMatchObject({ success: true, type: 'passkey_register', origin: h.origin });
    const userId = registered.result.userId;
    expect(userId).toMatch(/^playground-[A-Za-z0-9_-]{12}$/);
    expect(await page.textContent('[data-playground-step]')).toContain(userId);

    // Sign in by username (the alias the playground gave it): the page fills it in after registering.
    expect(await page.inputValue('[data-playground-alias] input[name=alias]')).toBe('tester@example.com');
    await page.click('[data-playground-alias] button[type=submit]');
    const signedIn = await shownResult('Signed in as tester@example.com');
    expect(signedIn.text).toContain('"success": true');
    expect(signedIn.text).toContain(`"userId": "${userId}"`);
    expect(signedIn.result).toMatchObject({ success: true, type: 'passkey_signin', userId, origin: h.origin });
    await h.screenshot(page, 'playground');

    // The API, with the app's own secret, lists the passkey the playground made, under its name.
    const listed = await h.service.http.get('/credentials/list').query({ userId }).set('ApiSecret', app.apiSecret);
    expect(listed.status).toBe(200);
    const credentials = Array.isArray(listed.body) ? listed.body : listed.body.values;
    expect(credentials).toHaveLength(1);
    expect(credentials[0]).toMatchObject({ userId, nickname: 'Console playground', origin: h.origin, rpid: 'localhost' });

    // Picking a passkey: with only the test user's passkey left on the device (the operator's own
    // is offered too, and which of the two the virtual authenticator would take is not defined), it signs in as the test user.
    const { credentials: held } = await device.cdp.send('WebAuthn.getCredentials', { authenticatorId: device.authenticatorId });
    const others = held.filter((credential) => Buffer.from(credential.userHandle ?? '', 'base64').toString('utf8') !== userId);
    expect(others.length).toBe(held.length - 1);
    for (const credential of others) await device.cdp.send('WebAuthn.removeCredential', { authenticatorId: device.authenticatorId, credentialId: credential.credentialId });
    await page.click('[data-playground-discoverable]');
    const picked = await shownResult('Signed in with the passkey you picked');
    expect(picked.result).toMatchObject({ success: true, type: 'passkey_signin', userId });
  });

  it('refuses a JSON action without the form token, and answers bad JSON with a 4xx problem', async () => {
    const app = await createApp([h.origin]);
    const { page } = device;
    await page.goto(`${h.origin}/console/apps/${app.appId}/playground`);
    const answers = await page.evaluate(async (url) => {
      const send = async (headers: Record<string, string>, body: string) => {
        const res = await fetch(url, { method: 'POST', credentials: 'same-origin', headers, body });
        return { status: res.status, type: res.headers.get('content-type'), body: await res.json() };
      };
      const csrf = (document.querySelector('[data-playground]') as HTMLElement).dataset.csrf ?? '';
      return {
        withoutToken: await send({ 'Content-Type': 'application/json' }, JSON.stringify({ username: 'x' })),
        badJson: await send({ 'Content-Type': 'application/json', 'X-Console-Csrf': csrf }, '{"username":'),
        notJson: await send({ 'Content-Type': 'text/plain', 'X-Console-Csrf': csrf }, 'username=x'),
        noUsername: await send({ 'Content-Type': 'application/json', 'X-Console-Csrf': csrf }, '{}'),
      };
    }, `${h.origin}/console/apps/${app.appId}/playground/register-token`);
    expect(answers.withoutToken).toMatchObject({ status: 403, body: { errorCode: 'console_form_refused' } });
    expect(answers.withoutToken.type).toContain('application/problem+json');
    expect(answers.badJson).toMatchObject({ status: 400, body: { errorCode: 'invalid_json' } });
    expect(answers.notJson).toMatchObject({ status: 415, body: { errorCode: 'unsupported_media_type' } });
    expect(answers.noUsername).toMatchObject({ status: 400, body: { errorCode: 'validation_failed' } });
  });

  it("says so when the app's allowed origins leave out the console's, and shows the API's refusal", async () => {
    const app = await createApp(['https://shop.example.com']);
    const { page } = device;
    await page.goto(`${h.origin}/console/apps/${app.appId}/playground`);
    expect(await page.textContent('[data-playground-origin]')).toContain(h.origin);
    await page.fill('[data-playground-register] input[name=username]', 'refused@example.com');
    await page.click('[data-playground-register] button[type=submit]');
    await page.waitForSelector('[data-error]:not([hidden])');
    expect(await page.textContent('[data-error]')).toMatch(/^The API refused: .*\(origin_not_allowed\)$/);
    expect(await page.textContent('[data-playground-result]')).toBe('');
  });

  it('says so when the app has no unlocked public key, and offers no ceremony', async () => {
    const app = await createApp([]);
    for (const key of app.apiKeys) {
      const locked = await h.service.http.post(`/admin/apps/${app.appId}/api-keys/${key.slice(-4)}/lock`).set('ManagementKey', MANAGEMENT_KEY);
      expect(locked.status).toBeLessThan(300);
    }
    const { page } = device;
    await page.goto(`${h.origin}/console/apps/${app.appId}/playground`);
    expect(await page.textContent('[data-playground-no-key]')).toContain('no unlocked public key');
    expect(await page.locator('[data-playground]').count()).toBe(0);
  });
});
