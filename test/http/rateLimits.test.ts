import type { Response } from 'supertest';
import { expectProblem } from '../support/http';
import { MANAGEMENT_KEY, startTestService, type TestApp, type TestService } from '../support/testService';

/** A 429 problem with the headers a client needs to back off. */
function expectRateLimited(res: Response): void {
  expectProblem(res, 429, 'rate_limited');
  expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
  expect(res.headers['ratelimit']).toMatch(/limit=\d+, remaining=0, reset=\d+/);
  expect(res.headers['ratelimit-policy']).toMatch(/^\d+;w=\d+$/);
}

const signinBegin = (svc: TestService, app: TestApp, forwardedFor?: string) => {
  const request = svc.http.post('/signin/begin').set('ApiKey', app.apiKey).set('Origin', 'https://app.example.com');
  if (forwardedFor) request.set('X-Forwarded-For', forwardedFor);
  return request.send({ RPID: 'app.example.com', Origin: 'https://app.example.com' });
};

const verify = (svc: TestService, secret: string, path = '/signin/verify', forwardedFor?: string) => {
  const request = svc.http.post(path).set('ApiSecret', secret);
  if (forwardedFor) request.set('X-Forwarded-For', forwardedFor);
  return request.send({ token: 'verify_not-a-token' });
};

/** A well-formed secret of `app` that is not its secret. */
const wrongSecret = (app: TestApp) => app.apiSecret.replace(/[0-9a-f]{8}$/, (tail) => (tail === '00000000' ? '11111111' : '00000000'));

/** A fresh service (SQLite; the limits do not depend on the database) for each group of settings. */
function withService(env: Record<string, string>): () => TestService {
  let svc: TestService | undefined;
  beforeAll(async () => {
    svc = await startTestService('sqlite', env);
  });
  afterAll(() => svc?.close());
  return () => svc!;
}

