import type { Response } from 'supertest';
import { ORIGIN, RPID, registerPasskey } from '../support/ceremonies';
import { expectProblem, useTestService } from '../support/problems';
import { privateApi, requestRegisterToken } from '../support/privateApi';
import { getAssertion } from '../support/softwareAuthenticator';
import { providers } from '../support/testService';

const PUBLIC_ENDPOINTS = ['/register/begin', '/register/complete', '/signin/begin', '/signin/complete'];
const BROWSER_ORIGIN = 'https://shop.example.net';

/** What the browser needs to hand a cross-origin answer to the client library. */
function expectReadableByBrowser(res: Response): void {
  expect(res.headers['access-control-allow-origin']).toBe('*');
  expect(res.headers['content-type']).toMatch(/^application\/(problem\+)?json/);
  expect(typeof res.body).toBe('object');
}

describe.each(providers())('CORS of the public endpoints on %s', (provider) => {
  const service = useTestService(provider);

  it.each(PUBLIC_ENDPOINTS.flatMap((path) => [path, `/api${path}`]))('answers the preflight of %s', async (path) => {
    const svc = service();
    const res = await svc.http
      .options(path)
      .set('Origin', BROWSER_ORIGIN)
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'apikey,content-type,client-version');
    expect(res.status).toBe(204);
    expect(res.headers['access-control-allow-origin']).toBe('*');
    expect(res.headers['access-control-allow-methods']).toMatch(/\bPOST\b/);
    const allowedHeaders = res.headers['access-control-allow-headers'].toLowerCase().split(/\s*,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(['apikey', 'content-type', 'client-version']));
    expect(Number(res.headers['access-control-max-age'])).toBeGreaterThan(0);
  });

  it('lets the browser read every successful answer of a registration and a sign-in', async () => {
    const svc = service();
    const app = await svc.createApp();
    const reg = await registerPasskey(svc, app);
    expect(reg.begin.status).toBe(200);
    expect(reg.complete.status).toBe(200);
    expectReadableByBrowser(reg.begin);
    expectReadableByBrowser(reg.complete);

    const begin = await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).set('Origin', BROWSER_ORIGIN).send({ Origin: ORIGIN, RPID });
    expect(begin.status).toBe(200);
    expectReadableByBrowser(begin);
    const response = getAssertion(reg.credential, { challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN });
    const complete = await svc.http
      .post('/signin/complete')
      .set('ApiKey', app.apiKey)
      .set('Origin', BROWSER_ORIGIN)
      .send({ session: begin.body.session, response, Origin: ORIGIN, RPID });
    expect(complete.status).toBe(200);
    expectReadableByBrowser(complete);
  });

  it.each(PUBLIC_ENDPOINTS)('lets the browser read a 401 for a bad ApiKey at %s', async (path) => {
    const svc = service();
    const res = await svc.http.post(path).set('ApiKey', 'nope:public:00000000000000000000000000000000').set('Origin', BROWSER_ORIGIN).send({});
    expectProblem(res, 401, 'ApiKey');
    expectReadableByBrowser(res);
  });

  it.each(['/register/begin', '/signin/begin'])('lets the browser read a 400 missing_origin at %s', async (path) => {
    const svc = service();
    const app = await svc.createApp();
    const token = (await requestRegisterToken(svc, app, { userId: 'u1', username: 'a' })).body.token;
    const res = await svc.http.post(path).set('ApiKey', app.apiKey).set('Origin', BROWSER_ORIGIN).send({ token, RPID });
    expectProblem(res, 400, 'missing_origin');
    expectReadableByBrowser(res);
  });

  it('lets the browser read a 400 for a body that is not JSON', async () => {
    const svc = service();
    const app = await svc.createApp();
    const res = await svc.http.post('/signin/begin').set('ApiKey', app.apiKey).set('Content-Type', 'application/json').send('{"Origin":');
    expectProblem(res, 400, 'invalid_json');
    expectReadableByBrowser(res);
  });

  it('serves a path with a doubled slash (an apiUrl with a trailing slash)', async () => {
    const svc = service();
    const app = await svc.createApp();
    for (const path of ['//signin/begin', '/api//signin/begin']) {
      const res = await svc.http.post(path).set('ApiKey', app.apiKey).send({ Origin: ORIGIN, RPID });
      expect(res.status).toBe(200);
      expect(res.body.data.rpId).toBe(RPID);
      expectReadableByBrowser(res);
    }
    const preflight = await svc.http.options('//signin/begin').set('Origin', BROWSER_ORIGIN).set('Access-Control-Request-Method', 'POST');
    expect(preflight.status).toBe(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('*');
  });

  it('gives the private endpoints no CORS headers', async () => {
    const svc = service();
    const app = await svc.createApp();
    const token = await requestRegisterToken(svc, app, { userId: 'u1', username: 'a' });
    expect(token.status).toBe(200);
    expect(token.headers).not.toHaveProperty('access-control-allow-origin');
    const verify = await privateApi(svc, app).post('/signin/verify', {});
    expect(verify.status).toBe(400);
    expect(verify.headers).not.toHaveProperty('access-control-allow-origin');
    const preflight = await svc.http.options('/signin/verify').set('Origin', BROWSER_ORIGIN).set('Access-Control-Request-Method', 'POST');
    expect(preflight.headers).not.toHaveProperty('access-control-allow-origin');
  });
});
