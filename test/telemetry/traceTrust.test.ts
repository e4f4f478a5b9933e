/**
 * Tracing that a browser cannot steer, against a real service process (`node dist/cli.js serve`
 * with the OTEL_* variables) exporting to a real OTLP/HTTP receiver of the test's own:
 * - a browser's `traceparent` (flags `00` included) is not continued: the problem's `traceId`, the
 *   exported spans, the access log line and the webhook delivery's link are the service's own
 *   trace; a host's request with its secret key continues the host's trace (TRUST_INCOMING_TRACE's
 *   default, `secret-key`), a wrong secret does not;
 * - spans are bounded (1 KiB values) whatever the path and User-Agent, an unknown path makes no
 *   `router` spans, server spans are named `METHOD /route` with `http.route`;
 * - a console page with a user id in its path records its route, in spans and in the access log;
 * - TRUST_INCOMING_TRACE=all (a second process) continues every caller's trace.
 */
import { randomBytes } from 'node:crypto';
import type supertest from 'supertest';
import { registerPasskey } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { consoleSession, type ConsoleSession } from '../support/consoleSession';
import { startOtlpReceiver, tracingEnv, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, type TestApp, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(90_000);

const SERVER = 2; // SpanKind.SERVER
const traceIdOf = () => randomBytes(16).toString('hex');
const traceparent = (traceId: string, flags: '00' | '01') => `00-${traceId}-${randomBytes(8).toString('hex')}-${flags}`;
const requestId = () => `trace-trust-${randomBytes(6).toString('hex')}`;

// A build (when a source is newer than dist/) can take a minute on a loaded machine: not the service's start.
beforeAll(() => ensureBuilt(), 180_000);

let receiver: OtlpReceiver;
let webhooks: WebhookReceiver;
let service: ServiceProcess & { database: TestDatabase };
let origin: string;
let app: TestApp;
/** Every trace id a caller chose in this file: none may appear in any span or log line unless the caller held the secret. */
const chosenByBrowsers: string[] = [];

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  webhooks = await startWebhookReceiver();
  service = await startServiceProcess({
    ...tracingEnv(receiver),
    LOG_LEVEL: 'info',
    PUBLIC_URL: 'http://localhost:{port}',
    CONSOLE: 'on',
    WEBHOOK_ALLOW_INSECURE: 'true',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1',
  });
  origin = `http://localhost:${new URL(service.url).port}`;
  app = await service.createApp();
});
afterAll(async () => {
  await service?.stop();
  await webhooks?.close();
  await receiver?.close();
});

/** The service's JSON log lines so far. */
const logLines = () =>
  service
    .output()
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The access log line of the request sent with `X-Request-Id: id` (written once the answer is out). */
const accessLine = (id: string) => eventually(`the access log line of ${id}`, () => logLines().find((line) => line.msg === 'request' && line.requestId === id));

/** The service's server span of trace `traceId`, once exported. */
async function serverSpanOf(traceId: string): Promise<ReceivedSpan> {
  const spans = await receiver.spansWhere((all) => all.some((s) => s.traceId === traceId && s.kind === SERVER && s.service === 'passwordless-test'));
  return spans.find((s) => s.traceId === traceId && s.kind === SERVER && s.service === 'passwordless-test')!;
}

