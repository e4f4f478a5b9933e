/**
 * The middleware's metrics (prom-client, in its default registry) as a host's /metrics shows them,
 * counted from what really happened against a real service process; and the example host's
 * /metrics behind its token.
 */
import { register } from 'prom-client';
import { signIn } from '../support/ceremonies';
import { startExampleHost, type ExampleHost } from '../support/exampleHost';
import { hostApp, signUp } from '../support/hostApp';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { TestApp } from '../support/testService';
import { HOST_METRIC_NAMES } from '../../src/express/telemetry/hostMetrics';
import { ORIGIN } from '../support/ceremonies';

jest.setTimeout(90_000);

let service: ServiceProcess;
let app: TestApp;
beforeAll(async () => {
  service = await startServiceProcess();
  app = await service.createApp();
});
afterAll(() => service?.stop());

/** A metric's value for exactly these labels, from the text a scrape answers (0 when absent). */
async function valueOf(name: string, labels: Record<string, string> = {}): Promise<number> {
  const text = await register.metrics();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  const line = text.split('\n').find((l) => {
    if (!l.startsWith(`${name}{`) && !l.startsWith(`${name} `)) return false;
    const inside = /\{(.*)\}/.exec(l)?.[1].split(',') ?? [];
    return inside.length === wanted.length && wanted.every((w) => inside.includes(w));
  });
  return line ? Number(line.split(' ').pop()) : 0;
}

describe("the middleware's metrics", () => {
  it('counts sign-ups, sign-ins, step-ups, refusals by errorCode, throttled requests and the time of each service call', async () => {
    // The step-up below is made in a passkey sign-in's session with a passkey made a moment ago: old enough at 0 s.
    const h = hostApp(service, app, { newPasskeyStepUpDelaySeconds: 0, throttle: { windowMs: 60_000, signUp: 100, signIn: 3, account: 30, recover: 5, secondsBetweenMailsPerAddress: 0 } });
    const before = {
      signUps: await valueOf('passwordless_host_sign_ups_total'),
      signIns: await valueOf('passwordless_host_sign_ins_total'),
      stepUps: await valueOf('passwordless_host_step_ups_total'),
      refused: await valueOf('passwordless_host_refusals_total', { route: 'login', reason: 'invalid_token' }),
      throttled: await valueOf('passwordless_host_throttled_requests_total', { route: 'login' }),
      verifyCalls: await valueOf('passwordless_host_service_call_duration_seconds_count', { operation: 'signin/verify', outcome: 'ok' }),
    };
    const { credential, email } = await signUp(service, app, h);
    const signin = await signIn(service, app, credential, { alias: email });
    const login = await h.agent.post('/passwordless-login').send({ token: signin.complete.body.token });
    expect(login.status).toBe(200);
    const stepUp = await signIn(service, app, credential, { userId: login.body.id, purpose: 'step-up' });
    expect((await h.agent.post('/passwordless-step-up').send({ token: stepUp.complete.body.token })).status).toBe(204);
    const refused = await h.agent.post('/passwordless-login').send({ token: 'verify_not-a-token' });
    expect(refused.status).toBe(400);
    const errorCode = refused.body.errorCode as string;
    // The login budget is 3 a minute: the fourth is throttled.
    expect((await h.agent.post('/passwordless-login').send({ token: 'verify_not-a-token' })).status).toBe(429);

    expect(await valueOf('passwordless_host_sign_ups_total')).toBe(before.signUps + 1);
    expect(await valueOf('passwordless_host_sign_ins_total')).toBe(before.signIns + 1);
    expect(await valueOf('passwordless_host_step_ups_total')).toBe(before.stepUps + 1);
    expect(await valueOf('passwordless_host_refusals_total', { route: 'login', reason: errorCode })).toBe((errorCode === 'invalid_token' ? before.refused : 0) + 1);
    expect(await valueOf('passwordless_host_throttled_requests_total', { route: 'login' })).toBe(before.throttled + 1);
    expect(await valueOf('passwordless_host_service_call_duration_seconds_count', { operation: 'signin/verify', outcome: 'ok' })).toBe(before.verifyCalls + 3); // sign-up, sign-in, step-up
    expect(await valueOf('passwordless_host_service_call_duration_seconds_count', { operation: 'signin/verify', outcome: '400' })).toBeGreaterThanOrEqual(1);
    // No address, token or user id in any label.
    const text = await register.metrics();
    for (const secret of [email, signin.complete.body.token as string, app.apiSecret]) expect(text).not.toContain(secret);
  });

  it('exports every metric it names (the dashboard test reads the list)', async () => {
    const text = await register.metrics();
    for (const name of HOST_METRIC_NAMES) expect(text).toContain(`# TYPE ${name} `);
  });
});

describe("the example host's /metrics", () => {
  let host: ExampleHost;
  const token = 'host-metrics-token-0123456789abcdef';
  beforeAll(async () => {
    host = await startExampleHost(service.url, app, { Passwordless__Origins: ORIGIN, HOST_METRICS_TOKEN: token });
  });
  afterAll(() => host?.stop());

  it('answers only with its token, and then shows the middleware’s counters', async () => {
    expect((await fetch(`${host.url}/metrics`)).status).toBe(401);
    expect((await fetch(`${host.url}/metrics`, { headers: { Authorization: 'Bearer wrong-token' } })).status).toBe(401);
    const refused = await fetch(`${host.url}/passwordless-login`, { method: 'POST', headers: { 'Content-Type': 'application/json', Origin: ORIGIN }, body: JSON.stringify({ token: 'verify_not-a-token' }) });
    expect(refused.status).toBe(400);
    const scrape = await fetch(`${host.url}/metrics`, { headers: { Authorization: `Bearer ${token}` } });
    expect(scrape.status).toBe(200);
    const text = await scrape.text();
    expect(text).toMatch(/^passwordless_host_refusals_total\{route="login",reason="[a-z_]+"\} 1$/m);
    expect(text).toMatch(/^passwordless_host_service_call_duration_seconds_count\{operation="signin\/verify",outcome="400"\} 1$/m);
  });
});
