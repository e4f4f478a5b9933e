/**
 * maxUsers is exact: the check and the count are one statement where a user gets their first
 * passkey (register/complete), so registrations of new users racing each other, on one replica or
 * two, can neither pass the limit nor be refused below it. register/token refuses early once the
 * limit is reached, as the reference does.
 */
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { createLogger } from '../../src/server/core/logger';
import { createServices, type Services } from '../../src/server/services';
import { openStore } from '../../src/server/store';
import { finishRegistration, registerPasskey, signIn } from '../support/ceremonies';
import { expectProblem } from '../support/problems';
import { privateApi, setFeatures } from '../support/privateApi';
import { providers, startTestService, warnIfPostgresSkipped, type TestApp, type TestService } from '../support/testService';

warnIfPostgresSkipped();

const RACERS = 50;
const MAX_USERS = 10;

describe.each(providers())('maxUsers under concurrent registrations on %s', (provider) => {
  let svc: TestService;
  /** A second replica: its own services (and store, pools, writer thread) on the same database. */
  let replica: { services: Services; http: TestService['http'] };

  beforeAll(async () => {
    svc = await startTestService(provider);
    const services = createServices(svc.config, openStore(svc.config.databaseUrl), { flushIntervalMs: 0 });
    replica = { services, http: supertest(createApp(services, createLogger('silent'))) };
  });
  afterAll(async () => {
    await replica.services.close();
    await svc.close();
  });

  const replicaOf = (i: number) => (i % 2 === 0 ? svc : replica);
  const newUsers = (app: TestApp) => Array.from({ length: RACERS }, (_, i) => `${app.appId}-user-${String(i).padStart(2, '0')}`);
  const tokenFor = (app: TestApp, userId: string, via: Pick<TestService, 'http'> = svc) =>
    via.http.post('/register/token').set('ApiSecret', app.apiSecret).send({ userId, username: `${userId}@example.com`, aliases: [`${userId}@example.com`] });
  const count = async (app: TestApp) => (await privateApi(svc, app).get('/users/count')).body.count as number;
  const limitedApp = async (maxUsers: number) => {
    const app = await svc.createApp();
    await setFeatures(svc, app, { maxUsers });
    return app;
  };
  const stored = async (app: TestApp) => {
    const { db } = svc.services.store;
    return {
      credentials: await db.credential.count({ where: { tenant: app.appId } }),
      users: await db.user.count({ where: { tenant: app.appId } }),
      aliases: await db.alias.count({ where: { tenant: app.appId } }),
      userCount: (await db.appCounter.findUniqueOrThrow({ where: { tenant: app.appId } })).userCount,
    };
  };

  it(`stores exactly ${MAX_USERS} of ${RACERS} new users whose passkeys complete at once on two replicas, and refuses the other ${RACERS - MAX_USERS} with max_users_reached`, async () => {
    const app = await limitedApp(MAX_USERS);
    const users = newUsers(app);
    // Every token is issued while the app has no user, so every refusal must come from register/complete.
    const tokens = await Promise.all(users.map(async (userId) => (await tokenFor(app, userId)).body.token as string));
    expect(tokens.every((token) => token?.startsWith('register_'))).toBe(true);

    const completes = await Promise.all(tokens.map((token, i) => finishRegistration(replicaOf(i), app, token).then((r) => r.complete)));
    const winners = completes.filter((res) => res.status === 200);
    const refused = completes.filter((res) => res.status !== 200);
    expect([winners.length, refused.length]).toEqual([MAX_USERS, RACERS - MAX_USERS]);
    for (const res of refused) expectProblem(res, 400, 'max_users_reached');

    // Nothing of a refused registration was kept: not its passkey, its user row or its alias.
    expect(await stored(app)).toEqual({ credentials: MAX_USERS, users: MAX_USERS, aliases: MAX_USERS, userCount: MAX_USERS });
    expect(await count(app)).toBe(MAX_USERS);
    const listed = (await privateApi(svc, app).get('/users/list')).body as { userId: string; credentialsCount: number; aliasCount: number }[];
    expect(listed.map((u) => [u.credentialsCount, u.aliasCount])).toEqual(Array.from({ length: MAX_USERS }, () => [1, 1]));

    // register/token now refuses a new user at once; an existing user may still add passkeys.
    expectProblem(await tokenFor(app, `${app.appId}-latecomer`), 400, 'max_users_reached');
    const existing = listed[0].userId;
    const again = await tokenFor(app, existing);
    expect(again.status).toBe(200);
    const second = await finishRegistration(svc, app, again.body.token);
    expect(second.complete.status).toBe(200);
    expect((await signIn(svc, app, second.credential)).complete.status).toBe(200);
    expect(await count(app)).toBe(MAX_USERS);
  });

  it(`lets ${RACERS} whole registrations race (token, begin, complete) and ends with exactly ${MAX_USERS} users, whichever step refused the others`, async () => {
    const app = await limitedApp(MAX_USERS);
    const outcomes = await Promise.all(
      newUsers(app).map(async (userId, i) => {
        const via = replicaOf(i);
        const token = await tokenFor(app, userId, via);
        if (token.status !== 200) return token;
        return (await finishRegistration(via, app, token.body.token)).complete;
      }),
    );
    const refused = outcomes.filter((res) => res.status !== 200);
    expect(outcomes.length - refused.length).toBe(MAX_USERS);
    for (const res of refused) expectProblem(res, 400, 'max_users_reached');
    expect(await stored(app)).toEqual({ credentials: MAX_USERS, users: MAX_USERS, aliases: MAX_USERS, userCount: MAX_USERS });
  });

  it(`refuses nobody below the limit: ${RACERS} new users at once against maxUsers = ${RACERS} are all stored`, async () => {
    const app = await limitedApp(RACERS);
    const tokens = await Promise.all(newUsers(app).map(async (userId) => (await tokenFor(app, userId)).body.token as string));
    const completes = await Promise.all(tokens.map((token, i) => finishRegistration(replicaOf(i), app, token).then((r) => r.complete)));
    expect(completes.map((res) => res.status)).toEqual(tokens.map(() => 200));
    expect(await count(app)).toBe(RACERS);
    expectProblem(await tokenFor(app, `${app.appId}-one-more`), 400, 'max_users_reached');
  });

  it('frees a place when a user goes, by credential or user deletion, and counts a user once however many passkeys they have', async () => {
    const app = await limitedApp(2);
    const alice = await registerPasskey(svc, app, { userId: 'alice' });
    await registerPasskey(svc, app, { userId: 'alice' });
    const bob = await registerPasskey(svc, app, { userId: 'bob' });
    expect([alice.complete.status, bob.complete.status, await count(app)]).toEqual([200, 200, 2]);
    expectProblem(await tokenFor(app, 'carol'), 400, 'max_users_reached');

    // Bob's only passkey goes: Bob is no longer a user, and Carol fits.
    expect((await privateApi(svc, app).post('/credentials/delete', { credentialId: bob.credential.idB64 })).status).toBe(204);
    expect(await count(app)).toBe(1);
    const carol = await tokenFor(app, 'carol');
    expect((await finishRegistration(svc, app, carol.body.token)).complete.status).toBe(200);

    // One of Alice's two passkeys goes: she is still a user. Then she is deleted, and Dave fits.
    expect((await privateApi(svc, app).post('/credentials/delete', { credentialId: alice.credential.idB64 })).status).toBe(204);
    expectProblem(await tokenFor(app, 'dave'), 400, 'max_users_reached');
    expect((await privateApi(svc, app).post('/users/delete', { userId: 'alice' })).status).toBe(204);
    expect(await count(app)).toBe(1);
    expect((await registerPasskey(svc, app, { userId: 'dave' })).complete.status).toBe(200);
    expect(await count(app)).toBe(2);
  });
});
