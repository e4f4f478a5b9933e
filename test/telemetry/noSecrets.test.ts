/**
 * Nothing secret in telemetry: known secrets (keys, tokens, aliases, email addresses, a public
 * key, challenges, a webhook's signing secret and URL query) go through every route of the
 * service (from its OpenAPI document) and through the host's routes, with tracing on in both; then
 * every exported span (the OTLP requests as they arrived) and every log line of the service is
 * searched for each of them. On SQLite, and on PostgreSQL when TEST_DATABASE_URL is set.
 */
import { readFileSync } from 'node:fs';
import { signIn } from '../support/ceremonies';
import { hostApp, signUp } from '../support/hostApp';
import { traceHost } from '../support/hostTracing';
import { startOtlpReceiver, type OtlpReceiver } from '../support/otlpReceiver';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhookReceiver';

jest.setTimeout(180_000);
warnIfPostgresSkipped();

type JsonSchema = { type?: string | string[]; properties?: Record<string, JsonSchema>; items?: JsonSchema };
type Operation = { security?: Record<string, string[]>[]; parameters?: { name: string; in: string }[]; requestBody?: { content: Record<string, { schema: JsonSchema }> } };

const HOOK_QUERY_SECRET = 'hookquerysecret0123456789';

// One receiver and one host SDK for the file: the API's tracers, once handed out, stay bound to the provider registered first.
let receiver: OtlpReceiver;
let hostTracing: { stop(): Promise<void> };
beforeAll(async () => {
  receiver = await startOtlpReceiver();
  hostTracing = traceHost(receiver.url);
});
afterAll(async () => {
  await hostTracing?.stop();
  await receiver?.close();
});

