import { registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { expectProblem } from '../support/http';
import { MANAGEMENT_KEY, providers, startTestService, warnIfPostgresSkipped, type TestService } from '../support/testService';

warnIfPostgresSkipped();
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';

/** The value of one sample line `name{labels} value`, or undefined. */
function sample(text: string, name: string, labels: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}{${labels}} `));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

describe.each(providers())('GET /metrics on %s', (provider) => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(provider, { RATE_LIMIT_AUTH_FAILURES_PER_IP: '2' });
  });
  afterAll(() => svc.close());

  it('counts requests by route pattern and status, times them, and reports ceremony outcomes, refusals, the event loop, the process and the pool, without any secret, token, alias or id', async () => {
    const app = await svc.createApp();
    const alias = 'alias-in-no-metric@example.com';
    const { credential, userId, complete, registerToken } = await registerPasskey(svc, app, { aliases: [alias] });
    expect(complete.status).toBe(200);
    const signin = await signIn(svc, app, credential, { userId });
    const verifyTokenValue = signin.complete.body.token as string;
    expect((await verifyToken(svc, app, verifyTokenValue)).status).toBe(200);
    expectProblem(await verifyToken(svc, app, verifyTokenValue), 400, 'token_already_used');
    const wrongSecret = app.apiSecret.replace(/.{4}$/, '0000');
    for (let i = 0; i < 2; i++) expectProblem(await svc.http.get('/credentials/list?userId=x').set('ApiSecret', wrongSecret), 401, 'ApiSecret');
    expectProblem(await svc.http.get('/credentials/list?userId=x').set('ApiSecret', wrongSecret), 429, 'rate_limited');
    expect((await svc.http.get(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);

    const res = await svc.http.get('/metrics');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = res.text;

    expect(sample(text, 'passwordless_http_requests_total', 'method="POST",route="/signin/verify",status="200"')).toBe(1);
    expect(sample(text, 'passwordless_http_requests_total', 'method="POST",route="/signin/verify",status="400"')).toBe(1);
    expect(sample(text, 'passwordless_http_requests_total', 'method="GET",route="/admin/apps/:appId/features",status="200"')).toBe(1);
    expect(sample(text, 'passwordless_http_requests_total', 'method="GET",route="/credentials/list",status="401"')).toBe(2);
    expect(sample(text, 'passwordless_http_requests_total', 'method="GET",route="none",status="429"')).toBe(1);
    expect(sample(text, 'passwordless_http_request_duration_seconds_count', 'method="POST",route="/signin/complete"')).toBe(1);
    expect(sample(text, 'passwordless_http_request_duration_seconds_bucket', 'le="+Inf",method="POST",route="/signin/complete"')).toBe(1);
    expect(sample(text, 'passwordless_ceremony_outcomes_total', 'ceremony="register_complete",outcome="success"')).toBe(1);
    expect(sample(text, 'passwordless_ceremony_outcomes_total', 'ceremony="signin_complete",outcome="success"')).toBe(1);
    expect(sample(text, 'passwordless_ceremony_outcomes_total', 'ceremony="signin_verify",outcome="success"')).toBe(1);
    expect(sample(text, 'passwordless_ceremony_outcomes_total', 'ceremony="signin_verify",outcome="token_already_used"')).toBe(1);
    expect(sample(text, 'passwordless_rate_limit_refusals_total', 'limit="auth_failures_ip"')).toBe(1);
    expect(text).toMatch(/^passwordless_nodejs_eventloop_lag_seconds \d/m);
    expect(text).toMatch(/^passwordless_process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^passwordless_process_resident_memory_bytes \d/m);
    if (provider === 'postgresql') {
      expect(sample(text, 'passwordless_db_pool_connections', 'state="total"')).toBeGreaterThan(0);
      expect(sample(text, 'passwordless_db_pool_connections', 'state="waiting"')).toBe(0);
    }

    for (const value of [app.appId, app.apiKey, app.apiSecret, wrongSecret, MANAGEMENT_KEY, registerToken, verifyTokenValue, signin.begin.body.session, alias, userId, credential.idB64]) {
      expect(text).not.toContain(value);
    }
    // Secrets split at their separators do not leak either (e.g. the random part of a key).
    for (const key of [app.apiKey, app.apiSecret]) expect(text).not.toContain(key.split(':')[2]);
  });
});

describe('METRICS_TOKEN', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService('sqlite', { METRICS_TOKEN });
  });
  afterAll(() => svc.close());

  it('requires Authorization: Bearer <token> at /metrics and /api/metrics', async () => {
    for (const path of ['/metrics', '/api/metrics']) {
      const missing = await svc.http.get(path);
      expectProblem(missing, 401, 'metrics_token');
      expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
      expect(JSON.stringify(missing.body)).not.toContain(METRICS_TOKEN);
      expectProblem(await svc.http.get(path).set('Authorization', `Bearer ${METRICS_TOKEN}x`), 401, 'metrics_token');
      expectProblem(await svc.http.get(path).set('Authorization', METRICS_TOKEN), 401, 'metrics_token');
      const ok = await svc.http.get(path).set('Authorization', `Bearer ${METRICS_TOKEN}`);
      expect(ok.status).toBe(200);
      expect(ok.text).toContain('# TYPE passwordless_http_requests_total counter');
      expect(ok.text).not.toContain(METRICS_TOKEN);
    }
  });
});
