import { connect } from 'node:net';
import type { Response } from 'supertest';
import { loadConfig } from '../../src/server/core/config';
import { startService, type RunningService } from '../../src/server/server';
import type { TokenEnvelope, TokenKind } from '../../src/server/services/tokens/tokenService';
import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { aliasesOf, credentialsOf, privateApi, publicApi } from '../support/privateApi';
import { createCredential, getAssertion } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, type TestApp, type TestDatabase, type TestService } from '../support/testService';

/**
 * Adversarial inputs: whatever is sent, the answer is never a 5xx, every error is an
 * application/problem+json with an errorCode, and one app's keys and tokens never reach another
 * app's data. (useTestService also checks the first two after every test.)
 */

type Json = unknown;

/** JSON text nested `depth` levels deep: `{"a":{"a":...leaf...}}`. Built as text: too deep to stringify. */
const nestedObjectText = (depth: number, leafJson: string) => '{"a":'.repeat(depth) + leafJson + '}'.repeat(depth);

/** Sends raw JSON text, so that nesting too deep for JSON.stringify can be sent. */
const sendJson = (request: ReturnType<TestService['http']['post']>, text: string) => request.set('Content-Type', 'application/json').send(text);

/** The payload of a token, decoded (tokens are signed, not encrypted). */
const payloadOf = (token: string): Record<string, Json> => JSON.parse(Buffer.from(token.slice(token.indexOf('_') + 1).split('.')[0], 'base64url').toString('utf8'));

/**
 * A token correctly signed with the app's own key whose payload is exactly `json`: the envelope
 * fields only pick the signing key, and `toJSON` decides what is serialised and signed.
 */
function mint(svc: TestService, app: TestApp, kind: TokenKind, json: Json): Promise<string> {
  return svc.services.tokens.issue(kind, { app: app.appId, exp: Date.now() + 60_000, toJSON: () => json } as TokenEnvelope);
}

/** `payload` with `field` set to `value`, or removed when `value` is undefined. */
function withField(payload: Record<string, Json>, field: string, value: Json): Record<string, Json> {
  const copy = { ...payload };
  if (value === undefined) delete copy[field];
  else copy[field] = value;
  return copy;
}

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

const requestOf = (svc: TestService, method: Method, path: string) =>
  method === 'GET' ? svc.http.get(path) : method === 'POST' ? svc.http.post(path) : method === 'PUT' ? svc.http.put(path) : svc.http.delete(path);

const expectNoServerError = (res: Response, label: string) => {
  const { status } = res;
  const contentType = res.headers['content-type'];
  // Every 4xx is a problem; anything below 400 is a real answer.
  expect({ label, serverError: status >= 500, problem: status < 400 || contentType === 'application/problem+json' }).toEqual({ label, serverError: false, problem: true });
};

/** Request line plus headers, written straight to a socket; returns status, headers and body. */
function rawExchange(url: string, request: string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => socket.end(request));
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, ...rest] = text.split('\r\n\r\n');
      const [statusLine, ...headerLines] = head.split('\r\n');
      const headers = Object.fromEntries(headerLines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: rest.join('\r\n\r\n') });
    });
  });
}

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

/** Path segments that no route expects: NUL, broken percent-encoding, very long, traversal, emoji. */
const NASTY_SEGMENTS = ['%00', 'a%00b', '%E0%A4%A', '%ED%A0%80', 'x'.repeat(8000), '..%2F..%2Fetc', '%F0%9F%99%82', 'ABC', 'a'.repeat(63)];

