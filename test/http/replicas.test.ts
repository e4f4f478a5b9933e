/**
 * Two service processes (`node dist/cli.js serve`) on one PostgreSQL database (and one Redis, for
 * the rate limits), as replicas behind a load balancer run. Redis is reached through a TCP proxy
 * the test can cut, to take it away without stopping the real server. Needs TEST_DATABASE_URL (and
 * TEST_REDIS_URL for the rate limits); skipped loudly without.
 */
import { randomBytes } from 'node:crypto';
import { ORIGIN, RPID, registerPasskey, signIn, verifyToken } from '../support/ceremonies';
import { createCredential } from '../support/softwareAuthenticator';
import { eventually } from '../support/eventually';
import { expectProblem } from '../support/http';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';
import { MANAGEMENT_KEY, createTestDatabase, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();
const redisUrl = testRedisUrl();
const PROCESS_TIMEOUT_MS = 120_000;
const OUTAGE_LOG = 'redis unreachable';

const describeReplicas = process.env.TEST_DATABASE_URL && redisUrl ? describe : describe.skip;

/** Two replicas on a fresh PostgreSQL database, reaching Redis (unless `withRedis` is false) through a proxy the test can cut. */
function useReplicas(extraEnv: Record<string, string>, withRedis = true) {
  const prefix = uniqueRedisPrefix();
  const state: { database?: TestDatabase; proxy?: TcpProxy; replicas: ServiceProcess[]; prefix: string } = { replicas: [], prefix };
  beforeAll(async () => {
    if (withRedis) {
      const upstream = new URL(redisUrl!);
      state.proxy = await startTcpProxy(upstream.hostname, Number(upstream.port || 6379));
    }
    state.database = await createTestDatabase('postgresql');
    const redisEnv: Record<string, string> = state.proxy ? { REDIS_URL: `redis://127.0.0.1:${state.proxy.port}`, REDIS_KEY_PREFIX: prefix } : {};
    const env = { ...redisEnv, LOG_LEVEL: 'info', ...extraEnv };
    state.replicas = await Promise.all([startServiceProcess(env, state.database), startServiceProcess(env, state.database)]);
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await Promise.all(state.replicas.map((r) => r.stop()));
    await state.proxy?.close();
    await state.database?.drop();
    if (withRedis) await dropRedisKeys(redisUrl!, prefix);
  }, PROCESS_TIMEOUT_MS);
  return state as { proxy: TcpProxy; replicas: ServiceProcess[]; database: TestDatabase; prefix: string };
}

describeReplicas('two replicas on one PostgreSQL and one Redis: shared rate limits', () => {
  const env = { RATE_LIMIT_WINDOW_SECONDS: '3600', RATE_LIMIT_PUBLIC_PER_APP: '6', RATE_LIMIT_AUTH_FAILURES_PER_APP: '3' };
  const state = useReplicas(env);

  const signinBegin = (replica: ServiceProcess, app: TestApp) =>
    replica.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ RPID: 'app.example.com', Origin: 'https://app.example.com' });

  it(
    'registers through one and signs in through the other; a limit reached through one is enforced by the other; without Redis both serve, and limit again once it is back',
    async () => {
      const { proxy, replicas } = state;
      const [a, b] = replicas;
      const app = await a.createApp();
      // 2 public requests through A, 2 through B, then 2 more: the app's 6 are used up on both.
      const { credential, complete } = await registerPasskey(a, app);
      expect(complete.status).toBe(200);
      const signin = await signIn(b, app, credential);
      expect(signin.complete.status).toBe(200);
      expect((await signinBegin(a, app)).status).toBe(200);
      const sixth = await signinBegin(b, app);
      expect(sixth.status).toBe(200);
      expect(sixth.headers['ratelimit']).toMatch(/remaining=0/);
      expectProblem(await signinBegin(a, app), 429, 'rate_limited');
      expectProblem(await signinBegin(b, app), 429, 'rate_limited');
      // Wrong secrets guessed through both count together; then even the right one is refused, on both.
      const guess = (replica: ServiceProcess) => replica.http.get('/users/count').set('ApiSecret', app.apiSecret.replace(/.{4}$/, '0000'));
      expect((await a.http.get('/users/count').set('ApiSecret', app.apiSecret)).status).toBe(200);
      expectProblem(await guess(a), 401, 'ApiSecret');
      expectProblem(await guess(b), 401, 'ApiSecret');
      expectProblem(await guess(a), 401, 'ApiSecret');
      expectProblem(await b.http.get('/users/count').set('ApiSecret', app.apiSecret), 429, 'rate_limited');
      expectProblem(await a.http.get('/users/count').set('ApiSecret', app.apiSecret), 429, 'rate_limited');
      for (const replica of replicas) expect((await replica.http.get('/api/health/storage')).body.results.redis.status).toBe('Healthy');

      const before = replicas.map((r) => r.output().length);
      await proxy.cut();
      // Fail open: both replicas serve the app although it is over its limit, and say why.
      for (const replica of replicas) {
        for (let i = 0; i < 3; i++) expect((await signinBegin(replica, app)).status).toBe(200);
        const health = await replica.http.get('/api/health/storage');
        expect(health.status).toBe(200);
        expect(health.body.status).toBe('Degraded');
        expect(health.body.results.redis.status).toBe('Degraded');
        expect(health.body.results.postgresql.status).toBe('Healthy');
      }
      // Logged once per outage, not per request.
      replicas.forEach((replica, i) => expect(replica.output().slice(before[i]).split(OUTAGE_LOG).length - 1).toBe(1));
      // A replica started while Redis is away serves too, and limits once Redis is back.
      const late = await startServiceProcess({ REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: state.prefix, LOG_LEVEL: 'info', ...env }, state.database);
      replicas.push(late);
      expect((await signinBegin(late, app)).status).toBe(200);

      await proxy.restore();
      for (const replica of replicas) {
        await eventually('the limit enforced again', async () => ((await signinBegin(replica, app)).status === 429 ? true : undefined), 20_000);
        const health = await replica.http.get('/api/health/storage');
        expect({ status: health.status, redis: health.body.results.redis.status }).toEqual({ status: 200, redis: 'Healthy' });
      }
      expectProblem(await signinBegin(a, app), 429, 'rate_limited');
      for (const replica of replicas) {
        expect(replica.output()).toContain('redis reachable again');
        expect(replica.output()).not.toContain('rate limiter misconfigured');
      }
    },
    PROCESS_TIMEOUT_MS,
  );

});

