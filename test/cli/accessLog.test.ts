/**
 * The access log of a real service process (`node dist/cli.js serve`): one compact line per
 * request, and not one secret in the whole output after a registration, a sign-in, a verify and
 * requests with wrong keys.
 */
import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { flipCharAt } from '../support/privateApi';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, type TestApp } from '../support/testService';

const PROCESS_TIMEOUT_MS = 90_000;

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

const linesOf = (svc: ServiceProcess): LogLine[] =>
  svc
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);

/** The access line of the request sent with `X-Request-Id: id`, once it is written. */
const accessLine = (svc: ServiceProcess, id: string) => eventually(`the access line of ${id}`, () => linesOf(svc).find((l) => l.requestId === id));

describe('access log of a service process', () => {
  let svc: ServiceProcess;
  let app: TestApp;
  beforeAll(async () => {
    svc = await startServiceProcess({ LOG_LEVEL: 'info' });
    app = await svc.createApp();
  }, PROCESS_TIMEOUT_MS);
  afterAll(() => svc?.stop());

  it(
    'writes one line per request with method, path, status, ms, request id and app id, and never a key, token, alias or session',
    async () => {
      const alias = 'very-private-alias@example.com';
      const { credential, registerToken, begin: registerBegin } = await registerPasskey(svc, app, { aliases: [alias] });
      const { begin, complete } = await signIn(svc, app, credential, { alias });
      const verifyToken_ = complete.body.token as string;
      const verified = await svc.http.post('/signin/verify').set('ApiSecret', app.apiSecret).set('X-Request-Id', 'log-test-verify').send({ token: verifyToken_ });
      expect(verified.status).toBe(200);
      // Again, for a verify token that is spent: a failing request with the token in the body.
      expect((await verifyToken(svc, app, verifyToken_)).status).toBeGreaterThanOrEqual(400);

      const wrongSecret = flipCharAt(app.apiSecret, app.apiSecret.length - 1);
      const refused = await svc.http
        .post('/register/token')
        .set('ApiSecret', wrongSecret)
        .set('Authorization', 'Bearer bearer-value-never-logged')
        .set('Cookie', 'session=cookie-value-never-logged')
        .set('X-Request-Id', 'log-test-refused')
        .send({ userId: 'u', username: 'u@example.com' });
      expect(refused.status).toBe(401);
      const wrongManagementKey = `${MANAGEMENT_KEY}-but-wrong`;
      expect((await svc.http.get(`/admin/apps/${app.appId}/features`).set('ManagementKey', wrongManagementKey)).status).toBe(401);
      const abortLink = await svc.http.get(`/apps/delete/cancel/${app.appId}?token=query-token-never-logged`).set('X-Request-Id', 'log-test-query');
      expect(abortLink.status).toBe(400);

      const ok = await accessLine(svc, 'log-test-verify');
      expect(ok).toEqual({ level: 30, time: expect.any(Number), msg: 'request', method: 'POST', path: '/signin/verify', status: 200, ms: expect.any(Number), requestId: 'log-test-verify', appId: app.appId });
      // A refused key names no app.
      expect(await accessLine(svc, 'log-test-refused')).toEqual({ level: 30, time: expect.any(Number), msg: 'request', method: 'POST', path: '/register/token', status: 401, ms: expect.any(Number), requestId: 'log-test-refused' });
      // The path is logged without its query string.
      expect((await accessLine(svc, 'log-test-query')).path).toBe(`/apps/delete/cancel/${app.appId}`);

      const output = svc.output();
      const secrets = {
        apiSecret: app.apiSecret,
        apiSecret2: app.apiSecret2,
        apiKey: app.apiKey,
        wrongSecret,
        managementKey: MANAGEMENT_KEY,
        wrongManagementKey,
        registerToken,
        registerSession: registerBegin.body.session,
        signinSession: begin.body.session,
        verifyToken: verifyToken_,
        alias,
        bearer: 'bearer-value-never-logged',
        cookie: 'cookie-value-never-logged',
        queryToken: 'query-token-never-logged',
      };
      const leaked = Object.entries(secrets).filter(([, value]) => output.includes(value) || output.includes(String(value).split(':').pop()!));
      expect(leaked.map(([name]) => name)).toEqual([]);
      // The check above looked at something: the whole exchange is in the log.
      expect(linesOf(svc).filter((l) => l.msg === 'request').length).toBeGreaterThanOrEqual(10);
      expect(output).not.toMatch(/"headers"|"req"|"res"/);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'does not log health probes at info',
    async () => {
      expect((await svc.http.get('/health/http').set('X-Request-Id', 'log-test-health')).status).toBe(200);
      // A later request's line is out, so the health probe's line would be too.
      expect((await svc.http.get('/no-such-route').set('X-Request-Id', 'log-test-after-health')).status).toBe(404);
      await accessLine(svc, 'log-test-after-health');
      expect(linesOf(svc).filter((l) => String(l.path ?? '').includes('/health/'))).toEqual([]);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'logs a console request by its route, never the user id (often an email address) in its path',
    async () => {
      const res = await svc.http.get(`/console/apps/${app.appId}/users/alice%40example.com`).set('X-Request-Id', 'log-test-console');
      expect(res.status).toBe(303);
      expect(await accessLine(svc, 'log-test-console')).toMatchObject({ method: 'GET', path: '/console/*', status: 303 });
      expect(svc.output()).not.toMatch(/alice(@|%40|%2540)example\.com/);
    },
    PROCESS_TIMEOUT_MS,
  );
});
