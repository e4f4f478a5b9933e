import { randomBytes } from 'node:crypto';
import type { Response } from 'supertest';
import type { KeyHeader } from '../../src/server/http/middleware/authenticate';
import { keyIdOf, managementClient, type ManagementClient } from '../support/http';
import { keyProbe, type KeyProbe } from '../support/keyProbe';
import { MANAGEMENT_KEY, providers, startTestService, warnIfPostgresSkipped, type TestApp, type TestService } from '../support/testService';

warnIfPostgresSkipped();

const OTHER: Record<KeyHeader, KeyHeader> = { ApiSecret: 'ApiKey', ApiKey: 'ApiSecret' };

/**
 * A 401 challenge as the SDKs and a developer see it: the exact problem media type, the scheme in
 * WWW-Authenticate, a complete body whose detail says what went wrong, and never the value sent.
 */
function expectChallenge(res: Response, header: KeyHeader | 'ManagementKey', detail: string | RegExp, sentValue?: string): void {
  expect(res.status).toBe(401);
  expect(res.headers['content-type']).toBe('application/problem+json');
  expect(res.headers['www-authenticate']).toBe(header);
  // The real app adds the request id as traceId; the probe router does not.
  const { traceId, ...body } = res.body;
  if (traceId !== undefined) expect(traceId).toBe(res.headers['x-request-id']);
  expect(body).toEqual({
    type: `https://docs.passwordless.dev/guide/errors.html#${header}`,
    title: `A valid '${header}' header is required.`,
    status: 401,
    errorCode: header,
    detail: expect.any(String),
  });
  if (typeof detail === 'string') expect(res.body.detail).toBe(detail);
  else expect(res.body.detail).toMatch(detail);
  // Not even the first characters, which the reference service echoes.
  if (sentValue) for (const fragment of [sentValue, sentValue.slice(0, 10)]) expect(res.text).not.toContain(fragment);
}

const randomHex = () => randomBytes(16).toString('hex');

describe.each(providers())('authentication with key headers on %s', (provider) => {
  let svc: TestService;
  let admin: ManagementClient;
  let probe: KeyProbe;
  let app: TestApp;
  /** The app's key that belongs in each header. */
  const keyFor = (header: KeyHeader) => (header === 'ApiSecret' ? app.apiSecret : app.apiKey);

  beforeAll(async () => {
    svc = await startTestService(provider);
    admin = managementClient(svc);
    probe = keyProbe(svc.services.keys);
    app = await svc.createApp();
  });
  afterAll(() => svc.close());

  describe.each(['ApiSecret', 'ApiKey'] as const)('the %s header', (header) => {
    const other = OTHER[header];

    it('accepts the right key and tells the route which app, kind and scopes it carries', async () => {
      const res = await probe.as(header, keyFor(header));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        appId: app.appId,
        kind: header === 'ApiSecret' ? 'secret' : 'public',
        keyId: keyIdOf(keyFor(header)),
        scopes: expect.arrayContaining(header === 'ApiSecret' ? ['token_register', 'token_verify'] : ['register', 'login']),
        incarnation: expect.stringMatching(/^[0-9a-f]{16}$/),
      });
    });

    it('401s when the header is missing', async () => {
      expectChallenge(await probe.call(header), header, `A valid '${header}' header is required.`);
    });

    it('treats an empty or blank header like a missing one', async () => {
      expectChallenge(await probe.as(header, ''), header, `A valid '${header}' header is required.`);
      expectChallenge(await probe.as(header, '   '), header, `A valid '${header}' header is required.`);
    });

    it('401s on a value that is not a key at all, without echoing it', async () => {
      expectChallenge(
        await probe.as(header, 'somethingrandom'),
        header,
        new RegExp(`^We don't recognize the value you supplied for your '${header}'\\.`),
        'somethingrandom',
      );
    });

    it('401s on the key of the other kind, saying so, without echoing it', async () => {
      const wrongKind = keyFor(other);
      const detail =
        header === 'ApiSecret'
          ? /^Your ApiSecret header contained a public ApiKey instead of your 'ApiSecret'\./
          : /^Your ApiKey header contained an? ApiSecret instead of your 'ApiKey'\./;
      expectChallenge(await probe.as(header, wrongKind), header, detail, wrongKind);
    });

    it.each([
      ['verify_123', 'verify'],
      ['register_123', 'register'],
    ])('401s on a token (%s) sent instead of the key', async (token, kind) => {
      expectChallenge(await probe.as(header, token), header, `A ${kind} token was supplied instead of your '${header}'.`, token);
    });

    it('401s when only the other header is sent, naming both', async () => {
      const res = await probe.call(header, { [other]: keyFor(other) });
      expectChallenge(res, header, `A '${other}' header was supplied when a '${header}' header should have been supplied.`, keyFor(other));
    });

    it('401s on a well-formed key that does not exist, in a known or an unknown app', async () => {
      const kind = header === 'ApiSecret' ? 'secret' : 'public';
      for (const unknown of [`${app.appId}:${kind}:${randomHex()}`, `nosuchapp:${kind}:${randomHex()}`]) {
        expectChallenge(await probe.as(header, unknown), header, `The value of your '${header}' is not valid.`, unknown);
      }
    });

    it('401s on an existing key id whose other characters are wrong', async () => {
      const key = keyFor(header);
      const forged = `${key.slice(0, -32)}${randomHex().slice(0, 28)}${keyIdOf(key)}`;
      expectChallenge(await probe.as(header, forged), header, `The value of your '${header}' is not valid.`, forged);
    });

    it('401s on a locked key until it is unlocked', async () => {
      const key = keyFor(header);
      const keyPath = `/admin/apps/${app.appId}/api-keys/${keyIdOf(key)}`;
      expect((await admin.post(`${keyPath}/lock`)).status).toBe(204);
      expectChallenge(await probe.as(header, key), header, new RegExp(`'${header}' is locked`), key);

      expect((await admin.post(`${keyPath}/unlock`)).status).toBe(204);
      expect((await probe.as(header, key)).status).toBe(200);
    });

    it('401s on any key of a frozen app until it is unfrozen', async () => {
      const key = keyFor(header);
      expect((await admin.post(`/admin/apps/${app.appId}/freeze`)).status).toBe(204);
      expectChallenge(await probe.as(header, key), header, /frozen/, key);

      expect((await admin.post(`/admin/apps/${app.appId}/unfreeze`)).status).toBe(204);
      expect((await probe.as(header, key)).status).toBe(200);
    });
  });
});

