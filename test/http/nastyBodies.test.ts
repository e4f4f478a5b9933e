import { ORIGIN, RPID, registerPasskey, verifyToken } from '../support/ceremonies';
import { expectValidationProblem, useTestService } from '../support/problems';
import { aliasesOf, privateApi, publicApi } from '../support/privateApi';
import { expectNoServerError } from '../support/robustness';
import { createCredential, getAssertion } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, providers, uniqueAppId, type TestApp, type TestService } from '../support/testService';

/**
 * Bodies and fields no endpoint expects: whatever is sent, the answer is never a 5xx and every
 * error is an application/problem+json with an errorCode (useTestService also checks both after
 * every test); strings no store can keep are refused as validation problems.
 */

type Json = unknown;

/** JSON text nested `depth` levels deep: `{"a":{"a":...leaf...}}`. Built as text: too deep to stringify. */
const nestedObjectText = (depth: number, leafJson: string) => '{"a":'.repeat(depth) + leafJson + '}'.repeat(depth);

/** Sends raw JSON text, so that nesting too deep for JSON.stringify can be sent. */
const sendJson = (request: ReturnType<TestService['http']['post']>, text: string) => request.set('Content-Type', 'application/json').send(text);

// The nastiest values tried against every field of every endpoint.
const NASTY_VALUES: [string, Json][] = [
  ['null', null],
  ['an empty array', []],
  ['an array of strings', ['x', 'y']],
  ['a nested object', { a: { b: { c: 'd' } } }],
  ['-0', -0],
  ['a negative number', -1],
  ['a fraction', 1.5],
  ['1e308', 1e308],
  ['2^31', 2 ** 31],
  ['true', true],
  ['an empty string', ''],
  ['a lone surrogate', '\ud800'],
  ['a NUL', 'a\u0000b'],
  ['emoji and RTL marks', '🙂👩‍👩‍👧\u202eevil\u202c'],
  ['a 60,000-character string', 'a'.repeat(60_000)],
  ['base64url of garbage', 'AAAA'],
  ['a __proto__ object', JSON.parse('{"__proto__":{"polluted":true}}')],
];

/** Bodies sent whole, as JSON text. */
const NASTY_BODIES: [string, string][] = [
  ['null', 'null'],
  ['an array', '[1,{"a":2}]'],
  ['a number', '1e308'],
  ['a string', '"\\ud800"'],
  ['an object 10,000 levels deep', nestedObjectText(10_000, '1')],
  ['an array 30,000 levels deep', '['.repeat(30_000) + ']'.repeat(30_000)],
  ['duplicate keys differing in case', '{"userId":"a","USERID":{"x":1},"userid":[1]}'],
];

type Auth = 'ApiSecret' | 'ApiKey' | 'ManagementKey';
interface Endpoint {
  method: 'get' | 'post' | 'delete';
  path: string;
  auth: Auth;
  fields: string[];
}

const ENDPOINTS: Endpoint[] = [
  {
    method: 'post',
    path: '/register/token',
    auth: 'ApiSecret',
    fields: ['userId', 'username', 'displayName', 'attestation', 'authenticatorType', 'discoverable', 'userVerification', 'expiresAt', 'aliases', 'aliasHashing', 'hints'],
  },
  { method: 'post', path: '/register/begin', auth: 'ApiKey', fields: ['token', 'origin', 'rpid'] },
  { method: 'post', path: '/register/complete', auth: 'ApiKey', fields: ['session', 'origin', 'rpid', 'nickname', 'response'] },
  { method: 'post', path: '/signin/begin', auth: 'ApiKey', fields: ['userId', 'alias', 'purpose', 'origin', 'rpid'] },
  { method: 'post', path: '/signin/complete', auth: 'ApiKey', fields: ['session', 'origin', 'rpid', 'response'] },
  { method: 'post', path: '/signin/verify', auth: 'ApiSecret', fields: ['token'] },
  { method: 'post', path: '/signin/generate-token', auth: 'ApiSecret', fields: ['userId', 'timeToLive', 'purpose', 'origin', 'rpid'] },
  { method: 'post', path: '/alias', auth: 'ApiSecret', fields: ['userId', 'aliases', 'hashing'] },
  { method: 'post', path: '/credentials/list', auth: 'ApiSecret', fields: ['userId'] },
  { method: 'post', path: '/credentials/delete', auth: 'ApiSecret', fields: ['credentialId'] },
  { method: 'post', path: '/users/delete', auth: 'ApiSecret', fields: ['userId'] },
  {
    method: 'post',
    path: '/admin/apps/:new/create',
    auth: 'ManagementKey',
    fields: ['adminEmail', 'plan', 'magicLinkEmailMonthlyQuota', 'eventLoggingIsEnabled', 'eventLoggingRetentionPeriod', 'maxUsers', 'allowAttestation', 'allowedOrigins'],
  },
  {
    method: 'post',
    path: '/admin/apps/:app/features',
    auth: 'ManagementKey',
    fields: ['eventLoggingIsEnabled', 'eventLoggingRetentionPeriod', 'magicLinkEmailMonthlyQuota', 'maxUsers', 'allowAttestation', 'isGenerateSignInTokenEndpointEnabled', 'isMagicLinksEnabled', 'plan', 'allowedOrigins', 'sdkCompatibleLists'],
  },
  { method: 'post', path: '/admin/apps/:app/public-keys', auth: 'ManagementKey', fields: ['scopes'] },
  { method: 'post', path: '/admin/apps/:app/secret-keys', auth: 'ManagementKey', fields: ['scopes'] },
];