describe('per client IP, in-process counters', () => {
  const svc = withService({ RATE_LIMIT_PUBLIC_PER_IP: '3', RATE_LIMIT_PRIVATE_PER_IP: '3' });

  it('refuses the public endpoints past the limit with a 429 problem, Retry-After and RateLimit headers, on both generations', async () => {
    const app = await svc().createApp();
    for (let i = 0; i < 3; i++) {
      const res = await signinBegin(svc(), app);
      expect(res.status).toBe(200);
      expect(res.headers['ratelimit']).toMatch(`remaining=${2 - i}`);
    }
    const refused = await signinBegin(svc(), app);
    expectRateLimited(refused);
    // The browser client must be able to read the refusal.
    expect(refused.headers['access-control-allow-origin']).toBe('*');
    expect(refused.headers['access-control-expose-headers']).toMatch(/Retry-After/);
    // One counter per address across the public endpoints and both generations.
    expectRateLimited(await svc().http.post('/v3/register/begin').set('ApiKey', app.apiKey).send({}));
    expectRateLimited(await svc().http.post('/api/signin/complete').set('ApiKey', app.apiKey).send({}));
    // The private API is limited separately, and the management API not at all.
    expectProblem(await verify(svc(), app.apiSecret), 400, 'invalid_token_format');
    expect((await svc().http.get(`/admin/apps/${app.appId}/available`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
  });

  it('limits verify, generate-token and magic-links/send per address (one counter, one request used above)', async () => {
    const app = await svc().createApp();
    expectProblem(await verify(svc(), app.apiSecret), 400, 'invalid_token_format');
    expect((await svc().http.post('/signin/generate-token').set('ApiSecret', app.apiSecret).send({ userId: 'u1' })).status).toBe(200);
    expectRateLimited(await svc().http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({}));
    expectRateLimited(await verify(svc(), app.apiSecret, '/v3/signin/verify'));
  });
});

describe('per app, with TRUST_PROXY so that each request comes from another address', () => {
  const svc = withService({ TRUST_PROXY: 'loopback', RATE_LIMIT_PUBLIC_PER_APP: '3', RATE_LIMIT_PRIVATE_PER_APP: '2' });

  it('refuses an app past its limit whatever the address, and leaves other apps alone', async () => {
    const [busy, other] = [await svc().createApp(), await svc().createApp()];
    for (let i = 0; i < 3; i++) expect((await signinBegin(svc(), busy, `203.0.113.${i + 1}`)).status).toBe(200);
    expectRateLimited(await signinBegin(svc(), busy, '198.51.100.7'));
    expect((await signinBegin(svc(), other, '198.51.100.7')).status).toBe(200);

    expectProblem(await verify(svc(), busy.apiSecret, '/signin/verify', '203.0.113.1'), 400, 'invalid_token_format');
    expectProblem(await verify(svc(), busy.apiSecret, '/api/v3/signin/verify', '203.0.113.2'), 400, 'invalid_token_format');
    expectRateLimited(await verify(svc(), busy.apiSecret, '/signin/verify', '203.0.113.3'));
    expectProblem(await verify(svc(), other.apiSecret, '/signin/verify', '203.0.113.3'), 400, 'invalid_token_format');
  });
});

describe("an app's budgets are spent only by requests that belong to it", () => {
  const svc = withService({ TRUST_PROXY: 'loopback', RATE_LIMIT_PUBLIC_PER_IP: '5', RATE_LIMIT_PUBLIC_PER_APP: '4', RATE_LIMIT_PRIVATE_PER_IP: '5', RATE_LIMIT_PRIVATE_PER_APP: '4', RATE_LIMIT_AUTH_FAILURES_PER_IP: '3' });
  const junkPublicKey = (app: TestApp) => `${app.appId}:public:${'0'.repeat(32)}`;

  it('counts neither junk keys nor requests refused per address against the app; keys that authenticate do', async () => {
    const app = await svc().createApp();
    // One address: junk public keys until its own limit refuses it, then more.
    for (let i = 0; i < 12; i++) {
      const res = await svc().http.post('/signin/begin').set('ApiKey', junkPublicKey(app)).set('X-Forwarded-For', '203.0.113.9').send({ RPID: 'app.example.com', Origin: 'https://app.example.com' });
      expect(res.status).toBe(i < 5 ? 401 : 429);
    }
    // Junk secrets: the address's failure limit, then refused; none of it is the app's.
    for (let i = 0; i < 8; i++) expect((await verify(svc(), wrongSecret(app), '/signin/verify', '203.0.113.9')).status).toBe(i < 3 ? 401 : 429);
    // The app still has its whole budgets: 4 sign-in begins and 4 verifies from other addresses ...
    for (let i = 0; i < 4; i++) expect((await signinBegin(svc(), app, `198.51.100.${i + 1}`)).status).toBe(200);
    for (let i = 0; i < 4; i++) expectProblem(await verify(svc(), app.apiSecret, '/signin/verify', `198.51.100.${i + 1}`), 400, 'invalid_token_format');
    // ... and then none: those requests did belong to it.
    expectRateLimited(await signinBegin(svc(), app, '198.51.100.50'));
    expectRateLimited(await verify(svc(), app.apiSecret, '/signin/verify', '198.51.100.50'));
  });
});

describe('TRUST_PROXY decides whether X-Forwarded-For names the client', () => {
  describe('unset: the header is ignored, the connection address counts', () => {
    const svc = withService({ RATE_LIMIT_PUBLIC_PER_IP: '2' });
    it('counts requests with different X-Forwarded-For as one client', async () => {
      const app = await svc().createApp();
      expect((await signinBegin(svc(), app, '203.0.113.1')).status).toBe(200);
      expect((await signinBegin(svc(), app, '203.0.113.2')).status).toBe(200);
      expectRateLimited(await signinBegin(svc(), app, '203.0.113.3'));
    });
  });

  describe('set: the forwarded address counts', () => {
    const svc = withService({ RATE_LIMIT_PUBLIC_PER_IP: '2', TRUST_PROXY: '127.0.0.1/8,::1,::ffff:127.0.0.1' });
    it('counts each forwarded address on its own', async () => {
      const app = await svc().createApp();
      expect((await signinBegin(svc(), app, '203.0.113.1')).status).toBe(200);
      expect((await signinBegin(svc(), app, '203.0.113.1')).status).toBe(200);
      expectRateLimited(await signinBegin(svc(), app, '203.0.113.1'));
      expect((await signinBegin(svc(), app, '203.0.113.2')).status).toBe(200);
      // A client cannot escape by prepending addresses: only the hop the trusted proxy added counts.
      expectRateLimited(await signinBegin(svc(), app, '10.9.8.7, 203.0.113.1'));
    });
  });
});

describe('guessing an ApiSecret', () => {
  describe('per client IP', () => {
    const svc = withService({ RATE_LIMIT_AUTH_FAILURES_PER_IP: '3' });
    it('refuses every ApiSecret request from an address after its failures, even with the right secret; successes do not count', async () => {
      const app = await svc().createApp();
      for (let i = 0; i < 5; i++) expectProblem(await verify(svc(), app.apiSecret), 400, 'invalid_token_format');
      for (let i = 0; i < 3; i++) expectProblem(await verify(svc(), wrongSecret(app)), 401, 'ApiSecret');
      expectRateLimited(await verify(svc(), app.apiSecret));
      expectRateLimited(await svc().http.get('/credentials/list?userId=u1').set('ApiSecret', app.apiSecret));
      // The browser's ApiKey endpoints are not part of it.
      expect((await signinBegin(svc(), app)).status).toBe(200);
    });
  });

  describe('per claimed app', () => {
    const svc = withService({ TRUST_PROXY: 'true', RATE_LIMIT_AUTH_FAILURES_PER_APP: '3' });
    it('refuses the app after failures from many addresses, and leaves other apps alone', async () => {
      const [target, other] = [await svc().createApp(), await svc().createApp()];
      for (let i = 0; i < 3; i++) expectProblem(await verify(svc(), wrongSecret(target), '/signin/verify', `203.0.113.${i + 1}`), 401, 'ApiSecret');
      expectRateLimited(await verify(svc(), target.apiSecret, '/signin/verify', '198.51.100.1'));
      expectProblem(await verify(svc(), other.apiSecret, '/signin/verify', '198.51.100.1'), 400, 'invalid_token_format');
    });
  });
});

describe('turning limits off', () => {
  describe('RATE_LIMITS=off', () => {
    const svc = withService({ RATE_LIMITS: 'off', RATE_LIMIT_PUBLIC_PER_IP: '1', RATE_LIMIT_AUTH_FAILURES_PER_IP: '1' });
    it('serves past every limit, without RateLimit headers', async () => {
      const app = await svc().createApp();
      for (let i = 0; i < 3; i++) {
        const res = await signinBegin(svc(), app);
        expect(res.status).toBe(200);
        expect(res.headers['ratelimit']).toBeUndefined();
        expectProblem(await verify(svc(), wrongSecret(app)), 401, 'ApiSecret');
      }
    });
  });

  describe('a limit of 0', () => {
    const svc = withService({ RATE_LIMIT_PUBLIC_PER_IP: '0', RATE_LIMIT_PUBLIC_PER_APP: '0', RATE_LIMIT_PRIVATE_PER_IP: '1' });
    it('turns that limit off and keeps the others', async () => {
      const app = await svc().createApp();
      for (let i = 0; i < 3; i++) expect((await signinBegin(svc(), app)).status).toBe(200);
      expectProblem(await verify(svc(), app.apiSecret), 400, 'invalid_token_format');
      expectRateLimited(await verify(svc(), app.apiSecret));
    });
  });
});