describeReplicas("two replicas on one PostgreSQL and one Redis: one address's junk keys spend none of an app's budget", () => {
  // Low limits, so that the flood below would use up the app's budgets many times over if it counted.
  const env = {
    TRUST_PROXY: 'loopback',
    RATE_LIMIT_WINDOW_SECONDS: '3600',
    RATE_LIMIT_PUBLIC_PER_IP: '20',
    RATE_LIMIT_PUBLIC_PER_APP: '40',
    RATE_LIMIT_PRIVATE_PER_IP: '20',
    RATE_LIMIT_PRIVATE_PER_APP: '40',
    RATE_LIMIT_AUTH_FAILURES_PER_IP: '10',
    RATE_LIMIT_AUTH_FAILURES_PER_APP: '30',
  };
  const state = useReplicas(env);
  const ATTACKER = '203.0.113.66';
  const FLOOD = 240;
  const AT_ONCE = 16;

  it(
    "leaves a second client's sign-ins and verifies at 200 after a flood of junk keys for the app from one address",
    async () => {
      const [a, b] = state.replicas;
      const app = await a.createApp();
      const junk = () => randomBytes(16).toString('hex');
      const wrongValue = (key: string) => `${key.slice(0, -36)}${junk()}${key.slice(-4)}`;
      // Unknown keys claiming the app, and wrong values for its real key ids, public and secret.
      const requests = Array.from({ length: FLOOD }, (_, i) => () => {
        const replica = i % 2 === 0 ? a : b;
        switch (i % 4) {
          case 0:
            return replica.http.post('/signin/begin').set('ApiKey', `${app.appId}:public:${junk()}`).set('X-Forwarded-For', ATTACKER).send({ RPID, Origin: ORIGIN });
          case 1:
            return replica.http.post('/signin/begin').set('ApiKey', wrongValue(app.apiKey)).set('X-Forwarded-For', ATTACKER).send({ RPID, Origin: ORIGIN });
          case 2:
            return replica.http.post('/signin/verify').set('ApiSecret', `${app.appId}:secret:${junk()}`).set('X-Forwarded-For', ATTACKER).send({ token: 'verify_x' });
          default:
            return replica.http.post('/signin/verify').set('ApiSecret', wrongValue(app.apiSecret)).set('X-Forwarded-For', ATTACKER).send({ token: 'verify_x' });
        }
      });
      const statuses: number[] = [];
      // As fast as it can, AT_ONCE at a time (bounded).
      for (let at = 0; at < requests.length; at += AT_ONCE) statuses.push(...(await Promise.all(requests.slice(at, at + AT_ONCE).map((send) => send()))).map((r) => r.status));
      expect(new Set(statuses)).toEqual(new Set([401, 429]));
      // The address met its own limits.
      expect(statuses.filter((s) => s === 429).length).toBeGreaterThan(FLOOD / 2);

      // Another client (the browser and the backend, from 127.0.0.1) registers, signs in and verifies through both replicas.
      const { credential, complete } = await registerPasskey(a, app, { userId: 'bystander' });
      expect(complete.status).toBe(200);
      expect((await verifyToken(b, app, complete.body.token)).status).toBe(200);
      for (const [through, verifier] of [
        [a, b],
        [b, a],
        [a, a],
      ]) {
        const signin = await signIn(through, app, credential, { userId: 'bystander' });
        expect({ begin: signin.begin.status, complete: signin.complete.status }).toEqual({ begin: 200, complete: 200 });
        expect((await verifyToken(verifier, app, signin.complete.body.token)).body).toMatchObject({ success: true, userId: 'bystander' });
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});

(process.env.TEST_DATABASE_URL ? describe : describe.skip)('two replicas on one PostgreSQL: app incarnations', () => {
  const state = useReplicas({}, false);

  it(
    "deleting and re-creating an app on one replica: the other refuses the old app's keys and tokens at once, and the new app's work on both",
    async () => {
      const [a, b] = state.replicas;
      const appId = uniqueAppId('reborn');
      const create = async (): Promise<TestApp> => {
        const res = await a.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
        expect(res.status).toBe(200);
        return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
      };
      const old = await create();
      const newRegisterToken = async (replica: ServiceProcess, app: TestApp) =>
        (await replica.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: 'u-old', username: 'old@example.com' })).body.token as string;

      // The old app's tokens, each unused: a register token, a ceremony session, a verify token.
      const { credential } = await registerPasskey(a, old, { userId: 'u-old' });
      const oldRegisterToken = await newRegisterToken(a, old);
      const begin = await b.http.post('/register/begin').set('ApiKey', old.apiKey).send({ token: await newRegisterToken(a, old), RPID, Origin: ORIGIN });
      expect(begin.status).toBe(200);
      const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
      const oldSessionBody = { session: begin.body.session, response, RPID, Origin: ORIGIN };
      const oldVerifyToken = (await signIn(a, old, credential)).complete.body.token as string;
      // B has checked the old keys and opened the old app's tokens: both are cached there.
      const primed = await signIn(b, old, credential);
      expect(primed.complete.body).toEqual({ token: expect.any(String) });
      expect((await verifyToken(b, old, primed.complete.body.token)).body).toMatchObject({ success: true });

      expect((await a.http.delete(`/admin/apps/${appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);
      const reborn = await create();

      // On B, at once: the old keys are refused ...
      expectProblem(await verifyToken(b, old, oldVerifyToken), 401, 'ApiSecret');
      expectProblem(await b.http.post('/signin/begin').set('ApiKey', old.apiKey).send({ RPID, Origin: ORIGIN }), 401, 'ApiKey');
      // ... and the old tokens, presented with the new app's keys.
      expectProblem(await verifyToken(b, reborn, oldVerifyToken), 400, 'invalid_token');
      expectProblem(await b.http.post('/register/begin').set('ApiKey', reborn.apiKey).send({ token: oldRegisterToken, RPID, Origin: ORIGIN }), 400, 'invalid_token');
      const completion = await b.http.post('/register/complete').set('ApiKey', reborn.apiKey).send(oldSessionBody);
      expect(completion.status).toBe(400);
      expect(['invalid_session', 'invalid_token']).toContain(completion.body.errorCode);

      // The new app works through both: register on B, sign in on A, verify on B and A.
      const fresh = await registerPasskey(b, reborn, { userId: 'u-new' });
      expect(fresh.complete.status).toBe(200);
      const first = await signIn(a, reborn, fresh.credential);
      expect((await verifyToken(b, reborn, first.complete.body.token)).body).toMatchObject({ success: true, userId: 'u-new' });
      const second = await signIn(b, reborn, fresh.credential);
      expect((await verifyToken(a, reborn, second.complete.body.token)).body).toMatchObject({ success: true, userId: 'u-new' });
      // The old passkey belonged to the old app.
      const stale = await b.http.post('/signin/begin').set('ApiKey', reborn.apiKey).send({ userId: 'u-old', RPID, Origin: ORIGIN });
      expect(stale.status).toBe(200);
      expect((stale.body.data.allowCredentials as { id: string }[]).map((d) => d.id)).not.toContain(credential.idB64);
    },
    PROCESS_TIMEOUT_MS,
  );
});