describe.each(providers())('request bodies on %s', (provider) => {
  const service = useTestService(provider);

  function call(svc: TestService, app: TestApp, endpoint: Endpoint) {
    const path = endpoint.path.replace(':app', app.appId).replace(':new', uniqueAppId());
    const request = svc.http[endpoint.method](path);
    const key = { ApiSecret: app.apiSecret, ApiKey: app.apiKey, ManagementKey: MANAGEMENT_KEY }[endpoint.auth];
    return request.set(endpoint.auth, key);
  }

  describe('every endpoint, against the nastiest inputs tried', () => {
    it.each(ENDPOINTS.map((e) => [`${e.method.toUpperCase()} ${e.path}`, e] as const))('%s never answers a 5xx', async (_label, endpoint) => {
      const svc = service();
      const app = await svc.createApp();
      for (const [name, text] of NASTY_BODIES) expectNoServerError(await sendJson(call(svc, app, endpoint), text), `body: ${name}`);
      for (const field of endpoint.fields) {
        for (const [name, value] of NASTY_VALUES) {
          expectNoServerError(await sendJson(call(svc, app, endpoint), JSON.stringify({ [field]: value })), `${field}: ${name}`);
        }
        // The same field twice, differing in case, next to otherwise plausible values.
        const body = `{"userId":"u1","username":"u1","adminEmail":"a@b","${field.toUpperCase()}":{"x":[1]},"${field}":"x"}`;
        expectNoServerError(await sendJson(call(svc, app, endpoint), body), `${field}: duplicate in another case`);
      }
    });
  });

  describe('validation of request bodies', () => {
    it('a sign-in whose client extension results are 10,000 levels deep still completes, without a stack overflow', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { credential } = await registerPasskey(svc, app, { userId: 'u1' });
      const begin = await publicApi(svc, app).post('/signin/begin', { Origin: ORIGIN, RPID });
      const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      const body = JSON.stringify({ session: begin.body.session, Origin: ORIGIN, RPID, response: { ...response, clientExtensionResults: '@deep@' } });
      const res = await sendJson(svc.http.post('/signin/complete').set('ApiKey', app.apiKey), body.replace('"@deep@"', nestedObjectText(10_000, '"leaf"')));
      expect(res.status).toBe(200);
      expect((await verifyToken(svc, app, res.body.token)).body).toMatchObject({ success: true, userId: 'u1' });
    });

    it('a NUL at the bottom of deeply nested extension results is a 400 validation problem, not a server error', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1' });
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, Origin: ORIGIN, RPID });
      const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
      const body = JSON.stringify({ session: begin.body.session, Origin: ORIGIN, RPID, response: { ...response, extensions: '@deep@' } });
      const res = await sendJson(svc.http.post('/register/complete').set('ApiKey', app.apiKey), body.replace('"@deep@"', nestedObjectText(10_000, '"a\\u0000b"')));
      expectValidationProblem(res, 'response.extensions');
    });

    it.each([
      ['/alias userId', '/alias', { userId: 'a\ud800', aliases: ['x'] }, 'userId'],
      ['/alias aliases', '/alias', { userId: 'u1', aliases: ['x\udfff'], hashing: false }, 'aliases'],
      ['/register/token userId', '/register/token', { userId: '\udc00u', username: 'u' }, 'userId'],
      ['/users/delete userId', '/users/delete', { userId: 'a\ud800' }, 'userId'],
    ])('an unpaired surrogate in %s is a 400, so two different ids never become the same stored id', async (_label, path, body, field) => {
      const svc = service();
      const app = await svc.createApp();
      expectValidationProblem(await sendJson(privateApi(svc, app).post(path), JSON.stringify(body)), field);
      expect(await aliasesOf(svc, app, 'a\ufffd')).toEqual([]);
    });

    it('two userIds that differ only in their unpaired surrogates no longer merge into one user', async () => {
      const svc = service();
      const app = await svc.createApp();
      const set = (userId: string, alias: string) => sendJson(privateApi(svc, app).post('/alias'), JSON.stringify({ userId, aliases: [alias], hashing: false }));
      expectValidationProblem(await set('a\ud800', 'first'), 'userId');
      expectValidationProblem(await set('a\udc00', 'second'), 'userId');
      expect((await privateApi(svc, app).get('/users/list')).body).toEqual([]);
    });
  });
});
