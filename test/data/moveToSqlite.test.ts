/**
 * The other direction: a running PostgreSQL service copied to an SQLite file while a client keeps
 * signing in, a final `--since` pass once writes stop, and a service on the SQLite file serving
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

(process.env.TEST_DATABASE_URL ? describe : describe.skip)('moving a running PostgreSQL service to SQLite', () => {
  // The build (when a source is newer than dist/) takes a while on a loaded machine: not the test's time.
  beforeAll(() => ensureBuilt(), BUILD_TIMEOUT_MS);
  const databases: TestDatabase[] = [];
  const services: ServiceProcess[] = [];
  afterAll(async () => {
    await Promise.all(services.map((s) => s.stop()));
    await Promise.all(databases.map((d) => d.drop()));
  }, TIMEOUT_MS);

  it(
    'copies while a client signs in, catches up once writes stop, and every user signs in on the SQLite service with their old passkeys and pre-copy tokens',
    async () => {
      const [postgres, sqlite] = [await createTestDatabase('postgresql'), await createTestDatabase('sqlite')];
      databases.push(postgres, sqlite);
      const source = await startServiceProcess(ENV, postgres);
      services.push(source);
      const deployment = await seedDeployment(source);
      const tokens = await signInEveryone(source, deployment);
      const scheduled = (await source.http.get('/admin/apps').set('ManagementKey', MANAGEMENT_KEY)).body.values.find((a: { appId: string }) => a.appId === deployment.scheduled.appId);

      let copying = true;
      const client = keepSigningIn(source, deployment, () => !copying);
      const first = await runCli(['data', 'copy', '--from', postgres.url, '--to', sqlite.url]);
      copying = false;
      const during = await client;
      expect(during.failure).toBeUndefined();
      expect(during.signIns).toBeGreaterThan(0);
      expect({ code: first.code, stderr: first.stderr }).toEqual({ code: 0, stderr: '' });
      expectEveryTableEqual(first.stdout, MODELS);

      const { app, users } = deployment.apps[0];
      expect((await signIn(source, app, users[0].passkeys[0], { userId: users[0].userId })).complete.status).toBe(200);

      await source.stop();
      // Where token keys are kept wrapped, the operator is told the target's services need the same key-encryption key.
      const last = await runCli(['data', 'copy', '--from', postgres.url, '--to', sqlite.url, '--since', snapshotIdIn(first.stdout)], { TOKEN_KEY_ENCRYPTION_KEY: 'set-for-this-run' });
      expect({ code: last.code, stderr: last.stderr }).toEqual({ code: 0, stderr: '' });
      expect(last.stdout).toMatch(/^token keys: [1-9]\d* keys? copied as stored, so tokens issued before the copy verify against the target\.\n {2}They are stored wrapped with TOKEN_KEY_ENCRYPTION_KEY: every service on the target needs the same TOKEN_KEY_ENCRYPTION_KEY\.$/m);
      expect(first.stdout).not.toContain('TOKEN_KEY_ENCRYPTION_KEY');
      expect(last.stdout).not.toContain('set-for-this-run');
      expectEveryTableEqual(last.stdout, MODELS);
      expect(last.stdout).toMatch(/brought up to date in [\d.]+ s: [1-9][\d,]* rows? written \(.*Credential: \d+ updated/);
      expect(last.stdout).toContain('written on the source after the snapshot: nothing; the target equals the source.');
      expect(await contentThroughService(sqlite.url)).toEqual(await contentThroughService(postgres.url));

      const target = await startServiceProcess(ENV, sqlite);
      services.push(target);
      await expectDeploymentServed([target], deployment, tokens);
      const moved = (await target.http.get('/admin/apps').set('ManagementKey', MANAGEMENT_KEY)).body.values.find((a: { appId: string }) => a.appId === deployment.scheduled.appId);
      expect(moved.deleteAt).toBe(scheduled.deleteAt);
      const link = abortLinkFor(source, deployment.scheduled.appId);
      // The page's button posts to the link, which cancels once.
      expect((await target.http.post(link).set('Content-Type', 'application/x-www-form-urlencoded').send('')).status).toBe(200);
      expect((await target.http.post(link).set('Content-Type', 'application/x-www-form-urlencoded').send('')).status).toBe(400);
    },
    TIMEOUT_MS,
  );
});
