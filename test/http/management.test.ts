import { expectProblem, keyIdOf, managementClient, type ManagementClient } from '../support/http';
import { keyProbe, statusWith, type KeyProbe } from '../support/keyProbe';
import { providers, startTestService, uniqueAppId, warnIfPostgresSkipped, type TestApp, type TestService } from '../support/testService';
import { SECRET_SCOPES } from '../../src/server/services/apps/apiKeys';

warnIfPostgresSkipped();

interface ListedKey {
  id: string;
  createdAt: string;
  apiKey: string;
  scopes: string[];
  isLocked: boolean;
  lastLockedAt: string | null;
}

const DEFAULT_FEATURES = {
  eventLoggingIsEnabled: false,
  eventLoggingRetentionPeriod: 90,
  magicLinkEmailMonthlyQuota: 1000,
  maxUsers: null,
  allowAttestation: false,
  isGenerateSignInTokenEndpointEnabled: true,
  isMagicLinksEnabled: true,
  plan: 'trial',
  allowedOrigins: [],
  sdkCompatibleLists: false,
};

const masked = (appId: string, keyId: string) => `${appId}:secret:${'*'.repeat(28)}${keyId}`;

describe.each(providers())('management API on %s', (provider) => {
  let svc: TestService;
  let admin: ManagementClient;
  let probe: KeyProbe;
  beforeAll(async () => {
    svc = await startTestService(provider);
    admin = managementClient(svc);
    probe = keyProbe(svc.services.keys);
  });
  afterAll(() => svc.close());

  const appPath = (appId: string, rest = '') => `/admin/apps/${appId}${rest}`;
  const features = async (appId: string) => (await admin.get(appPath(appId, '/features'))).body;
  const listKeys = async (appId: string): Promise<ListedKey[]> => {
    const res = await admin.get(appPath(appId, '/api-keys'));
    expect(res.status).toBe(200);
    return res.body;
  };
  const listedKey = async (appId: string, key: string) => (await listKeys(appId)).find((k) => k.id === keyIdOf(key));

  describe('GET /admin/apps/:appId/available', () => {
    it('is true before an app is created and false after', async () => {
      const appId = uniqueAppId();
      expect((await admin.get(appPath(appId, '/available'))).body).toEqual({ available: true });
      await svc.createApp({ appId });
      expect((await admin.get(appPath(appId, '/available'))).body).toEqual({ available: false });
    });

    it.each(['a', '1', 'ab', 'Abc', '1abc', 'a-b-c', 'a'.repeat(63)])('rejects the app id %p with a 400 validation problem', async (appId) => {
      const res = await admin.get(appPath(appId, '/available'));
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toEqual({ appId: [expect.stringMatching(/lowercase/)] });
    });
  });

  describe('POST /admin/apps/:appId/create', () => {
    it('creates two public keys and two secrets, each shown once, with a warning to store them', async () => {
      const appId = uniqueAppId();
      const res = await admin.post(appPath(appId, '/create'), { adminEmail: 'owner@example.com' });
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: 'Store keys safely. They will only be shown to you once.',
        apiKey1: expect.stringMatching(new RegExp(`^${appId}:public:[0-9a-f]{32}$`)),
        apiKey2: expect.stringMatching(new RegExp(`^${appId}:public:[0-9a-f]{32}$`)),
        apiSecret1: expect.stringMatching(new RegExp(`^${appId}:secret:[0-9a-f]{32}$`)),
        apiSecret2: expect.stringMatching(new RegExp(`^${appId}:secret:[0-9a-f]{32}$`)),
      });
      const { apiKey1, apiKey2, apiSecret1, apiSecret2 } = res.body;
      expect(new Set([apiKey1, apiKey2, apiSecret1, apiSecret2].map(keyIdOf)).size).toBe(4);
      for (const key of [apiKey1, apiKey2, apiSecret1, apiSecret2]) expect(await statusWith(probe, key)).toBe(200);
    });

    it('refuses an app id that is taken with 409, and the first keys keep working', async () => {
      const app = await svc.createApp();
      const res = await admin.post(appPath(app.appId, '/create'), { adminEmail: 'intruder@example.com' });
      expectProblem(res, 409, 'app_already_exists');
      expect(res.body.detail).toContain(app.appId);
      expect(await statusWith(probe, app.apiSecret)).toBe(200);
      expect(await statusWith(probe, app.apiKey)).toBe(200);
    });

    it.each([
      ['an invalid app id', 'a', { adminEmail: 'owner@example.com' }, 'appId'],
      ['no admin email', undefined, {}, 'adminEmail'],
      ['a bad admin email', undefined, { adminEmail: 'not-an-email' }, 'adminEmail'],
      ['an unknown plan', undefined, { adminEmail: 'owner@example.com', plan: 'platinum' }, 'plan'],
      ['a bad allowed origin', undefined, { adminEmail: 'owner@example.com', allowedOrigins: ['not an origin'] }, 'allowedOrigins'],
    ])('refuses %s with a 400 naming the field, and creates nothing', async (_case, givenId, body, field) => {
      const appId = givenId ?? uniqueAppId();
      const res = await admin.post(appPath(appId, '/create'), body);
      expectProblem(res, 400, 'validation_failed');
      expect(Object.keys(res.body.errors)).toEqual([field]);
      expect(await svc.services.store.db.app.findUnique({ where: { id: appId } })).toBeNull();
    });

    it('applies the options given at creation', async () => {
      const appId = uniqueAppId();
      const res = await admin.post(appPath(appId, '/create'), {
        adminEmail: 'owner@example.com',
        plan: 'enterprise',
        magicLinkEmailMonthlyQuota: 100,
        eventLoggingIsEnabled: true,
        eventLoggingRetentionPeriod: 30,
        maxUsers: 5,
        allowedOrigins: ['https://shop.example.com'],
      });
      expect(res.status).toBe(200);
      expect(await features(appId)).toMatchObject({
        plan: 'enterprise',
        allowAttestation: true,
        magicLinkEmailMonthlyQuota: 100,
        eventLoggingIsEnabled: true,
        eventLoggingRetentionPeriod: 30,
        maxUsers: 5,
        allowedOrigins: ['https://shop.example.com'],
      });
    });
  });

  describe('GET and POST /admin/apps/:appId/features', () => {
    it('answers every feature of a new app with its defaults', async () => {
      const { appId } = await svc.createApp();
      const res = await admin.get(appPath(appId, '/features'));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ ...DEFAULT_FEATURES, developerLoggingEndsAt: null });
    });

    it('accepts back exactly what it answers, for a new app and a changed one', async () => {
      const { appId } = await svc.createApp();
      for (const patch of [{}, { eventLoggingIsEnabled: true, eventLoggingRetentionPeriod: 0, maxUsers: 3, plan: 'enterprise', allowedOrigins: ['https://shop.example.com'] }]) {
        expect((await admin.post(appPath(appId, '/features'), patch)).status).toBe(204);
        const answered = await features(appId);
        expect((await admin.post(appPath(appId, '/features'), answered)).status).toBe(204);
        expect(await features(appId)).toEqual(answered);
      }
    });

    it('holds the event retention to 0..90 days at creation too', async () => {
      const res = await admin.post(appPath(uniqueAppId(), '/create'), { adminEmail: 'owner@example.com', eventLoggingRetentionPeriod: 365 });
      expectProblem(res, 400, 'validation_failed');
      expect(Object.keys(res.body.errors)).toEqual(['eventLoggingRetentionPeriod']);
    });

    it('changes only the fields it is given', async () => {
      const { appId } = await svc.createApp();
      const before = await features(appId);
      expect((await admin.post(appPath(appId, '/features'), { magicLinkEmailMonthlyQuota: 500 })).status).toBe(204);
      expect(await features(appId)).toEqual({ ...before, magicLinkEmailMonthlyQuota: 500 });

      const patch = {
        eventLoggingIsEnabled: true,
        eventLoggingRetentionPeriod: 90,
        maxUsers: 10,
        allowAttestation: true,
        isGenerateSignInTokenEndpointEnabled: false,
        isMagicLinksEnabled: false,
        plan: 'pro',
        allowedOrigins: ['https://shop.example.com', 'android:apk-key-hash:abc123_-'],
        sdkCompatibleLists: true,
      };
      expect((await admin.post(appPath(appId, '/features'), patch)).status).toBe(204);
      expect(await features(appId)).toEqual({ ...before, magicLinkEmailMonthlyQuota: 500, ...patch });

      expect((await admin.post(appPath(appId, '/features'), { maxUsers: null, allowedOrigins: [] })).status).toBe(204);
      expect(await features(appId)).toMatchObject({ maxUsers: null, allowedOrigins: [], plan: 'pro', sdkCompatibleLists: true });
    });

    it('stores allowed origins in their canonical form, once each', async () => {
      const { appId } = await svc.createApp();
      const origins = ['https://Shop.Example.com/', 'https://shop.example.com', 'http://localhost:3000'];
      expect((await admin.post(appPath(appId, '/features'), { allowedOrigins: origins })).status).toBe(204);
      expect((await features(appId)).allowedOrigins).toEqual(['https://shop.example.com', 'http://localhost:3000']);
    });

    it.each([
      ['a retention period of 91 days', { eventLoggingRetentionPeriod: 91 }, 'eventLoggingRetentionPeriod'],
      ['a negative retention period', { eventLoggingRetentionPeriod: -1 }, 'eventLoggingRetentionPeriod'],
      ['a path in an allowed origin', { allowedOrigins: ['https://shop.example.com/login'] }, 'allowedOrigins'],
      ['an allowed origin that is not a URL', { allowedOrigins: ['shop.example.com'] }, 'allowedOrigins'],
      ['an ftp origin', { allowedOrigins: ['ftp://shop.example.com'] }, 'allowedOrigins'],
      ['an unknown plan', { plan: 'platinum' }, 'plan'],
      ['a fractional quota', { magicLinkEmailMonthlyQuota: 1.5 }, 'magicLinkEmailMonthlyQuota'],
    ])('refuses %s with a 400 naming the field, and changes nothing', async (_case, patch, field) => {
      const { appId } = await svc.createApp();
      const before = await features(appId);
      const res = await admin.post(appPath(appId, '/features'), { magicLinkEmailMonthlyQuota: 7, ...patch });
      expectProblem(res, 400, 'validation_failed');
      expect(res.body.errors).toHaveProperty([field]);
      expect(await features(appId)).toEqual(before);
    });

    it('answers 404 for an app that does not exist', async () => {
      const appId = uniqueAppId();
      expectProblem(await admin.get(appPath(appId, '/features')), 404, 'app_not_found');
      expectProblem(await admin.post(appPath(appId, '/features'), { maxUsers: 3 }), 404, 'app_not_found');
    });
  });

  describe('API keys', () => {
    let app: TestApp;
    beforeEach(async () => {
      app = await svc.createApp();
    });

    it('lists public keys in full and secrets masked, never in plain text', async () => {
      const res = await admin.get(appPath(app.appId, '/api-keys'));
      expect(res.status).toBe(200);
      const byId = (key: string) => ({ id: keyIdOf(key), isLocked: false, lastLockedAt: null, createdAt: expect.any(String) });
      expect(res.body).toEqual(
        expect.arrayContaining([
          expect.objectContaining({ ...byId(app.apiKey), apiKey: app.apiKey, scopes: ['login', 'register'] }),
          expect.objectContaining({ ...byId(app.apiKey2), apiKey: app.apiKey2, scopes: ['login', 'register'] }),
          expect.objectContaining({ ...byId(app.apiSecret), apiKey: masked(app.appId, keyIdOf(app.apiSecret)), scopes: [...SECRET_SCOPES].sort() }),
          expect.objectContaining({ ...byId(app.apiSecret2), apiKey: masked(app.appId, keyIdOf(app.apiSecret2)), scopes: [...SECRET_SCOPES].sort() }),
        ]),
      );
      expect(res.body).toHaveLength(4);
      for (const secret of [app.apiSecret, app.apiSecret2]) expect(res.text).not.toContain(secret.slice(-32, -4));
    });

    const everySecretScope = [...SECRET_SCOPES].sort();
    it.each([
      ['public', [0], ['register'], ['register']],
      ['public', [1], ['login'], ['login']],
      ['public', [0, 1], ['login', 'register'], ['login', 'register']],
      ['public', ['Login'], ['login'], ['login']],
      ['secret', [0], ['token_register'], ['token_register']],
      ['secret', [1], ['token_verify'], ['token_verify']],
      // The reference's full set for a secret: every scope of its kind, as in the reference.
      ['secret', ['token_verify', 'token_register', 1], ['token_register', 'token_verify'], everySecretScope],
      ['secret', [0, 1, 2], ['token_register', 'token_verify', 'users'], ['token_register', 'token_verify', 'users']],
    ])('creates a %s key with scopes %j, stored as %j, that authenticates with %j', async (kind, scopes, stored, effective) => {
      const res = await admin.post(appPath(app.appId, `/${kind}-keys`), { scopes });
      expect(res.status).toBe(200);
      const key: string = res.body.apiKey;
      expect(key).toMatch(new RegExp(`^${app.appId}:${kind}:[0-9a-f]{32}$`));

      const auth = await probe.as(kind === 'secret' ? 'ApiSecret' : 'ApiKey', key);
      expect(auth.status).toBe(200);
      expect([...auth.body.scopes].sort()).toEqual(effective);

      const listed = await listedKey(app.appId, key);
      expect(listed).toMatchObject({ apiKey: kind === 'secret' ? masked(app.appId, keyIdOf(key)) : key, scopes: stored });
    });

    it.each([
      ['public', []],
      ['secret', []],
      ['public', undefined],
    ])('refuses a %s key with no scopes (%j)', async (kind, scopes) => {
      const res = await admin.post(appPath(app.appId, `/${kind}-keys`), scopes === undefined ? {} : { scopes });
      expectProblem(res, 400, 'create_api_key_scopes_required');
      expect(res.body.title).toBe('Please select at least one scope.');
      expect(await listKeys(app.appId)).toHaveLength(4);
    });

    it.each([
      ['public', ['token_verify']],
      ['secret', ['login']],
      ['public', [2]],
    ])('refuses a %s key with scopes of the other kind (%j)', async (kind, scopes) => {
      expectProblem(await admin.post(appPath(app.appId, `/${kind}-keys`), { scopes }), 400, 'validation_failed');
      expect(await listKeys(app.appId)).toHaveLength(4);
    });

    it('refuses to create a key for an app that does not exist', async () => {
      expectProblem(await admin.post(appPath(uniqueAppId(), '/public-keys'), { scopes: [0] }), 404, 'app_not_found');
    });

    it('locks and unlocks one key, recording when', async () => {
      const keyPath = appPath(app.appId, `/api-keys/${keyIdOf(app.apiSecret)}`);
      expect((await admin.post(`${keyPath}/lock`)).status).toBe(204);
      expect(await listedKey(app.appId, app.apiSecret)).toMatchObject({ isLocked: true, lastLockedAt: expect.any(String) });
      expect(await statusWith(probe, app.apiSecret)).toBe(401);
      expect(await statusWith(probe, app.apiSecret2)).toBe(200);

      expect((await admin.post(`${keyPath}/unlock`)).status).toBe(204);
      expect(await listedKey(app.appId, app.apiSecret)).toMatchObject({ isLocked: false });
      expect(await statusWith(probe, app.apiSecret)).toBe(200);
    });

    it('deletes one key for good', async () => {
      const keyPath = appPath(app.appId, `/api-keys/${keyIdOf(app.apiKey)}`);
      expect((await admin.delete(keyPath)).status).toBe(204);
      expect(await listedKey(app.appId, app.apiKey)).toBeUndefined();
      expect(await listKeys(app.appId)).toHaveLength(3);
      expect(await statusWith(probe, app.apiKey)).toBe(401);
      expectProblem(await admin.delete(keyPath), 404, 'api_key_not_found');
    });

    it('answers 404 api_key_not_found for a key id the app does not have', async () => {
      const taken = new Set((await listKeys(app.appId)).map((k) => k.id));
      const unknownId = ['zzzz', 'ffff', '0000'].find((id) => !taken.has(id))!;
      const keyPath = appPath(app.appId, `/api-keys/${unknownId}`);
      for (const res of [await admin.post(`${keyPath}/lock`), await admin.post(`${keyPath}/unlock`), await admin.delete(keyPath)]) {
        expectProblem(res, 404, 'api_key_not_found');
        expect(res.body.title).toBe('Apikey was not found');
      }
    });
  });

  describe('freezing an app', () => {
    it('stops every key until it is unfrozen, and each key keeps its own lock', async () => {
      const app = await svc.createApp();
      const keys = [app.apiKey, app.apiKey2, app.apiSecret, app.apiSecret2];
      expect((await admin.post(appPath(app.appId, `/api-keys/${keyIdOf(app.apiKey2)}/lock`))).status).toBe(204);

      expect((await admin.post(appPath(app.appId, '/freeze'))).status).toBe(204);
      for (const key of keys) expect(await statusWith(probe, key)).toBe(401);
      const listed = (await admin.get('/admin/apps')).body.values.find((a: { appId: string }) => a.appId === app.appId);
      expect(listed).toMatchObject({ frozen: true });

      expect((await admin.post(appPath(app.appId, '/unfreeze'))).status).toBe(204);
      expect(await Promise.all(keys.map((key) => statusWith(probe, key)))).toEqual([200, 401, 200, 200]);
    });
  });

  describe('GET /admin/apps', () => {
    it('lists the apps with their owner and plan', async () => {
      const appId = uniqueAppId();
      await admin.post(appPath(appId, '/create'), { adminEmail: 'listed@example.com', plan: 'pro' });
      const res = await admin.get('/admin/apps');
      expect(res.status).toBe(200);
      expect(res.body.values).toContainEqual({ appId, adminEmail: 'listed@example.com', plan: 'pro', createdAt: expect.any(String), frozen: false, deleteAt: null });
    });
  });

  describe('DELETE /admin/apps/:appId', () => {
    it('deletes the app and its keys; its id becomes available again', async () => {
      const app = await svc.createApp();
      const res = await admin.delete(appPath(app.appId));
      expect(res.status).toBe(200);
      expect(res.body).toEqual({
        message: `The app '${app.appId}' was deleted.`,
        isDeleted: true,
        deleteAt: expect.any(String),
        adminEmails: ['admin@example.com'],
      });

      for (const key of [app.apiKey, app.apiSecret]) expect(await statusWith(probe, key)).toBe(401);
      expect(await svc.services.store.db.apiKey.count({ where: { tenant: app.appId } })).toBe(0);
      expectProblem(await admin.get(appPath(app.appId, '/api-keys')), 404, 'app_not_found');
      expect((await admin.get(appPath(app.appId, '/available'))).body).toEqual({ available: true });
      expect((await admin.get('/admin/apps')).body.values.map((a: { appId: string }) => a.appId)).not.toContain(app.appId);
    });

    it('answers 404 for an app that does not exist', async () => {
      expectProblem(await admin.delete(appPath(uniqueAppId())), 404, 'app_not_found');
    });
  });

  describe('key storage', () => {
    it('keeps secrets only as a digest', async () => {
      const app = await svc.createApp();
      const extra: string = (await admin.post(appPath(app.appId, '/secret-keys'), { scopes: [0, 1] })).body.apiKey;
      const rows = await svc.services.store.db.apiKey.findMany({ where: { tenant: app.appId } });
      expect(rows).toHaveLength(5);
      const stored = JSON.stringify(rows);
      for (const secret of [app.apiSecret, app.apiSecret2, extra]) {
        expect(stored).not.toContain(secret.slice(-32));
        expect(stored).not.toContain(secret.slice(-32, -4));
      }
      for (const row of rows.filter((r) => r.kind === 'secret')) expect(row.publicValue).toBeNull();
    });
  });
});
