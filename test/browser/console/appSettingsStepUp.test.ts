/**
 * The app settings' actions posted directly (supertest with the operator's session cookie and CSRF
 * token, as a script in a stolen tab could): destructive ones are refused without a passkey step-up
 * in the last five minutes, and change nothing; after a step-up the same post goes through. Also:
 * the console's own app and another app's keys are out of reach, and a bad field is a notice, not a 500.
 */
import Database from 'better-sqlite3';
import { browserSuite } from '../support/chromium';
import { startConsoleHarness, type ConsoleHarness, type OperatorDevice } from '../support/consoleHarness';
import { MANAGEMENT_KEY } from '../../support/testService';

jest.setTimeout(120_000);

const APP = 'shop';

browserSuite('console app settings step-up')('the console: app settings actions posted without a step-up', () => {
  let h: ConsoleHarness;
  let device: OperatorDevice;
  let cookie: string;

  const management = (method: 'get' | 'post', path: string) => h.service.http[method](path).set('ManagementKey', MANAGEMENT_KEY);
  const keyIds = async (appId: string) => ((await management('get', `/admin/apps/${appId}/api-keys`)).body as { id: string }[]).map((k) => k.id);
  /** The console's own app's key ids, read from the database: the management API refuses its id. */
  const consoleKeyIds = () => {
    const db = new Database(h.service.database.url.replace(/^file:/, ''), { readonly: true });
    try {
      return (db.prepare('SELECT "id" FROM "ApiKey" WHERE "tenant" = ? ORDER BY "id"').all('pwlconsole') as { id: string }[]).map((k) => k.id);
    } finally {
      db.close();
    }
  };
  const settings = () => h.service.http.get(`/console/apps/${APP}`).set('Cookie', cookie);
  /** The form token of the session, read from the settings page as the browser has it. */
  const csrf = async () => /name="_csrf" value="([^"]+)"/.exec((await settings()).text)![1];
  /** A form of the settings page, posted the way the browser posts it (same origin, the session's token). */
  const post = async (action: string, fields: Record<string, string>, appId = APP) =>
    h.service.http
      .post(`/console/apps/${appId}/${action}`)
      .set('Cookie', cookie)
      .set('Origin', h.origin)
      .type('form')
      .send({ _csrf: await csrf(), _back: `/console/apps/${APP}`, ...fields });
  const unescape = (text: string) => text.replace(/&(#39|quot|lt|gt|amp);/g, (_, name: string) => ({ '#39': "'", quot: '"', lt: '<', gt: '>', amp: '&' })[name]!);
  /** The one-line outcome the next page shows (post/redirect/get), as text. */
  const noticeOf = async () => {
    const found = /<p class="notice (?:ok|error)" role="status">([^<]*)<\/p>/.exec((await settings()).text)?.[1];
    return found === undefined ? undefined : unescape(found);
  };

  beforeAll(async () => {
    h = await startConsoleHarness();
    for (const appId of [APP, 'acme']) expect((await management('post', `/admin/apps/${appId}/create`).send({ adminEmail: 'admin@example.com' })).status).toBe(200);
    device = await h.operator('ops@example.com');
    const session = (await device.context.cookies()).find((c) => c.name === 'console');
    cookie = `console=${session!.value}`;
  });

  afterAll(async () => {
    await h?.close();
  });

  it('refuses deleting a key, changing the plan and deleting the app without a recent step-up, and changes nothing', async () => {
    const [keyId] = await keyIds(APP);
    for (const [action, fields] of [
      ['keys/delete', { keyId }],
      ['plan', { plan: 'enterprise' }],
      ['delete', { confirmAppId: APP }],
    ] as const) {
      const res = await post(action, fields);
      expect(res.status).toBe(303);
      expect(res.headers.location).toBe(`/console/apps/${APP}`);
      expect(await noticeOf()).toBe('Confirm it is you with your passkey first. Destructive actions need a passkey confirmation within the last five minutes.');
    }
    expect(await keyIds(APP)).toContain(keyId);
    expect((await management('get', `/admin/apps/${APP}/features`)).body.plan).toBe('trial');
    // What does not need a step-up goes through on the same session and token: the refusals above were the step-up's.
    expect((await post('keys/lock', { keyId })).status).toBe(303);
    expect(await noticeOf()).toBe(`The key ${keyId} was locked: it is refused until it is unlocked.`);
  });

  it('after a passkey step-up in the browser, the same direct post deletes the key', async () => {
    await device.page.goto(`${h.origin}/console/apps/${APP}`);
    // The page's own browser module, as console.js runs it before a destructive form (a string: the test's compiler would rewrite an import()).
    await device.page.evaluate(`(async () => {
      const { createPasskeys } = await import('/console/passwordless-browser/passwordless.mjs');
      await (await createPasskeys({ configUrl: '/console/passwordless-config' })).stepUp({ purpose: 'step-up' });
    })()`);
    const [, keyId] = await keyIds(APP);
    const res = await post('keys/delete', { keyId });
    expect(res.status).toBe(303);
    expect(res.headers.location).toBe(`/console/apps/${APP}#keys`);
    expect(await noticeOf()).toBe(`The key ${keyId} was deleted.`);
    expect(await keyIds(APP)).not.toContain(keyId);
  });

  it("keeps the console's own app and other apps' keys out of reach, and answers a bad field with a notice", async () => {
    // Stepped up by the test before: only the address of the key is wrong.
    const [acmeKey] = await keyIds('acme');
    expect((await post('keys/delete', { keyId: acmeKey })).status).toBe(303);
    expect(await noticeOf()).toBe('Apikey was not found');
    expect(await keyIds('acme')).toContain(acmeKey);

    const consoleKeys = consoleKeyIds();
    expect(consoleKeys).toHaveLength(2);
    const own = await post('keys/delete', { keyId: consoleKeys[0] }, 'pwlconsole');
    expect(own.status).toBe(303);
    expect(await noticeOf()).toBe("App was not found. There is no app 'pwlconsole'.");
    expect(consoleKeyIds()).toEqual(consoleKeys);

    for (const [action, fields, message] of [
      ['features', { eventLoggingRetentionPeriod: '9999', magicLinkEmailMonthlyQuota: '10' }, 'eventLoggingRetentionPeriod'],
      ['features', { eventLoggingRetentionPeriod: '30', magicLinkEmailMonthlyQuota: '10', allowedOrigins: 'javascript:alert(1)' }, 'allowedOrigins'],
      ['keys/create', { kind: 'secret', scopes: 'register' }, 'secret keys take the scopes'],
      ['keys/create', { kind: 'management' }, 'kind'],
      ['auth-configs/add', { purpose: 'a b', timeToLive: '00:01:00' }, 'purpose'],
      ['auth-configs/add', { purpose: 'checkout', timeToLive: '31.00:00:00' }, 'timeToLive'],
      ['delete', { confirmAppId: 'acme' }, "Type the app's id"],
    ] as const) {
      const res = await post(action, fields);
      expect(res.status).toBe(303);
      expect(await noticeOf()).toContain(message);
    }
    expect((await management('get', `/admin/apps/${APP}/features`)).body).toMatchObject({ eventLoggingRetentionPeriod: 90, allowedOrigins: [] });
    expect((await management('get', `/admin/apps/${APP}/features`)).status).toBe(200);
  });
  it('adds, edits and deletes an authentication configuration, schedules and cancels the deletion, and deletes the app (stepped up)', async () => {
    const row = async (purpose: string) => new RegExp(`<tr data-auth-config="${purpose}">(.*?)</tr>`, 's').exec((await settings()).text)?.[1];
    expect((await post('auth-configs/add', { purpose: 'checkout', timeToLive: '00:05:00', userVerificationRequirement: 'required', prf: 'on' })).status).toBe(303);
    expect(await noticeOf()).toBe('The configuration checkout was added.');
    expect(await row('checkout')).toMatch(/00:05:00.*required.*prf.*ops@example\.com/s);
    expect((await post('auth-configs/edit', { purpose: 'checkout', timeToLive: '1.00:00:00', userVerificationRequirement: 'preferred' })).status).toBe(303);
    expect(await row('checkout')).toMatch(/1\.00:00:00.*preferred.*<td>—<\/td>/s);
    expect((await post('auth-configs/delete', { purpose: 'step-up' })).status).toBe(303);
    expect(await noticeOf()).toBe('The step-up configuration cannot be deleted.');
    expect((await post('auth-configs/delete', { purpose: 'checkout' })).status).toBe(303);
    expect(await row('checkout')).toBeUndefined();

    expect((await post('deletion/schedule', {})).status).toBe(303);
    expect(await noticeOf()).toMatch(/^The app 'shop' will be deleted\./);
    expect((await settings()).text).toContain('data-deletion-scheduled');
    expect((await management('get', '/admin/apps')).body.values.find((a: { appId: string }) => a.appId === APP).deleteAt).not.toBeNull();
    expect((await post('deletion/cancel', {})).status).toBe(303);
    expect(await noticeOf()).toBe("The deletion of the app 'shop' was cancelled; its keys work again.");
    expect((await management('get', '/admin/apps')).body.values.find((a: { appId: string }) => a.appId === APP).deleteAt).toBeNull();

    // A key made here is in the answer only: not in a redirect, nor in the service's log.
    const made = await post('keys/create', { kind: 'secret', scopes: 'token_register' });
    expect(made.status).toBe(200);
    const value = /data-new-key>([^<]+)</.exec(made.text)![1];
    expect(made.headers.location).toBeUndefined();
    expect(h.service.output()).not.toContain(value);

    const deleted = await post('delete', { confirmAppId: APP });
    expect(deleted.status).toBe(303);
    expect(deleted.headers.location).toBe('/console/apps');
    expect((await management('get', `/admin/apps/${APP}/features`)).status).toBe(404);
    expect((await settings()).status).toBe(404);
  });
});
