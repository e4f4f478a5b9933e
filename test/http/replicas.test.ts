/**
 * Two service processes (`node dist/cli.js serve`) on one PostgreSQL database and one Redis, as
 * replicas behind a load balancer run. Redis is reached through a TCP proxy the test can cut, to
 * take it away without stopping the real server.
 */
import { registerPasskey, signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { expectProblem } from '../support/http';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { startTcpProxy, type TcpProxy } from '../support/tcpProxy';
import { createTestDatabase, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();
const redisUrl = testRedisUrl();
const PROCESS_TIMEOUT_MS = 120_000;
const OUTAGE_LOG = 'redis unreachable';

const describeReplicas = process.env.TEST_DATABASE_URL && redisUrl ? describe : describe.skip;

describeReplicas('two replicas on one PostgreSQL and one Redis', () => {
  let database: TestDatabase;
  let proxy: TcpProxy;
  let replicas: ServiceProcess[] = [];
  const prefix = uniqueRedisPrefix();

  beforeAll(async () => {
    const upstream = new URL(redisUrl!);
    proxy = await startTcpProxy(upstream.hostname, Number(upstream.port || 6379));
    database = await createTestDatabase('postgresql');
    const env = {
      REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
      REDIS_KEY_PREFIX: prefix,
      LOG_LEVEL: 'info',
      RATE_LIMIT_WINDOW_SECONDS: '3600',
      RATE_LIMIT_PUBLIC_PER_APP: '6',
    };
    replicas = await Promise.all([startServiceProcess(env, database), startServiceProcess(env, database)]);
  }, PROCESS_TIMEOUT_MS);

  afterAll(async () => {
    await Promise.all(replicas.map((r) => r.stop()));
    await proxy?.close();
    await database?.drop();
    await dropRedisKeys(redisUrl!, prefix);
  }, PROCESS_TIMEOUT_MS);

  const signinBegin = (replica: ServiceProcess, app: TestApp) =>
    replica.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ RPID: 'app.example.com', Origin: 'https://app.example.com' });

  it(
    'registers through one and signs in through the other; a limit reached through one is enforced by the other; without Redis both serve, and limit again once it is back',
    async () => {
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
      for (const replica of replicas) expect((await replica.http.get('/api/health/storage')).body.results.redis.status).toBe('Healthy');

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
      for (const replica of replicas) expect(replica.output().split(OUTAGE_LOG).length - 1).toBe(1);

      await proxy.restore();
      for (const replica of replicas) {
        await eventually('the limit enforced again', async () => ((await signinBegin(replica, app)).status === 429 ? true : undefined), 20_000);
        const health = await replica.http.get('/api/health/storage');
        expect({ status: health.status, redis: health.body.results.redis.status }).toEqual({ status: 200, redis: 'Healthy' });
      }
      expectProblem(await signinBegin(a, app), 429, 'rate_limited');
      for (const replica of replicas) expect(replica.output()).toContain('redis reachable again');
    },
    PROCESS_TIMEOUT_MS,
  );
});