/** Every management route, with an app id that exists when the suite runs. */
const managementRoutes = (appId: string): [method: 'get' | 'post' | 'delete', path: string][] => [
  ['get', '/admin/apps'],
  ['get', `/admin/apps/${appId}/available`],
  ['post', `/admin/apps/${appId}/create`],
  ['delete', `/admin/apps/${appId}`],
  ['get', `/admin/apps/${appId}/features`],
  ['post', `/admin/apps/${appId}/features`],
  ['post', `/admin/apps/${appId}/freeze`],
  ['post', `/admin/apps/${appId}/unfreeze`],
  ['get', `/admin/apps/${appId}/api-keys`],
  ['post', `/admin/apps/${appId}/public-keys`],
  ['post', `/admin/apps/${appId}/secret-keys`],
  ['post', `/admin/apps/${appId}/api-keys/abcd/lock`],
  ['post', `/admin/apps/${appId}/api-keys/abcd/unlock`],
  ['delete', `/admin/apps/${appId}/api-keys/abcd`],
  ['get', `/api/admin/apps/${appId}/features`],
];

/** Calls every management route with the given ManagementKey (undefined: header not sent). */
async function callEveryManagementRoute(svc: TestService, appId: string, managementKey: string | undefined) {
  const answers: { route: string; res: Response }[] = [];
  for (const [method, path] of managementRoutes(appId)) {
    const request = svc.http[method](path).send({ adminEmail: 'admin@example.com', scopes: [0] });
    if (managementKey !== undefined) request.set('ManagementKey', managementKey);
    answers.push({ route: `${method.toUpperCase()} ${path}`, res: await request });
  }
  return answers;
}

describe.each(providers())('the ManagementKey header on %s', (provider) => {
  let svc: TestService;
  let app: TestApp;
  beforeAll(async () => {
    // Every route with a wrong key from one address: more than the default failure limit allows (test/cli/managementKey.test.ts tests that).
    svc = await startTestService(provider, { RATE_LIMIT_MANAGEMENT_FAILURES_PER_IP: '1000' });
    app = await svc.createApp();
  });
  afterAll(() => svc.close());

  it.each([
    ['missing', undefined, "A valid 'ManagementKey' header is required."],
    ['empty', '', "A valid 'ManagementKey' header is required."],
    ['wrong', 'not-the-management-key-at-all', "The value of your 'ManagementKey' is not valid."],
  ])('answers every management route with 401 when the key is %s', async (_case, sent, detail) => {
    for (const { route, res } of await callEveryManagementRoute(svc, app.appId, sent)) {
      expect({ route, status: res.status }).toEqual({ route, status: 401 });
      expectChallenge(res, 'ManagementKey', detail, sent || undefined);
    }
    // Nothing was changed behind the 401s: the app and its keys are still there and unlocked.
    const keys = await managementClient(svc).get(`/admin/apps/${app.appId}/api-keys`);
    expect(keys.status).toBe(200);
    expect(keys.body.map((k: { isLocked: boolean }) => k.isLocked)).toEqual([false, false, false, false]);
  });

  it('accepts the configured key', async () => {
    const res = await svc.http.get(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY);
    expect(res.status).toBe(200);
  });
});

describe.each(providers())('a service started without MANAGEMENT_KEY on %s', (provider) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(provider, { MANAGEMENT_KEY: '' });
  });
  afterAll(() => svc.close());

  it('treats the empty variable as unset', () => {
    expect(svc.config.managementKey).toBeUndefined();
  });

  it('refuses every management call, whatever key is sent, and says why', async () => {
    for (const sent of [MANAGEMENT_KEY, undefined]) {
      for (const { route, res } of await callEveryManagementRoute(svc, 'someapp', sent)) {
        expect({ route, status: res.status }).toEqual({ route, status: 401 });
        expectChallenge(res, 'ManagementKey', /MANAGEMENT_KEY/, sent);
      }
    }
    expect(await svc.services.store.db.app.count()).toBe(0);
  });
});
