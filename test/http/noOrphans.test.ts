/**
 * No orphans: an app deleted while requests write for it leaves no row behind, and an app
 * re-created under its id starts empty. Two replicas share one database: `serving` answers the
 * traffic (its key checks are cached for a few seconds, as on any replica), `deleting` deletes
 * the app, so writes reach the database after their app is gone and the foreign keys refuse them.
 */
import supertest from 'supertest';
import { join } from 'node:path';
import { createApp } from '../../src/server/app';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { NO_ROWS, rowCountsOf } from '../support/appData';
import { ORIGIN, RPID, registerPasskey, signIn, type ServiceHttp } from '../support/ceremonies';
import { createCredential } from '../support/softwareAuthenticator';
import { MANAGEMENT_KEY, createTestDatabase, providers, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

interface Replica {
  services: Services;
  http: ReturnType<typeof supertest>;
}

describe.each(providers())('no rows outlive their app on %s', (provider) => {
  let database: TestDatabase;
  let serving: Replica;
  let deleting: Replica;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    const config = loadConfig({ DATABASE_URL: database.url, MANAGEMENT_KEY, LOG_LEVEL: 'silent', MAIL_FILE: join(__dirname, '..', '..', '.test-tmp', 'mail.md') });
    const replica = async (): Promise<Replica> => {
      const store = openStore(config.databaseUrl);
      await store.migrate();
      // No notifications between the two: what is tested is the database's refusal of a replica that has not noticed.
      const services = createServices(config, store, { flushIntervalMs: 0, deletionSweepIntervalMs: 0, appChangeNotifications: false });
      return { services, http: supertest(createApp(services, createLogger('silent'))) };
    };
    serving = await replica();
    deleting = await replica();
  });
  afterAll(async () => {
    await serving?.services.close();
    await deleting?.services.close();
    await database.drop();
  });

  async function createAppOn(replica: Replica, appId = uniqueAppId()): Promise<TestApp> {
    const res = await replica.http.post(`/admin/apps/${appId}/create`).set('ManagementKey', MANAGEMENT_KEY).send({ adminEmail: 'admin@example.com' });
    expect(res.status).toBe(200);
    return { appId, apiKey: res.body.apiKey1, apiKey2: res.body.apiKey2, apiSecret: res.body.apiSecret1, apiSecret2: res.body.apiSecret2 };
  }

  /** What the browser does with a register token, stopping at the first refusal: begin, then complete if begin succeeded. */
  async function registration(app: TestApp, token: string) {
    const publicApi = (path: string, body: object) => serving.http.post(path).set('ApiKey', app.apiKey).send(body);
    const begin = await publicApi('/register/begin', { token, RPID, Origin: ORIGIN });
    if (begin.status !== 200) return { begin };
    const { response } = createCredential({ challenge: begin.body.data.challenge, rpId: RPID, origin: ORIGIN, userHandle: begin.body.data.user.id });
    return { begin, complete: await publicApi('/register/complete', { session: begin.body.session, response, RPID, Origin: ORIGIN }) };
  }

  const deleteOn = async (replica: Replica, app: TestApp) => expect((await replica.http.delete(`/admin/apps/${app.appId}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(200);

  /** Everything still buffered on both replicas is written (or dropped, for an app that is gone), then rows are counted. */
  async function rowsOf(app: TestApp) {
    await serving.services.events.flush();
    await deleting.services.events.flush();
    return rowCountsOf(serving.services.store.db, app.appId);
  }

  it('refuses every write of a replica that has not yet noticed the deletion, with a 4xx and no row', async () => {
    const svc: ServiceHttp = { http: serving.http };
    const app = await createAppOn(serving);
    const { credential, userId } = await registerPasskey(svc, app);
    const verifyLater = (await signIn(svc, app, credential, { userId })).complete.body.token as string;
    const registerLater = (await serving.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: 'late', username: 'late' })).body.token as string;
    // An app that never had a token signed: its first one needs a token key, written for it then.
    const fresh = await createAppOn(serving);
    expect((await serving.http.get('/users/count').set('ApiSecret', fresh.apiSecret)).status).toBe(200);
    await deleteOn(deleting, app);
    await deleteOn(deleting, fresh);

    // `serving` still trusts the app's keys (its key checks are cached), so each request reaches its write.
    const secret = (path: string, body: object) => serving.http.post(path).set('ApiSecret', app.apiSecret).send(body);
    const answers = {
      alias: await secret('/alias', { userId, aliases: ['late@example.com'] }),
      authConfig: await secret('/auth-configs/add', { purpose: 'late', timeToLive: '00:01:00', performedBy: 'x' }),
      verify: await secret('/signin/verify', { token: verifyLater }),
      signinBegin: await serving.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ RPID, Origin: ORIGIN }),
      registerBegin: (await registration(app, registerLater)).begin,
      firstToken: await serving.http.post('/register/token').set('ApiSecret', fresh.apiSecret).send({ userId: 'u', username: 'u' }),
      key: await serving.http.post(`/admin/apps/${app.appId}/secret-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes: [0, 1] }),
    };
    for (const [what, res] of Object.entries(answers)) {
      expect({ what, status: res.status, type: res.headers['content-type'], errorCode: res.body.errorCode }).toEqual({ what, status: 404, type: 'application/problem+json', errorCode: 'app_not_found' });
    }
    expect(answers.alias.body.detail).toBe('The app was deleted while this request ran; nothing was stored.');
    expect(await rowsOf(app)).toEqual(NO_ROWS);
    expect(await rowsOf(fresh)).toEqual(NO_ROWS);
  });

  it('leaves no row when the app is deleted amid concurrent registrations and key creations, and its id starts empty again', async () => {
    const app = await createAppOn(serving);
    const answers: { what: string; status: number; type: string | undefined }[] = [];
    let deletion: Promise<void> | undefined;
    const note = (what: string, res: supertest.Response) => {
      answers.push({ what, status: res.status, type: res.headers['content-type'] });
      // Deleted once some of the traffic is answered, while the rest is in flight.
      if (answers.length === 12) deletion = deleteOn(deleting, app);
    };

    const register = async (i: number) => {
      const token = await serving.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId: `user-${i}`, username: `user-${i}`, aliases: [`user-${i}@example.com`] });
      note('register/token', token);
      if (token.status !== 200) return;
      const { begin, complete } = await registration(app, token.body.token);
      note('register/begin', begin);
      if (complete) note('register/complete', complete);
    };
    const keyCreation = async (i: number) => {
      const kind = i % 2 === 0 ? 'public' : 'secret';
      note('create key', await serving.http.post(`/admin/apps/${app.appId}/${kind}-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes: [0, 1] }));
    };
    // The serving replica has checked both keys recently, as a busy one would have.
    expect((await serving.http.post('/signin/begin').set('ApiKey', app.apiKey).send({ RPID, Origin: ORIGIN })).status).toBe(200);
    await Promise.all(Array.from({ length: 24 }, (_, i) => (i % 3 === 0 ? keyCreation(i) : register(i))));
    expect(deletion).toBeDefined();
    await deletion;

    expect(answers.filter((a) => a.status >= 500 || (a.status >= 400 && a.type !== 'application/problem+json'))).toEqual([]);
    expect(answers.some((a) => a.status < 300)).toBe(true);
    expect(await rowsOf(app)).toEqual(NO_ROWS);

    const reborn = await createAppOn(deleting, app.appId);
    expect(await rowsOf(reborn)).toEqual({ ...NO_ROWS, app: 1, apiKey: 4 });
    const listed = await deleting.http.get('/credentials/list?userId=user-1').set('ApiSecret', reborn.apiSecret);
    expect(listed.body).toEqual([]);
  });
});
