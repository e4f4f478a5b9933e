/**
 * users/list by key (`?limit=&after=`, at most 1 000 a page, each page naming the next) and whole
 * (streamed a page at a time, in the shape the SDKs read), and users/count kept by every write
 * that changes it.
 */
import { registerPasskey } from '../support/ceremonies';
import { expectProblem, expectValidationProblem, useTestService } from '../support/problems';
import { privateApi, setFeatures } from '../support/privateApi';
import { utcDayOf } from '../../src/server/core/utcDay';
import { providers, type TestApp, type TestService } from '../support/testService';

interface ListedUser {
  userId: string;
  aliasCount: number;
  aliases: (string | null)[];
  credentialsCount: number;
  lastUsedAt: string | null;
}

/** `count` users straight through the store's own writes (a passkey each, every third one also an alias). */
async function seedUsers(svc: TestService, app: TestApp, count: number): Promise<string[]> {
  const ids = Array.from({ length: count }, (_, i) => `seeded-${String(i).padStart(5, '0')}`);
  const now = Date.now();
  await Promise.all(
    ids.map((userId, i) =>
      svc.services.store.queries.storeRegistration({ webhookDeliveries: [],
        tenant: app.appId,
        credential: {
          descriptorId: `cred-${userId}`,
          userId,
          userHandle: Buffer.from(userId).toString('base64url'),
          publicKey: 'pQECAyYgASFYIA',
          signatureCounter: 0,
          attestationFmt: 'none',
          aaGuid: '00000000-0000-0000-0000-000000000000',
          transports: '[]',
          rpid: 'example.com',
          origin: 'https://example.com',
          country: '',
          device: '',
          nickname: '',
          backupEligible: false,
          backupState: false,
          isDiscoverable: true,
          uvInitialized: true,
          createdAt: now,
          lastUsedAt: now,
          lastUsedDay: utcDayOf(now),
          prfSalt: null,
          prfEnabled: null,
          madeByUpgrade: false,
        },
        aliases: i % 3 === 0 ? [{ aliasHash: `hash-${userId}`, plaintext: `${userId}@example.com` }] : undefined,
      }),
    ),
  );
  return ids;
}

describe.each(providers())('users/list and users/count on %s', (provider) => {
  const service = useTestService(provider);

  const list = (svc: TestService, app: TestApp, query = '') => privateApi(svc, app).get(`/users/list${query}`);

  it('pages through every user by key, in the order of their userId, and the pages add up to the whole list', async () => {
    const svc = service();
    const app = await svc.createApp();
    for (const userId of ['delta', 'alpha', 'charlie']) expect((await registerPasskey(svc, app, { userId, aliases: [`${userId}@example.com`], aliasHashing: false })).complete.status).toBe(200);
    expect((await privateApi(svc, app).post('/alias', { userId: 'bravo', aliases: ['b1', 'b2'] })).status).toBe(204);
    expect((await privateApi(svc, app).post('/alias', { userId: 'echo', aliases: ['e'], hashing: false })).status).toBe(204);

    const whole = (await list(svc, app)).body as ListedUser[];
    expect(whole.map((u) => u.userId)).toEqual(['alpha', 'bravo', 'charlie', 'delta', 'echo']);
    expect(whole[1]).toEqual({ userId: 'bravo', aliasCount: 2, aliases: [null, null], credentialsCount: 0, lastUsedAt: null });
    expect(whole[0]).toEqual({ userId: 'alpha', aliasCount: 1, aliases: ['alpha@example.com'], credentialsCount: 1, lastUsedAt: expect.any(String) });

    const pages: ListedUser[][] = [];
    let res = await list(svc, app, '?limit=2');
    for (;;) {
      expect(res.status).toBe(200);
      expect(Object.keys(res.body).sort()).toEqual(['next', 'values']);
      pages.push(res.body.values);
      if (res.body.next === null) break;
      res = await list(svc, app, `?limit=2&after=${res.body.next}`);
    }
    expect(pages.map((page) => page.length)).toEqual([2, 2, 1]);
    expect(pages.flat()).toEqual(whole);
    // Paging names its own shape whatever sdkCompatibleLists says; `after` alone pages at the largest size.
    await setFeatures(svc, app, { sdkCompatibleLists: true });
    expect((await list(svc, app, '?limit=1000')).body).toEqual({ values: whole, next: null });
    const afterBravo = (await list(svc, app, '?limit=2')).body.next as string;
    expect((await list(svc, app, `?after=${afterBravo}`)).body).toEqual({ values: whole.slice(2), next: null });
    expect((await list(svc, app)).body).toEqual({ values: whole });
  });

  it('streams an unpaged list of more users than a page holds, whole and in order, as a bare array or {values}', async () => {
    const svc = service();
    const app = await svc.createApp();
    const ids = await seedUsers(svc, app, 2_345);
    const bare = await list(svc, app);
    expect(bare.status).toBe(200);
    expect(bare.headers['content-type']).toBe('application/json; charset=utf-8');
    expect((bare.body as ListedUser[]).map((u) => u.userId)).toEqual(ids);
    expect((bare.body as ListedUser[]).filter((u) => u.aliasCount === 1)).toHaveLength(Math.ceil(ids.length / 3));
    await setFeatures(svc, app, { sdkCompatibleLists: true });
    const sdk = await list(svc, app);
    expect(sdk.body).toEqual({ values: bare.body });

    const first = await list(svc, app, '?limit=1000');
    expect(first.body.values).toEqual((bare.body as ListedUser[]).slice(0, 1000));
    expect(await svc.services.users.count(app.appId)).toBe(ids.length);
  });

  it('answers an app without users with an empty list and page', async () => {
    const svc = service();
    const app = await svc.createApp();
    expect((await list(svc, app)).body).toEqual([]);
    expect((await list(svc, app, '?limit=10')).body).toEqual({ values: [], next: null });
    expect((await privateApi(svc, app).get('/users/count')).body).toEqual({ count: 0 });
  });

  it.each([
    ['limit 0', '?limit=0', 'limit'],
    ['limit over 1 000', '?limit=1001', 'limit'],
    ['a limit that is not a number', '?limit=ten', 'limit'],
    ['two limits', '?limit=1&limit=2', 'limit'],
    ['a cursor no page gave', '?after=not%20a%20cursor', 'after'],
    ['a cursor of a key longer than any userId', `?after=${Buffer.from('x'.repeat(65)).toString('base64url')}`, 'after'],
    ['a cursor of a NUL', `?after=${Buffer.from('\u0000').toString('base64url')}`, 'after'],
  ])('refuses %s with a 400 naming the parameter', async (_case, query, field) => {
    const svc = service();
    const app = await svc.createApp();
    expectValidationProblem(await list(svc, app, query), field);
  });

  it('keeps each app to its own users, whatever cursor it is given', async () => {
    const svc = service();
    const [mine, theirs] = [await svc.createApp(), await svc.createApp()];
    await registerPasskey(svc, theirs, { userId: 'b-user' });
    await registerPasskey(svc, mine, { userId: 'a-user' });
    const cursor = (await list(svc, theirs, '?limit=1')).body.next as string;
    expect((await list(svc, mine, `?after=${cursor}`)).body).toEqual({ values: [], next: null });
    expect((await list(svc, mine, '?limit=5')).body.values.map((u: ListedUser) => u.userId)).toEqual(['a-user']);
    expect((await privateApi(svc, mine).get('/users/count')).body).toEqual({ count: 1 });
    expectProblem(await svc.http.get('/users/list?limit=5'), 401, 'ApiSecret');
  });
});