describe('a browser cannot choose or hide its trace', () => {
  it("starts a trace of the service's own for a browser's traceparent (flags 00 included): in the problem, the spans, the access log and the webhook's link", async () => {
    const hook = await service.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: webhooks.url('/hooks'), eventTypes: ['passkey.registered'] });
    expect(hook.status).toBe(201);

    // A browser registers a passkey (public key) with a trace id of its choosing, flags 00.
    const chosenForRegistration = traceIdOf();
    chosenByBrowsers.push(chosenForRegistration);
    const registrationId = requestId();
    const registered = await registerPasskey(service, app, { headers: { traceparent: traceparent(chosenForRegistration, '00'), tracestate: 'vendor=chosen', 'X-Request-Id': registrationId } });
    expect(registered.complete.status).toBe(200);

    // And is refused, with a problem that carries a trace id.
    const chosen = traceIdOf();
    chosenByBrowsers.push(chosen);
    const refusalId = requestId();
    const refused = await service.http
      .post('/signin/complete')
      .set('ApiKey', app.apiKey)
      .set('traceparent', traceparent(chosen, '00'))
      .set('X-Request-Id', refusalId)
      .send({ session: 'session_not-one', response: {} });
    expect(refused.status).toBe(400);
    expect(refused.headers['content-type']).toBe('application/problem+json');
    expect(refused.body.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(refused.body.traceId).not.toBe(chosen);

    // Both are traced (sampled, whatever the browser's flags said), as traces of the service's own.
    const refusalSpan = await serverSpanOf(refused.body.traceId);
    expect(refusalSpan).toMatchObject({ name: 'POST /signin/complete', parentSpanId: '' });
    expect(await accessLine(refusalId)).toMatchObject({ path: '/signin/complete', status: 400, trace_id: refused.body.traceId });
    const registrationLine = await accessLine(registrationId);
    expect(registrationLine).toMatchObject({ path: '/register/complete', status: 200, trace_id: expect.stringMatching(/^[0-9a-f]{32}$/) });
    const registrationSpan = await serverSpanOf(registrationLine.trace_id as string);
    expect(registrationSpan).toMatchObject({ name: 'POST /register/complete', parentSpanId: '' });

    // The delivery of passkey.registered links to the registration's own trace, not the browser's.
    const spans = await receiver.spansWhere((all) => all.some((s) => s.name === 'webhook deliver' && s.attributes['passwordless.app_id'] === app.appId));
    const delivery = spans.find((s) => s.name === 'webhook deliver' && s.attributes['passwordless.app_id'] === app.appId)!;
    expect(delivery.links.map((l) => l.traceId)).toEqual([registrationSpan.traceId]);
    expect(webhooks.received.some((w) => w.payload.type === 'passkey.registered')).toBe(true);
  });

  it("continues a host's trace on a request with its secret key, but not on a wrong secret or one sent beside a public key", async () => {
    const hostTrace = traceIdOf();
    const verify = await service.http.post('/signin/verify').set('ApiSecret', app.apiSecret).set('traceparent', traceparent(hostTrace, '01')).send({ token: 'verify_not-a-token' });
    expect(verify.status).toBe(400);
    expect(verify.body.traceId).toBe(hostTrace);
    expect((await serverSpanOf(hostTrace)).parentSpanId).toMatch(/^[0-9a-f]{16}$/);

    const guessed = traceIdOf();
    chosenByBrowsers.push(guessed);
    const wrongSecret = await service.http
      .post('/signin/verify')
      .set('ApiSecret', `${app.appId}:secret:${'0'.repeat(32)}`)
      .set('traceparent', traceparent(guessed, '00'))
      .send({ token: 'verify_not-a-token' });
    expect(wrongSecret.status).toBe(401);
    expect(wrongSecret.body.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(wrongSecret.body.traceId).not.toBe(guessed);

    const beside = traceIdOf();
    chosenByBrowsers.push(beside);
    const withPublicKey = await service.http
      .post('/signin/complete')
      .set('ApiKey', app.apiKey)
      .set('ApiSecret', `${app.appId}:secret:${'1'.repeat(32)}`)
      .set('traceparent', traceparent(beside, '01'))
      .send({ session: 'session_not-one', response: {} });
    expect(withPublicKey.status).toBe(400);
    expect(withPublicKey.body.traceId).not.toBe(beside);
  });

  it('starts traces of its own for unauthenticated routes and the console', async () => {
    const chosen = traceIdOf();
    chosenByBrowsers.push(chosen);
    const missing = await service.http.get('/no-such-route').set('traceparent', traceparent(chosen, '01'));
    expect(missing.status).toBe(404);
    expect(missing.body.traceId).not.toBe(chosen);

    const consoleId = requestId();
    const page = await service.http.get('/console/sign-in').set('traceparent', traceparent(chosen, '01')).set('X-Request-Id', consoleId);
    expect(page.status).toBe(200);
    const line = await accessLine(consoleId);
    expect(line.trace_id).toMatch(/^[0-9a-f]{32}$/);
    expect(line.trace_id).not.toBe(chosen);
    expect((await serverSpanOf(line.trace_id as string)).parentSpanId).toBe('');
  });
});

