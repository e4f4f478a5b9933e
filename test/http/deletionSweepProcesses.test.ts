/**
 * The deletion schedule lives in the database: real service processes (`node dist/cli.js serve`)
 * started on a database whose deletion dates have passed perform the due steps at start-up. The
 * dates are written into the past, which is what a service restarted with its clock 25 hours or
 * 15 days later sees. Three replicas start together on one database and each step is performed
 * once (each process logs the steps it performed).
 */
import { join } from 'node:path';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { NO_ROWS, populateApp, rowCountsOf } from '../support/appData';
import { signIn } from '../support/ceremonies';
import { eventually } from '../support/eventually';
import { startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const PROCESS_TIMEOUT_MS = 90_000;

/** Lines a process logged for `appId` with `message`. */
const logged = (processes: ServiceProcess[], appId: string, message: string) =>
  processes.flatMap((p) => p.output().split('\n')).filter((line) => line.includes(`"appId":"${appId}"`) && line.includes(`"msg":"${message}"`));

describe.each(providers())('deletion sweep of service processes on %s', (provider) => {
  let database: TestDatabase;
  let processes: ServiceProcess[] = [];
  afterEach(async () => {
    await Promise.all(processes.map((p) => p.stop()));
    processes = [];
    await database?.drop();
  });

  it(
    'three replicas started 25 hours and 15 days after deletion requests freeze and delete each app once, and touch nothing else',
    async () => {
      database = await createTestDatabase(provider);
      // Before: one in-process service makes the apps, their data and the deletion requests.
      const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md') });
      const store = openStore(config.databaseUrl);
      await store.migrate();
      const before = createServices(config, store, { deletionSweepIntervalMs: 0 });
      const svc = { http: supertest(createApp(before, createLogger('silent'))) };
      const create = async (): Promise<TestApp> => {
        const appId = uniqueAppId('proc');
        const res = await svc.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
        return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
      };
      const [freezing, deleted, kept] = [await create(), await create(), await create()];
      for (const app of [freezing, deleted]) await populateApp(svc, app);
      const keptPasskey = await populateApp(svc, kept);
      for (const app of [freezing, deleted]) expect((await svc.http.post('/v3/account/delete').set('ApiSecret', app.apiSecret)).status).toBe(200);
      await before.close();

      // The requests were made 25 hours and 15 days ago.
      const { db, close } = openStore(database.url);
      const ago = (ms: number) => new Date(Date.now() - ms);
      await db.app.update({ where: { id: freezing.appId }, data: { keysFreezeAt: ago(HOUR), deleteAt: ago(-13 * DAY + HOUR) } });
      await db.app.update({ where: { id: deleted.appId }, data: { keysFreezeAt: ago(14 * DAY), deleteAt: ago(DAY) } });
      const rowsBefore = { freezing: await rowCountsOf(db, freezing.appId), kept: await rowCountsOf(db, kept.appId) };

      processes = await Promise.all([0, 1, 2].map(() => startServiceProcess({ LOG_LEVEL: 'info' }, database)));
      const [first] = processes;
      await eventually('the due steps', async () => {
        const frozen = (await db.app.findUnique({ where: { id: freezing.appId } }))?.keysFrozenForDeletion;
        const gone = (await db.app.findUnique({ where: { id: deleted.appId } })) === null;
        return frozen && gone ? true : undefined;
      });
      const refused = await first.http.post('/credentials/list').set('ApiSecret', freezing.apiSecret).send({ userId: 'x' });
      expect({ status: refused.status, detail: refused.body.detail }).toEqual({ status: 401, detail: expect.stringContaining('is being deleted') });
      expect((await signIn(first, kept, keptPasskey.credential, { userId: keptPasskey.userId })).complete.status).toBe(200);

      // Stopping waits for any sweep in flight, so the logs are complete.
      await Promise.all(processes.map((p) => p.stop()));
      expect(logged(processes, freezing.appId, 'app pending deletion: keys frozen')).toHaveLength(1);
      expect(logged(processes, deleted.appId, 'app pending deletion: all data deleted')).toHaveLength(1);
      expect(logged(processes, kept.appId, 'app pending deletion')).toEqual([]);

      expect(await rowCountsOf(db, deleted.appId)).toEqual(NO_ROWS);
      // The frozen app keeps its data; its log gained the freeze, once (and the refused request).
      // Daily reports too: should a UTC day end while the suite runs, the processes write one for it.
      expect({ ...(await rowCountsOf(db, freezing.appId)), event: 0, dailyReport: 0 }).toEqual({ ...rowsBefore.freezing, event: 0, dailyReport: 0 });
      expect(await db.event.count({ where: { tenant: freezing.appId, eventType: 'ApiManagementAppFrozenForDeletion' } })).toBe(1);
      const keptAfter = await rowCountsOf(db, kept.appId);
      expect({ ...keptAfter, redeemedToken: 0, event: 0, dailyReport: 0 }).toEqual({ ...rowsBefore.kept, redeemedToken: 0, event: 0, dailyReport: 0 });
      await close();
    },
    PROCESS_TIMEOUT_MS,
  );
});