describe.each(providers())('robustness on %s', (provider) => {
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

    it.each<[Method, string]>([
      ['GET', '/admin/apps/:seg/available'],
      ['POST', '/admin/apps/:seg/create'],
      ['DELETE', '/admin/apps/:seg'],
      ['GET', '/admin/apps/:seg/features'],
      ['POST', '/admin/apps/:seg/features'],
      ['POST', '/admin/apps/:seg/freeze'],
      ['POST', '/admin/apps/:seg/unfreeze'],
      ['GET', '/admin/apps/:seg/api-keys'],
      ['POST', '/admin/apps/:seg/public-keys'],
      ['POST', '/admin/apps/:seg/secret-keys'],
      ['POST', '/admin/apps/:app/api-keys/:seg/lock'],
      ['POST', '/admin/apps/:app/api-keys/:seg/unlock'],
      ['DELETE', '/admin/apps/:app/api-keys/:seg'],
      ['POST', '/admin/apps/:seg/api-keys/:seg/lock'],
      ['PUT', '/admin/apps/:seg/features'],
      ['GET', '/:seg'],
      ['POST', '/api/:seg/begin'],
    ])('%s %s with odd path segments never answers a 5xx', async (method, template) => {
      const svc = service();
      const app = await svc.createApp();
      for (const segment of NASTY_SEGMENTS) {
        const path = template.replace(':app', app.appId).replaceAll(':seg', segment);
        const request = requestOf(svc, method, path).set('ManagementKey', MANAGEMENT_KEY);
        expectNoServerError(await (method === 'POST' ? request.send({ adminEmail: 'a@b.c', scopes: ['register'] }) : request), `${method} ${path.slice(0, 80)}`);
      }
    });

    it.each(['/alias/list', '/credentials/list', '/users/list', '/users/count'])('GET %s with odd query strings never answers a 5xx', async (path) => {
      const svc = service();
      const app = await svc.createApp();
      const queries = ['userId=a&userId=b', 'userId[]=x', 'userId[a]=x', 'UserId=u1&userid=u2', 'userId=', 'userId', 'userId=%', 'userId=%00', 'userId=%ED%A0%80', `userId=${'a'.repeat(7000)}`];
      for (const query of queries) expectNoServerError(await privateApi(svc, app).get(`${path}?${query}`), query.slice(0, 40));
    });

    it('odd key headers are 401 problems', async () => {
      const svc = service();
      const app = await svc.createApp();
      const frozen = await svc.createApp();
      const deleted = await svc.createApp();
      await svc.http.post(`/admin/apps/${frozen.appId}/freeze`).set('ManagementKey', MANAGEMENT_KEY);
      await svc.http.delete(`/admin/apps/${deleted.appId}`).set('ManagementKey', MANAGEMENT_KEY);
      const values = [
        'x'.repeat(10_000),
        `${app.appId}:secret:${'0'.repeat(32)}`,
        `${app.appId}:public:${'0'.repeat(32)}`,
        'verify_x',
        '\u00e9\u00ff',
        app.apiSecret.toUpperCase(),
        `${'a'.repeat(62)}:secret:${'f'.repeat(32)}`,
        frozen.apiSecret,
        frozen.apiKey,
        deleted.apiSecret,
        deleted.apiKey,
      ];
      for (const value of values) {
        const header = value.includes(':public:') ? 'ApiKey' : 'ApiSecret';
        const res = header === 'ApiKey' ? await svc.http.post('/signin/begin').set('ApiKey', value).send({ origin: ORIGIN }) : await svc.http.get('/users/list').set('ApiSecret', value);
        expectProblem(res, 401, header);
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

  describe('management API', () => {
    it.each([
      ['maxUsers', 2 ** 31],
      ['maxUsers', Number.MAX_SAFE_INTEGER],
      ['magicLinkEmailMonthlyQuota', 2 ** 31],
    ])('a %s of %d, beyond 32 bits, is a 400 validation problem at creation and in features, not a server error', async (field, value) => {
      const svc = service();
      const appId = uniqueAppId();
      const admin = (path: string, body: object) => svc.http.post(path).set('ManagementKey', MANAGEMENT_KEY).send(body);
      expectValidationProblem(await admin(`/admin/apps/${appId}/create`, { adminEmail: 'a@b.c', [field]: value }), field);
      const app = await svc.createApp();
      expectValidationProblem(await admin(`/admin/apps/${app.appId}/features`, { [field]: value }), field);
      expect((await admin(`/admin/apps/${app.appId}/features`, { [field]: 2 ** 31 - 1 })).status).toBe(204);
    });

    it.each<[Method, string]>([
      ['GET', '/features'],
      ['POST', '/features'],
      ['POST', '/freeze'],
      ['POST', '/unfreeze'],
      ['GET', '/api-keys'],
      ['POST', '/public-keys'],
      ['POST', '/secret-keys'],
      ['DELETE', ''],
    ])('%s /admin/apps/<id with a NUL>%s is a 404 app_not_found, not a server error', async (method, suffix) => {
      const svc = service();
      for (const id of ['%00', 'app%00x']) {
        const path = `/admin/apps/${id}${suffix}`;
        const request = requestOf(svc, method, path).set('ManagementKey', MANAGEMENT_KEY);
        expectProblem(await (method === 'POST' ? request.send({ scopes: ['register'] }) : request), 404, 'app_not_found');
      }
    });

    it.each<[Method, string]>([
      ['POST', '/lock'],
      ['POST', '/unlock'],
      ['DELETE', ''],
    ])('%s /admin/apps/{id}/api-keys/<key id with a NUL>%s is a 404 api_key_not_found, not a server error', async (method, suffix) => {
      const svc = service();
      const app = await svc.createApp();
      for (const keyId of ['%00', 'ab%00c', '%00%00%00%00']) {
        const path = `/admin/apps/${app.appId}/api-keys/${keyId}${suffix}`;
        expectProblem(await requestOf(svc, method, path).set('ManagementKey', MANAGEMENT_KEY), 404, 'api_key_not_found');
      }
    });

    it('deleting one app ten times at once answers 200 once and 404 app_not_found for the rest', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(Array.from({ length: 10 }, () => svc.http.delete(`/admin/apps/${app.appId}`).set('ManagementKey', MANAGEMENT_KEY)));
      expect(answers.map((r) => r.status).sort()).toEqual([200, ...Array(9).fill(404)]);
      for (const res of answers.filter((r) => r.status !== 200)) expectProblem(res, 404, 'app_not_found');
    });

    it('twenty concurrent key creations for one app all succeed with distinct keys', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(
        Array.from({ length: 20 }, () => svc.http.post(`/admin/apps/${app.appId}/public-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes: ['register'] })),
      );
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(200));
      expect(new Set(answers.map((r) => r.body.apiKey)).size).toBe(20);
    });
  });

  describe('tokens with a valid MAC but a malformed payload', () => {
    it.each([
      ['JSON null', null],
      ['a number', 42],
      ['an array', []],
      ['an object without app', { exp: Date.now() + 60_000 }],
      ['an object without exp', { app: '@app' }],
      ['an exp that is a string', { app: '@app', exp: 'tomorrow' }],
      ['an exp beyond any date', { app: '@app', exp: 1e308 }],
    ])('a verify, register or session token whose payload is %s is a 400 invalid_token', async (_label, json) => {
      const svc = service();
      const app = await svc.createApp();
      const payload = json !== null && typeof json === 'object' && 'app' in json ? { ...json, app: app.appId } : json;
      expectProblem(await verifyToken(svc, app, await mint(svc, app, 'verify', payload)), 400, 'invalid_token');
      expectProblem(await publicApi(svc, app).post('/register/begin', { token: await mint(svc, app, 'register', payload), Origin: ORIGIN }), 400, 'invalid_token');
      const session = await mint(svc, app, 'session', payload);
      const fake = { id: 'AAAA', rawId: 'AAAA', type: 'public-key', response: { authenticatorData: 'AAAA', clientDataJSON: 'AAAA', signature: 'AAAA' } };
      expectProblem(await publicApi(svc, app).post('/signin/complete', { session, Origin: ORIGIN, response: fake }), 400, 'invalid_token');
    });

    /** A real sign-in session, re-signed with one field changed, answered by a real assertion. */
    async function completeSigninWith(svc: TestService, app: TestApp, field: string, value: Json) {
      const { credential } = await registerPasskey(svc, app, { userId: 'u1' });
      const begin = await publicApi(svc, app).post('/signin/begin', { userId: 'u1', Origin: ORIGIN, RPID });
      const session = await mint(svc, app, 'session', withField(payloadOf(begin.body.session), field, value));
      const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      return publicApi(svc, app).post('/signin/complete', { session, Origin: ORIGIN, RPID, response });
    }

    it.each([
      ['whose allow list is not an array', 'allow', 'x'],
      ['whose allow list is null', 'allow', null],
      ['without an allow list', 'allow', undefined],
      ['whose challenge is a number', 'challenge', 42],
      ['without a challenge', 'challenge', undefined],
      ['whose challenge holds a NUL', 'challenge', 'a\u0000b'],
      ['without its ceremony field', 'ceremony', undefined],
      ['whose ceremony is unknown', 'ceremony', 'teleport'],
      ['whose ttlSeconds is not a number', 'ttlSeconds', 'soon'],
      ['whose ttlSeconds is 1e308', 'ttlSeconds', 1e308],
      ['whose rpId is an object', 'rpId', { a: 1 }],
      ['whose userVerification is unknown', 'userVerification', 'maybe'],
    ])('a sign-in session %s is a 400 invalid_session, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await completeSigninWith(svc, app, field, value), 400, 'invalid_session');
    });

    /** A real registration session, re-signed with one field changed, answered by a real credential. */
    async function completeRegistrationWith(svc: TestService, app: TestApp, field: string, value: Json) {
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1', aliases: ['u1@example.com'] });
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, Origin: ORIGIN, RPID });
      const session = await mint(svc, app, 'session', withField(payloadOf(begin.body.session), field, value));
      const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
      return publicApi(svc, app).post('/register/complete', { session, Origin: ORIGIN, RPID, response });
    }

    it.each([
      ['whose aliases are not an array', 'aliases', 'u1@example.com'],
      ['without aliases', 'aliases', undefined],
      ['whose aliases hold a NUL', 'aliases', ['a\u0000b']],
      ['whose userId is a number', 'userId', 42],
      ['without a userId', 'userId', undefined],
      ['whose userId holds a NUL', 'userId', 'u\u00001'],
      ['whose challenge is an array', 'challenge', ['x']],
      ['without an rpId', 'rpId', undefined],
      ['whose aliasHashing is a string', 'aliasHashing', 'yes'],
    ])('a registration session %s is a 400 invalid_session, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      expectProblem(await completeRegistrationWith(svc, app, field, value), 400, 'invalid_session');
      expect(await credentialsOf(svc, app, 'u1')).toEqual([]);
    });

    it('a malformed session is refused before its challenge is spent: the genuine session still completes', async () => {
      const svc = service();
      const app = await svc.createApp();
      const { credential } = await registerPasskey(svc, app, { userId: 'u1' });
      const begin = await publicApi(svc, app).post('/signin/begin', { Origin: ORIGIN, RPID });
      const broken = await mint(svc, app, 'session', withField(payloadOf(begin.body.session), 'allow', 7));
      const response = getAssertion(credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      expectProblem(await publicApi(svc, app).post('/signin/complete', { session: broken, Origin: ORIGIN, RPID, response }), 400, 'invalid_session');
      expect((await publicApi(svc, app).post('/signin/complete', { session: begin.body.session, Origin: ORIGIN, RPID, response })).status).toBe(200);
    });

    it.each([
      ['whose userId is a number', 'userId', 42],
      ['whose userId is an object', 'userId', { id: 'u1' }],
      ['whose userId holds a NUL', 'userId', 'u\u00001'],
      ['without aliases', 'aliases', undefined],
      ['whose aliases are a string', 'aliases', 'a@example.com'],
      ['whose displayName is an object', 'displayName', { name: 'x' }],
      ['whose hints are not an array', 'hints', 'hybrid'],
      ['whose attestation is unknown', 'attestation', 'full'],
    ])('a register token %s is a 400 invalid_token, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1' });
      const token = await mint(svc, app, 'register', withField(payloadOf(tokenRes.body.token), field, value));
      expectProblem(await publicApi(svc, app).post('/register/begin', { token, Origin: ORIGIN, RPID }), 400, 'invalid_token');
    });

    it('a register token with an empty userId is still a 400 missing_userid', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1' });
      const token = await mint(svc, app, 'register', withField(payloadOf(tokenRes.body.token), 'userId', ''));
      expectProblem(await publicApi(svc, app).post('/register/begin', { token, Origin: ORIGIN, RPID }), 400, 'missing_userid');
    });

    it.each([
      ['without a tokenId', 'tokenId', undefined],
      ['whose tokenId is a number', 'tokenId', 42],
      ['whose tokenId is not a UUID', 'tokenId', 'x'.repeat(3000)],
      ['whose iat is a string', 'iat', 'now'],
      ['whose iat is beyond any date', 'iat', 1e308],
      ['whose type is unknown', 'type', 'teleport'],
      ['whose credentialId is a number', 'credentialId', 42],
      ['without a userId', 'userId', undefined],
    ])('a verify token %s is a 400 invalid_token, not a server error', async (_label, field, value) => {
      const svc = service();
      const app = await svc.createApp();
      const generated = await privateApi(svc, app).post('/signin/generate-token', { userId: 'u1' });
      const token = await mint(svc, app, 'verify', withField(payloadOf(generated.body.token), field, value));
      expectProblem(await verifyToken(svc, app, token), 400, 'invalid_token');
      // The genuine token is untouched by the attempt.
      expect((await verifyToken(svc, app, generated.body.token)).status).toBe(200);
    });
  });

  describe('tenant isolation', () => {
    it("app B's secret sees and changes nothing of app A's users, aliases or credentials", async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const reg = await registerPasskey(svc, a, { userId: 'victim', aliases: ['victim@example.com'], aliasHashing: false });
      expect(reg.complete.status).toBe(200);
      const asB = privateApi(svc, b);
      const before = (await privateApi(svc, a).get('/users/list')).body;

      expect((await asB.get('/alias/list?userId=victim')).body).toEqual([]);
      expect((await asB.get('/credentials/list?userId=victim')).body).toEqual([]);
      expect((await asB.post('/credentials/list', { userId: 'victim' })).body).toEqual([]);
      expect((await asB.get('/users/list')).body).toEqual([]);
      expect((await asB.get('/users/count')).body).toEqual({ count: 0 });
      expectProblem(await asB.post('/signin/verify', { token: reg.complete.body.token }), 400, 'invalid_token');
      expect((await asB.post('/credentials/delete', { credentialId: reg.credential.idB64 })).status).toBe(204);
      expect((await asB.post('/users/delete', { userId: 'victim' })).status).toBe(204);
      expect((await asB.post('/alias', { userId: 'victim', aliases: [] })).status).toBe(204);
      expect((await asB.post('/alias', { userId: 'other', aliases: ['victim@example.com'] })).status).toBe(204);
      expect((await publicApi(svc, b).post('/signin/begin', { alias: 'victim@example.com', Origin: ORIGIN, RPID })).body.data.allowCredentials).toEqual([]);

      expect((await privateApi(svc, a).get('/users/list')).body).toEqual(before);
      expect(await credentialsOf(svc, a, 'victim')).toHaveLength(1);
      expect((await verifyToken(svc, a, reg.complete.body.token)).body).toMatchObject({ success: true, userId: 'victim' });
      expect((await signIn(svc, a, reg.credential, { alias: 'victim@example.com' })).complete.status).toBe(200);
    });

    it("app A's public key cannot use app B's register token or session, nor sign in with B's passkey", async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const tokenOfB = (await privateApi(svc, b).post('/register/token', { userId: 'u1', username: 'u1' })).body.token;
      expectProblem(await publicApi(svc, a).post('/register/begin', { token: tokenOfB, Origin: ORIGIN, RPID }), 400, 'invalid_token');
      const regB = await registerPasskey(svc, b, { userId: 'u1' });
      const begin = await publicApi(svc, b).post('/signin/begin', { Origin: ORIGIN, RPID });
      const response = getAssertion(regB.credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
      expectProblem(await publicApi(svc, a).post('/signin/complete', { session: begin.body.session, Origin: ORIGIN, RPID, response }), 400, 'invalid_token');
      expectProblem((await signIn(svc, a, regB.credential)).complete, 400, 'unknown_credential');
    });

    it('the same credential id registered in two apps belongs to each separately', async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const inA = await registerPasskey(svc, a, { userId: 'alice' });
      const inB = await registerPasskey(svc, b, { userId: 'bob', authenticator: { credentialId: inA.credential.id } });
      expect([inA.complete.status, inB.complete.status]).toEqual([200, 200]);
      expect((await privateApi(svc, b).post('/credentials/delete', { credentialId: inA.credential.idB64 })).status).toBe(204);
      expect(await credentialsOf(svc, b, 'bob')).toEqual([]);
      expect(await credentialsOf(svc, a, 'alice')).toHaveLength(1);
      expect((await signIn(svc, a, inA.credential)).complete.status).toBe(200);
    });

    it("deleting app B leaves app A's keys, users and tokens intact", async () => {
      const svc = service();
      const a = await svc.createApp();
      const b = await svc.createApp();
      const regA = await registerPasskey(svc, a, { userId: 'u1', aliases: ['a@example.com'] });
      await registerPasskey(svc, b, { userId: 'u1', aliases: ['a@example.com'] });
      expect((await svc.http.delete(`/admin/apps/${b.appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
      expect(await credentialsOf(svc, a, 'u1')).toHaveLength(1);
      expect(await aliasesOf(svc, a, 'u1')).toHaveLength(1);
      expect((await verifyToken(svc, a, regA.complete.body.token)).status).toBe(200);
      expect((await signIn(svc, a, regA.credential, { alias: 'a@example.com' })).complete.status).toBe(200);
    });

    it("tokens of a deleted app are refused by a new app created with the same id", async () => {
      const svc = service();
      const old = await svc.createApp();
      const registerToken = (await privateApi(svc, old).post('/register/token', { userId: 'u1', username: 'u1' })).body.token;
      const generated = (await privateApi(svc, old).post('/signin/generate-token', { userId: 'u1' })).body.token;
      const passkey = (await registerPasskey(svc, old, { userId: 'u1' })).complete.body.token;
      expect((await svc.http.delete(`/admin/apps/${old.appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);

      const reborn = await svc.createApp({ appId: old.appId });
      expectProblem(await publicApi(svc, reborn).post('/register/begin', { token: registerToken, Origin: ORIGIN, RPID }), 400, 'invalid_token');
      expectProblem(await verifyToken(svc, reborn, generated), 400, 'invalid_token');
      expectProblem(await verifyToken(svc, reborn, passkey), 400, 'invalid_token');
      expect(await credentialsOf(svc, reborn, 'u1')).toEqual([]);
    });
  });

  describe('concurrency', () => {
    it('twenty identical register/complete calls register the passkey once; the rest are challenge_already_used', async () => {
      const svc = service();
      const app = await svc.createApp();
      const tokenRes = await privateApi(svc, app).post('/register/token', { userId: 'u1', username: 'u1', aliases: ['a1', 'a2'] });
      const begin = await publicApi(svc, app).post('/register/begin', { token: tokenRes.body.token, Origin: ORIGIN, RPID });
      const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
      const answers = await Promise.all(Array.from({ length: 20 }, () => publicApi(svc, app).post('/register/complete', { session: begin.body.session, Origin: ORIGIN, RPID, response })));
      expect(answers.filter((r) => r.status === 200)).toHaveLength(1);
      for (const res of answers.filter((r) => r.status !== 200)) expectProblem(res, 400, 'challenge_already_used');
      expect(await credentialsOf(svc, app, 'u1')).toHaveLength(1);
    });

    it('five concurrent alias replacements for one user all succeed; none is mistaken for another user’s alias', async () => {
      const svc = service();
      const app = await svc.createApp();
      const sets = [['x1', 'x2', 'x3'], ['x3', 'x2', 'x1'], ['x2', 'x1', 'x3'], ['x1', 'x3', 'x2'], ['x3', 'x1', 'x2']];
      const answers = await Promise.all(sets.map((aliases) => privateApi(svc, app).post('/alias', { userId: 'u1', aliases, hashing: false })));
      expect(answers.map((r) => r.status)).toEqual(Array(5).fill(204));
      expect(((await aliasesOf(svc, app, 'u1')) as { plaintext: string }[]).map((a) => a.plaintext).sort()).toEqual(['x1', 'x2', 'x3']);
    });

    it('five concurrent registrations of one user with the same aliases all succeed', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(Array.from({ length: 5 }, () => registerPasskey(svc, app, { userId: 'u1', aliases: ['a1', 'a2', 'a3'] })));
      expect(answers.map((r) => r.complete.status)).toEqual(Array(5).fill(200));
      expect(await credentialsOf(svc, app, 'u1')).toHaveLength(5);
    });

    it('concurrent replacements by different users of the same aliases leave exactly one owner', async () => {
      const svc = service();
      const app = await svc.createApp();
      const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => privateApi(svc, app).post('/alias', { userId: `u${i}`, aliases: i % 2 ? ['s1', 's2'] : ['s2', 's1'] })));
      expect(answers.filter((r) => r.status === 204)).toHaveLength(1);
      for (const res of answers.filter((r) => r.status !== 204)) expectProblem(res, 409, 'alias_conflict');
    });

    it('twenty concurrent users/delete calls all answer 204', async () => {
      const svc = service();
      const app = await svc.createApp();
      await registerPasskey(svc, app, { userId: 'u1', aliases: ['gone@example.com'] });
      const answers = await Promise.all(Array.from({ length: 20 }, () => privateApi(svc, app).post('/users/delete', { userId: 'u1' })));
      expect(answers.map((r) => r.status)).toEqual(Array(20).fill(204));
      expect((await privateApi(svc, app).get('/users/count')).body).toEqual({ count: 0 });
    });
  });

  describe('requests Node refuses before any route runs', () => {
    let database: TestDatabase;
    let running: RunningService;
    beforeAll(async () => {
      database = await createTestDatabase(provider);
      running = await startService({ ...loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent' }), port: 0 });
    });
    afterAll(async () => {
      await running.close();
      await database.drop();
    });

    it.each([
      ['a 20,000-character path', 431, 'headers_too_large', `GET /${'a'.repeat(20_000)} HTTP/1.1\r\nHost: x\r\n\r\n`],
      ['a 20,000-character ApiKey', 431, 'headers_too_large', `POST /signin/begin HTTP/1.1\r\nHost: x\r\nApiKey: ${'a'.repeat(20_000)}\r\n\r\n`],
      ['a request line that is not HTTP', 400, 'bad_request', 'GARBAGE\r\n\r\n'],
      ['a Content-Length that is not a number', 400, 'bad_request', 'POST /alias HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n'],
    ])('%s is answered as a %d %s problem', async (_label, status, errorCode, request) => {
      const answer = await rawExchange(running.url, request);
      expect({ status: answer.status, contentType: answer.headers['content-type'] }).toEqual({ status, contentType: 'application/problem+json' });
      expect(JSON.parse(answer.body)).toMatchObject({ status, errorCode });
    });
  });
});