describe('bounded, named spans', () => {
  it('cuts every attribute of a 12 KB path and a 3 KB User-Agent to 1 KiB', async () => {
    const res = await service.http.get(`/${'p'.repeat(12_000)}`).set('User-Agent', 'u'.repeat(3_000));
    expect(res.status).toBe(404);
    const span = await serverSpanOf(res.body.traceId);
    const values = Object.values(span.attributes).filter((v): v is string => typeof v === 'string');
    expect(values.some((v) => v.includes('ppp'))).toBe(true);
    expect(values.some((v) => v.includes('uuu'))).toBe(true);
    expect(Math.max(...values.map((v) => v.length))).toBeLessThanOrEqual(1024);
    expect(Object.keys(span.attributes).length).toBeLessThanOrEqual(64);
    expect(JSON.stringify(span.attributes).length).toBeLessThan(4096);
  });

  it('makes no router spans for an unknown path: the server span alone', async () => {
    const res = await service.http.post('/unknown/path').send({});
    expect(res.status).toBe(404);
    await serverSpanOf(res.body.traceId);
    const trace = receiver.spans.filter((s) => s.traceId === res.body.traceId);
    expect(trace.filter((s) => s.attributes['express.type'] === 'router')).toEqual([]);
    expect(trace.map((s) => s.name)).toEqual(['POST']);
  });

  it('names server spans `METHOD /route` with http.route, from the route declaration that matched', async () => {
    const cases: [() => supertest.Test, string][] = [
      [() => service.http.post('/signin/verify').set('ApiSecret', app.apiSecret).send({ token: 'verify_x' }), 'POST /signin/verify'],
      [() => service.http.post('/api/signin/verify').set('ApiSecret', app.apiSecret).send({ token: 'verify_x' }), 'POST /signin/verify'],
      [() => service.http.get('/credentials/list?userId=someone').set('ApiSecret', app.apiSecret), 'GET /credentials/list'],
      [() => service.http.get(`/admin/apps/${app.appId}/features`).set('ManagementKey', MANAGEMENT_KEY), 'GET /admin/apps/:appId/features'],
    ];
    for (const [send, name] of cases) {
      const id = requestId();
      const res = await send().set('X-Request-Id', id);
      expect(res.status).toBeLessThan(500);
      const span = await serverSpanOf((await accessLine(id)).trace_id as string);
      expect({ name: span.name, route: span.attributes['http.route'] }).toEqual({ name, route: name.split(' ')[1] });
    }
  });
});

describe('console paths', () => {
  let session: ConsoleSession;
  beforeAll(async () => {
    session = await consoleSession(service, origin, 'ops@example.com');
  });

  it("records a console page by its route, never the user id in its path, in spans and in the access log", async () => {
    const path = `/console/apps/${app.appId}/users/alice%40example.com`;
    const signedInId = requestId();
    const page = await session.get(path).set('X-Request-Id', signedInId);
    expect(page.status).toBe(200);
    expect(page.text).toContain('User alice@example.com');
    const visitorId = requestId();
    const redirected = await service.http.get(path).set('X-Request-Id', visitorId);
    expect(redirected.status).toBe(303);

    const signedIn = await accessLine(signedInId);
    expect(signedIn).toMatchObject({ path: '/console/apps/:appId/users/:userId', status: page.status });
    expect(await accessLine(visitorId)).toMatchObject({ path: '/console/*', status: 303 });
    const span = await serverSpanOf(signedIn.trace_id as string);
    expect(span).toMatchObject({ name: 'GET /console/apps/:appId/users/:userId', attributes: { 'http.route': '/console/apps/:appId/users/:userId', 'url.path': '/console/apps/:appId/users/:userId' } });
    const visitorSpan = await serverSpanOf((await accessLine(visitorId)).trace_id as string);
    expect(visitorSpan.attributes['url.path']).toBe('/console/*');

    for (const form of ['alice@example.com', 'alice%40example.com', 'alice%2540example.com']) {
      expect({ form, inSpans: receiver.bodies.some((body) => body.includes(form)), inLog: service.output().includes(form) }).toEqual({ form, inSpans: false, inLog: false });
    }
  });
});

describe('TRUST_INCOMING_TRACE=all', () => {
  let trusting: ServiceProcess | undefined;
  afterAll(() => trusting?.stop());

  it("continues every caller's trace, as an operator behind a gateway that sets the headers asks", async () => {
    trusting = await startServiceProcess({ ...tracingEnv(receiver), TRUST_INCOMING_TRACE: 'all', CONSOLE: 'off' });
    const trustingApp = await trusting.createApp();
    const gatewayTrace = traceIdOf();
    const refused = await trusting.http.post('/signin/complete').set('ApiKey', trustingApp.apiKey).set('traceparent', traceparent(gatewayTrace, '01')).send({ session: 'session_not-one', response: {} });
    expect(refused.status).toBe(400);
    expect(refused.body.traceId).toBe(gatewayTrace);
  });
});

describe('over everything this file sent', () => {
  it('let no trace id a browser chose reach a span or a log line', () => {
    expect(chosenByBrowsers.length).toBeGreaterThanOrEqual(5);
    const exported = receiver.bodies.join('\n');
    const logged = service.output();
    expect(chosenByBrowsers.filter((id) => exported.includes(id) || logged.includes(id))).toEqual([]);
  });
});
