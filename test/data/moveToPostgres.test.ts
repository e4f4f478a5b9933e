/**
 * Outgrowing one machine: a running SQLite service is copied to PostgreSQL while a client keeps
 * signing in, writes stop, a final `--since` pass catches up, and two PostgreSQL replicas serve
 * every user. Needs TEST_DATABASE_URL; skipped loudly without.
 */
import { MODELS, contentThroughService } from '../support/databaseContent';
import { abortLinkFor, expectDeploymentServed, expectEveryTableEqual, keepSigningIn, runCli, seedDeployment, signInEveryone, snapshotIdIn } from '../support/deployment';
import { signIn } from '../support/ceremonies';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();
const TIMEOUT_MS = 120_000;
const BUILD_TIMEOUT_MS = 180_000;
const ENV = { RATE_LIMITS: 'off' };

(process.env.TEST_DATABASE_URL ? describe : describe.skip)('moving a running SQLite service to PostgreSQL', () => {
  // The build (when a source is newer than dist/) takes a while on a loaded machine: not the test's time.
  beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);
  const databases: TestDatabase[] = [];
  const services: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await Promise.all(databases.map((d) => d.drop()));
  }, TIMEOUT_MS);

  it(
    'copies while a client signs in, catches up once writes stop, and every user signs in on two PostgreSQL replicas with their old passkeys and pre-copy tokens',
    async () => {
      const [sqlite, postgres] = [await createTestDatabase('sqlite'), await createTestDatabase('postgresql')];
      databases.push(sqlite, postgres);
      const source = await startServiceProcess(ENV, sqlite);
      services.push(source);
      const deployment = await seedDeployment(source);
      const tokens = await signInEveryone(source, deployment);
      const scheduled = (await source.http.get('/admin/apps').set('ManagementKey', MANAGEMENT_KEY)).body.values.find((a: { appId: string }) => a.appId === deployment.scheduled.appId);
      expect(scheduled.deleteAt).toEqual(expect.any(String));

      // The first pass, with the service serving and a client signing in throughout.
      let copying = true;
      const client = keepSigningIn(source, deployment, () => !copying);
      const first = await runCli(['data', 'copy', '--from', sqlite.url, '--to', postgres.url]);
      copying = false;
      const during = await client;
      expect(during.failure).toBeUndefined();
      expect(during.signIns).toBeGreaterThan(0);
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
      expectEveryTableEqual(first.stdout, MODELS);
      expect(first.stdout).toContain('(schema created: ');

      // Written after the snapshot for certain: a sign-in changes a counter, a time, a challenge, a purpose's last use.
      const { app, users } = deployment.apps[0];
      expect((await signIn(source, app, users[0].passkeys[0], { userId: users[0].userId })).complete.status).toBe(200);

      // Cut-over: stop writes, the final pass, then the replicas on PostgreSQL.
      await source.stop();
      const last = await runCli(['data', 'copy', '--from', sqlite.url, '--to', postgres.url, '--since', snapshotIdIn(first.stdout)]);
      expect({ code: last.code, stderr: last.stderr }).toEqual({ code: 0, stderr: '' });
      expectEveryTableEqual(last.stdout, MODELS);
      expect(last.stdout).toMatch(/brought up to date in [\d.]+ s: [1-9][\d,]* rows? written \(.*Credential: \d+ updated/);
      expect(last.stdout).toContain('written on the source after the snapshot: nothing; the target equals the source.');
      // Nothing lost: every row of every model reads back through the service exactly as it did from SQLite.
      expect(await contentThroughService(postgres.url)).toEqual(await contentThroughService(sqlite.url));

      const replicas = await Promise.all([startServiceProcess(ENV, postgres), startServiceProcess(ENV, postgres)]);
      services.push(...replicas);
      await expectDeploymentServed(replicas, deployment, tokens);
      // The scheduled deletion moved too, and the link its warning mailed (signed with the app's token keys) still cancels it, once.
      const moved = (await replicas[1].http.get('/admin/apps').set('ManagementKey', MANAGEMENT_KEY)).body.values.find((a: { appId: string }) => a.appId === deployment.scheduled.appId);
      expect(moved.deleteAt).toBe(scheduled.deleteAt);
      const link = abortLinkFor(source, deployment.scheduled.appId);
      // The page's button posts to the link; the signed link cancels once, on either replica.
      expect((await replicas[0].http.post(link).set('Content-Type', 'application/x-www-form-urlencoded').send('')).status).toBe(200);
      expect((await replicas[1].http.post(link).set('Content-Type', 'application/x-www-form-urlencoded').send('')).status).toBe(400);
    },
    TIMEOUT_MS,
  );
});