describe.each(providers())('telemetry on %s', (provider) => {
  let webhooks: WebhookReceiver;
  let service: ServiceProcess | undefined;
  let database: TestDatabase | undefined;

  beforeAll(async () => {
    webhooks = await startWebhookReceiver();
    database = provider === 'postgresql' ? await createTestDatabase('postgresql') : undefined;
    service = await startServiceProcess(
      {
        OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_SERVICE_NAME: 'passwordless-test',
        OTEL_BSP_SCHEDULE_DELAY: '20',
        LOG_LEVEL: 'debug',
        WEBHOOK_ALLOW_INSECURE: 'true',
        WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1',
      },
      database,
    );
  });
  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    await webhooks?.close();
  });

  it('exports no key, token, alias, email address, public key or challenge in any span, and logs none', async () => {
    const svc = service!;
    const app = await svc.createApp();
    const secrets = new Map<string, string>();
    const keep = (what: string, value: unknown) => {
      if (typeof value === 'string' && value.length >= 8) secrets.set(value, what);
    };
    keep('ApiKey', app.apiKey);
    keep('ApiKey (its random part)', app.apiKey.split(':')[2]);
    keep('ApiSecret', app.apiSecret);
    keep('ApiSecret (its random part)', app.apiSecret.split(':')[2]);
    keep('ManagementKey', MANAGEMENT_KEY);

    // A webhook endpoint for every event, its URL with a secret in the query.
    const hook = await svc.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: webhooks.url(`/hooks?key=${HOOK_QUERY_SECRET}`), eventTypes: ['signin.verified', 'signin.completed', 'passkey.registered', 'magic_link.sent', 'aliases.updated'] });
    expect(hook.status).toBe(201);
    keep('webhook signing secret', hook.body.secret);
    keep('webhook URL query', HOOK_QUERY_SECRET);

    // A sign-up and a sign-in through the host (tracing on there too).
    const h = hostApp(svc, app);
    const { credential, email, registerToken, verifyToken, options } = await signUp(svc, app, h);
    keep('email address and alias', email);
    keep('register token', registerToken);
    keep('verify token of the sign-up', verifyToken);
    keep('registration challenge', options.challenge);
    keep('public key', credential.cosePublicKey.toString('base64url'));
    keep('public key (base64)', credential.cosePublicKey.toString('base64'));
    keep('credential private key', credential.privateKey.export({ format: 'der', type: 'pkcs8' }).toString('base64'));
    const signin = await signIn(svc, app, credential, { alias: email });
    keep('sign-in challenge', signin.begin.body.data.challenge);
    keep('sign-in session', signin.begin.body.session);
    keep('verify token of the sign-in', signin.complete.body.token);
    expect((await h.agent.post('/passwordless-login').send({ token: signin.complete.body.token })).status).toBe(200);
    await h.agent.get('/passwordless-passkeys');
    await h.agent.post('/passwordless-login').send({ token: signin.complete.body.token }); // refused: used

    // A magic link (a new app mails its admin only): the address and the mailed token.
    keep('admin email address', 'admin@example.com');
    expect((await svc.http.post('/apps/features').set('ApiSecret', app.apiSecret).send({ enableMagicLinks: true })).status).toBe(204);
    const magic = await svc.http.post('/magic-links/send').set('ApiSecret', app.apiSecret).send({ emailAddress: 'admin@example.com', urlTemplate: 'https://app.example.com/magic?token=$TOKEN', userId: 'someone' });
    expect(magic.status).toBe(204);
    const mailed = /magic\?token=([A-Za-z0-9_.:-]+)/.exec(readFileSync(svc.mailFile, 'utf8'));
    keep('magic link token', mailed?.[1]);

    // Every operation of the API, every field of its body and its query holding a secret. (Path
    // parameters are ids, never secrets: a path is logged and traced as it came, up to 200 characters.)
    const document = (await svc.http.get('/openapi.json')).body as { paths: Record<string, Record<string, Operation>> };
    const values = [email, verifyToken, registerToken, signin.begin.body.session, app.apiKey, options.challenge, HOOK_QUERY_SECRET];
    let turn = 0;
    const next = () => values[turn++ % values.length];
    const fill = (schema: JsonSchema | undefined): unknown => {
      const type = Array.isArray(schema?.type) ? schema!.type[0] : schema?.type;
      if (schema?.properties) return Object.fromEntries(Object.entries(schema.properties).map(([name, property]) => [name, fill(property)]));
      if (type === 'array') return [fill(schema?.items)];
      if (type === 'string' || type === undefined) return next();
      return undefined;
    };
    let sent = 0;
    for (const [path, byMethod] of Object.entries(document.paths)) {
      for (const [method, operation] of Object.entries(byMethod)) {
        let url = path.replace(/\{[^}]+\}/g, 'some-id');
        const query = (operation.parameters ?? []).filter((p) => p.in === 'query').map((p) => `${p.name}=${encodeURIComponent(next())}`);
        if (query.length > 0) url += `?${query.join('&')}`;
        const schemes = (operation.security ?? []).flatMap((s) => Object.keys(s));
        const headers: Record<string, string> = {};
        if (schemes.includes('ApiSecret')) headers.ApiSecret = app.apiSecret;
        if (schemes.includes('ApiKey')) headers.ApiKey = app.apiKey;
        if (schemes.includes('ManagementKey')) headers.ManagementKey = MANAGEMENT_KEY;
        const body = operation.requestBody ? fill(operation.requestBody.content['application/json']?.schema) : undefined;
        const res = await svc.http[method as 'get' | 'post' | 'put' | 'delete'](url).set(headers).send(body as object);
        expect(res.status).toBeLessThan(500);
        sent++;
      }
    }
    expect(sent).toBeGreaterThan(30);

    // The last request's trace arrives after the others' (spans go out in the order they end); then the service stops, flushing the rest.
    const last = await svc.http.post('/signin/verify').set('ApiSecret', app.apiSecret).send({ token: 'verify_last' });
    await receiver.spansWhere((spans) => spans.some((s) => s.traceId === last.body.traceId && s.service === 'passwordless-test'));
    await svc.stop();
    service = undefined;

    const exported = receiver.bodies.join('\n');
    const logged = svc.output();
    expect(receiver.spans.filter((s) => s.service === 'host').length).toBeGreaterThan(0);
    expect(logged).toContain('"trace_id"');
    const found = [...secrets].flatMap(([value, what]) => [
      ...(exported.includes(value) ? [`${what} in the exported spans`] : []),
      ...(logged.includes(value) ? [`${what} in the service's logs`] : []),
    ]);
    expect(found).toEqual([]);
  });
});
