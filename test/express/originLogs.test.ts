/**
 * A ceremony or a login refused for its origin or RP ID: the log line (the service's, the host's)
 * names the expected and the received values and the likely cause; the answer does not. Against a
 * real service process, with the software authenticator playing the browser.
 */
import supertest from 'supertest';
import { ORIGIN, RPID, registerPasskey, signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem, hostApp } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, uniqueAppId, type TestApp } from '../support/testService';

jest.setTimeout(60_000);

let service: ServiceProcess;

beforeAll(async () => {
  service = await startServiceProcess();
});
afterAll(() => service?.stop());

async function appWith(allowedOrigins: string[]): Promise<TestApp> {
  const appId = uniqueAppId();
  const res = await service.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com', allowedOrigins });
  expect(res.status).toBe(200);
  return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
}

/** The service's JSON log lines about refused requests that mention `appOrRequestId`. */
function refusalLines(requestId: string): Record<string, unknown>[] {
  return service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{') && line.includes(requestId))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.msg === 'request refused');
}

const DIAGNOSIS = ['cause', 'hint', 'expectedOrigins', 'receivedOrigin', 'trust proxy', 'port_mismatch', 'scheme_mismatch'];

describe("the service's log of a refused origin", () => {
  it('names the allowed origins, the one received and a port mismatch at begin; the answer stays as it was', async () => {
    const app = await appWith(['https://app.example.com:8443']);
    const res = await service.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ origin: ORIGIN, rpid: RPID });
    expectProblem(res, 400, 'origin_not_allowed');
    expect(res.body.detail).toBe("The origin 'https://app.example.com' is not in this application's allowedOrigins.");
    for (const word of DIAGNOSIS) expect(JSON.stringify(res.body)).not.toContain(word);
    const [line] = await eventually('the refusal in the log', () => refusalLines(res.body.traceId)[0] && refusalLines(res.body.traceId));
    expect(line).toMatchObject({
      level: 40,
      path: '/signin/begin',
      refused: 'origin',
      expectedOrigins: ['https://app.example.com:8443'],
      receivedOrigin: 'https://app.example.com',
      rpId: RPID,
      cause: 'port_mismatch',
      hint: expect.stringContaining('port 8443'),
    });
    expect(JSON.stringify(line)).not.toContain(app.apiKey);
  });

  it('names an RP ID that is not a registrable suffix of the origin', async () => {
    const app = await appWith([]);
    const res = await service.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: 'u1', username: 'ada' });
    const begin = await service.http.post('/register/begin').set('ApiKey', app.apiKey).send({ token: res.body.token, origin: ORIGIN, rpid: 'example.org' });
    expectProblem(begin, 400, 'origin_not_allowed');
    for (const word of DIAGNOSIS) expect(JSON.stringify(begin.body)).not.toContain(word);
    const [line] = await eventually('the refusal in the log', () => refusalLines(begin.body.traceId)[0] && refusalLines(begin.body.traceId));
    expect(line).toMatchObject({ path: '/register/begin', receivedOrigin: ORIGIN, rpId: 'example.org', cause: 'rp_id_not_registrable_suffix', hint: expect.stringContaining("'app.example.com'") });
    expect(JSON.stringify(line)).not.toContain(res.body.token);
  });

  it('names the origin a sign-in began with, the one the browser signed and a scheme mismatch at complete', async () => {
    const app = await appWith([]);
    const { credential, userId } = await registerPasskey(service, app);
    const { complete } = await signIn(service, app, credential, { userId, assertion: { origin: 'http://app.example.com' } });
    expectProblem(complete, 400, 'signin_complete_error');
    expect(complete.body.detail).toBe('The response was made for a different origin.');
    for (const word of DIAGNOSIS) expect(JSON.stringify(complete.body)).not.toContain(word);
    const [line] = await eventually('the refusal in the log', () => refusalLines(complete.body.traceId)[0] && refusalLines(complete.body.traceId));
    expect(line).toMatchObject({ path: '/signin/complete', refused: 'origin', expectedOrigins: [ORIGIN], receivedOrigin: 'http://app.example.com', cause: 'scheme_mismatch' });
  });
});

describe("the host's log of a login refused for its origin", () => {
  it('blames a missing trust proxy when Express sees http, X-Forwarded-Proto says https, and the token was made on https', async () => {
    const app = await appWith([]);
    // The host's origin as Express sees it behind a TLS proxy without `trust proxy`.
    const h = hostApp(service, app, { origins: 'http://app.example.com' });
    const { credential, userId } = await registerPasskey(service, app);
    const { complete } = await signIn(service, app, credential, { userId });
    const login = await supertest(h.host).post('/passwordless-login').set('X-Forwarded-Proto', 'https').send({ token: complete.body.token });
    expectProblem(login, 401, 'token_not_accepted');
    for (const word of DIAGNOSIS) expect(JSON.stringify(login.body)).not.toContain(word);
    const refusal = h.logged.find((l) => l.message === 'passwordless: a sign-in token was not accepted');
    expect(refusal?.details).toMatchObject({
      reason: 'origin',
      origin: ORIGIN,
      expectedOrigins: ['http://app.example.com'],
      cause: 'trust_proxy_missing',
      hint: expect.stringContaining("app.set('trust proxy'"),
    });
    expect(JSON.stringify(refusal)).not.toContain(complete.body.token);
  });

  it('calls a token from another port a port mismatch', async () => {
    const app = await appWith([]);
    const h = hostApp(service, app, { origins: 'https://app.example.com:8443' });
    const { credential, userId } = await registerPasskey(service, app);
    const { complete } = await signIn(service, app, credential, { userId });
    expectProblem(await supertest(h.host).post('/passwordless-login').send({ token: complete.body.token }), 401, 'token_not_accepted');
    expect(h.logged.find((l) => l.message === 'passwordless: a sign-in token was not accepted')?.details).toMatchObject({ origin: ORIGIN, cause: 'port_mismatch' });
  });
});
