/**
 * One sign-in, one trace: a host (this process, with an OpenTelemetry SDK of its own) and a real
 * service process (`node dist/cli.js serve` with the OTEL_* variables) export to a real OTLP/HTTP
 * receiver of the test's own. The host's login span is the ancestor of the service's verify span,
 * the database statements are under that, a webhook delivery links to the change that queued it,
 * and the service's log lines carry the same trace id.
 */
import { signIn } from '../support/ceremonies';
import { hostApp, signUp, type Host } from '../support/hostApp';
import { traceHost } from '../support/hostTracing';
import { ancestorsOf, startOtlpReceiver, tracingEnv, type OtlpReceiver, type ReceivedSpan } from '../support/otlpReceiver';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';
import type { TestApp } from '../support/testService';

jest.setTimeout(90_000);

let receiver: OtlpReceiver;
let hostTracing: { stop(): Promise<void> };
let webhooks: WebhookReceiver;
let service: ServiceProcess;
let app: TestApp;
let h: Host;

beforeAll(async () => {
  receiver = await startOtlpReceiver();
  hostTracing = traceHost(receiver.url);
  webhooks = await startWebhookReceiver();
  service = await startServiceProcess({ ...tracingEnv(receiver), LOG_LEVEL: 'info', WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1' });
  app = await service.createApp();
  h = hostApp(service, app);
});
afterAll(async () => {
  await service?.stop();
  await hostTracing?.stop();
  await webhooks?.close();
  await receiver?.close();
});

const named = (spans: ReceivedSpan[], name: string, service?: string) => spans.filter((s) => s.name === name && (service === undefined || s.service === service));

describe('one sign-in, one trace', () => {
  it('follows a host login through the service’s verify to its database statements, links the webhook delivery to its change, and logs the trace id', async () => {
    const hook = await service.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: webhooks.url('/hooks'), eventTypes: ['signin.verified'] });
    expect(hook.status).toBe(201);
    const { credential, email } = await signUp(service, app, h);
    const signin = await signIn(service, app, credential, { alias: email });
    expect(signin.complete.status).toBe(200);
    const login = await h.agent.post('/passwordless-login').send({ token: signin.complete.body.token });
    expect(login.status).toBe(200);

    // The host's spans go out as they end; the service's within its short batch delay.
    const spans = await receiver.spansWhere((all) => {
      const logins = named(all, 'passwordless login', 'host');
      const last = logins[logins.length - 1];
      return (
        logins.length === 2 &&
        all.some((s) => s.traceId === last.traceId && s.name === 'ceremony signin verify' && s.service === 'passwordless-test') &&
        all.some((s) => s.traceId === last.traceId && s.name.startsWith('sql ')) &&
        all.some((s) => s.name === 'webhook deliver' && s.links.some((l) => l.traceId === last.traceId))
      );
    });
    const loginSpan = named(spans, 'passwordless login', 'host')[1];
    const trace = spans.filter((s) => s.traceId === loginSpan.traceId);

    // host login -> host's call to the service -> the service's HTTP span -> its verify step.
    const verify = named(trace, 'ceremony signin verify', 'passwordless-test')[0];
    const chain = ancestorsOf(verify, spans);
    expect(chain.map((s) => `${s.service} ${s.name}`)).toEqual(expect.arrayContaining(['host passwordless POST signin/verify', 'host passwordless login']));
    expect(chain[chain.length - 1]).toBe(loginSpan);
    expect(chain.some((s) => s.service === 'passwordless-test' && s.kind === 2 /* SERVER */)).toBe(true);
    expect(chain.find((s) => s.name === 'passwordless POST signin/verify')?.parentSpanId).toBe(loginSpan.spanId);

    // The token's redemption is a named statement under the verify step: its name and table, no value.
    const statements = trace.filter((s) => s.name.startsWith('sql ') && ancestorsOf(s, spans).includes(verify));
    expect(statements.length).toBeGreaterThan(0);
    for (const statement of statements) expect(statement.attributes).toMatchObject({ 'db.system.name': 'sqlite' });
    expect(statements.some((s) => s.attributes['db.collection.name'] === 'RedeemedToken' || (s.attributes['passwordless.statements'] as string[] | undefined)?.includes('redeemToken'))).toBe(true);

    // The delivery of signin.verified is a trace of its own, linked to the verify step that queued it.
    const delivery = named(spans, 'webhook deliver', 'passwordless-test').find((s) => s.links.some((l) => l.traceId === loginSpan.traceId));
    expect(delivery).toBeDefined();
    expect(delivery!.traceId).not.toBe(loginSpan.traceId);
    expect(delivery!.links).toEqual([{ traceId: loginSpan.traceId, spanId: verify.spanId }]);
    expect(delivery!.attributes).toMatchObject({ 'passwordless.app_id': app.appId, 'http.response.status_code': 204 });

    // The service's access line of that verify carries the same trace id.
    const lines = service
      .output()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const verifyLine = lines.find((line) => line.path === '/signin/verify' && line.trace_id === loginSpan.traceId);
    expect(verifyLine).toMatchObject({ status: 200, trace_id: loginSpan.traceId, span_id: expect.stringMatching(/^[0-9a-f]{16}$/) });
  });

  it('puts the trace id in problem details when tracing is on', async () => {
    const refused = await service.http.post('/signin/verify').set('ApiSecret', app.apiSecret).send({ token: 'verify_not-a-token' });
    expect(refused.status).toBe(400);
    expect(refused.body.traceId).toMatch(/^[0-9a-f]{32}$/);
    await receiver.spansWhere((all) => all.some((s) => s.traceId === refused.body.traceId && s.service === 'passwordless-test'));
    const line = service
      .output()
      .split('\n')
      .find((l) => l.includes(refused.body.traceId));
    expect(line).toBeDefined();
  });
});
