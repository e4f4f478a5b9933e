/**
 * Least privilege: every ApiKey and ApiSecret route of the OpenAPI document names a scope, and a key
 * with scopes may call only the routes of its scopes (403 forbidden elsewhere, before anything is
 * read or changed). Table-driven over the document a real service process serves, both generations.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import { registerPasskey, verifyToken } from '../support/ceremonies';
import { expectProblem, keyIdOf } from '../support/http';
import { CLI, childEnv, startServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, MANAGEMENT_KEY, providers, warnIfPostgresSkipped, type TestApp, type TestDatabase } from '../support/testService';
import { PUBLIC_SCOPES, SECRET_SCOPES, type Scope } from '../../src/server/services/apps/apiKeys';

warnIfPostgresSkipped();
const PROCESS_TIMEOUT_MS = 120_000;

interface Operation {
  method: 'get' | 'post' | 'delete';
  path: string;
  header: 'ApiKey' | 'ApiSecret';
  scope: string | undefined;
}

/** Every operation of the document that takes an app's key, with the scope its `security` names. */
function keyOperations(document: { paths: Record<string, Record<string, { security: Record<string, string[]>[] }>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(methods)) {
      for (const requirement of operation.security) {
        for (const [header, scopes] of Object.entries(requirement)) {
          if (header === 'ApiKey' || header === 'ApiSecret') operations.push({ method: method as Operation['method'], path, header, scope: scopes[0] });
        }
      }
    }
  }
  return operations;
}

describe('key scopes on a service process', () => {
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  let app: TestApp;
  let operations: Operation[];
  const keys = new Map<Scope, string>();

  const call = (operation: Operation, key: string) => {
    const request = svc.http[operation.method](operation.path.replace(/\{(\w+)\}/g, 'x')).set(operation.header, key);
    return operation.method === 'get' ? request : request.send({});
  };
  const createKey = async (kind: 'public' | 'secret', scopes: (string | number)[]) => {
    const res = await svc.http.post(`/admin/apps/${app.appId}/${kind}-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes });
    expect(res.status).toBe(200);
    return res.body.apiKey as string;
  };

  beforeAll(async () => {
    svc = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' });
    app = await svc.createApp();
    operations = keyOperations((await svc.http.get('/openapi.json')).body);
    for (const scope of [...PUBLIC_SCOPES, ...SECRET_SCOPES]) keys.set(scope, await createKey(PUBLIC_SCOPES.includes(scope as never) ? 'public' : 'secret', [scope]));
  }, PROCESS_TIMEOUT_MS);
  afterAll(() => svc?.stop(), PROCESS_TIMEOUT_MS);

  it('names a scope of its key kind for every route that takes an ApiKey or ApiSecret', () => {
    expect(operations.length).toBeGreaterThan(40);
    for (const { method, path, header, scope } of operations) {
      const kinds: readonly string[] = header === 'ApiKey' ? PUBLIC_SCOPES : SECRET_SCOPES;
      expect({ route: `${method} ${path}`, scope: kinds.includes(scope ?? '') }).toEqual({ route: `${method} ${path}`, scope: true });
    }
    // The destructive and configuration areas have scopes of their own.
    const scopeOf = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)?.scope;
    expect({
      usersDelete: scopeOf('post', '/users/delete'),
      usersList: scopeOf('get', '/users/list'),
      credentialsDelete: scopeOf('post', '/credentials/delete'),
      alias: scopeOf('post', '/alias'),
      features: scopeOf('post', '/apps/features'),
      magicLinks: scopeOf('post', '/magic-links/send'),
      events: scopeOf('get', '/events'),
      authConfigs: scopeOf('post', '/auth-configs/add'),
      accountDelete: scopeOf('post', '/v3/account/delete'),
      registerToken: scopeOf('post', '/register/token'),
      verify: scopeOf('post', '/signin/verify'),
      generateToken: scopeOf('post', '/signin/generate-token'),
      v3GenerateToken: scopeOf('post', '/v3/signin/generate-token'),
    }).toEqual({
      usersDelete: 'users',
      usersList: 'users',
      credentialsDelete: 'credentials',
      alias: 'aliases',
      features: 'features',
      magicLinks: 'magic_links',
      events: 'events',
      authConfigs: 'auth_configs',
      accountDelete: 'account_delete',
      registerToken: 'token_register',
      verify: 'token_verify',
      generateToken: 'token_generate',
      v3GenerateToken: 'token_generate',
    });
  });

  it(
    'admits a key with one scope to the routes of that scope only; every other route is 403 forbidden naming the scope it needs',
    async () => {
      const wrong: string[] = [];
      for (const operation of operations) {
        for (const scope of operation.header === 'ApiKey' ? PUBLIC_SCOPES : SECRET_SCOPES) {
          const res = await call(operation, keys.get(scope)!);
          const route = `${operation.method.toUpperCase()} ${operation.path} with a ${scope} key`;
          if (scope === operation.scope) {
            if (res.status === 401 || res.status === 403) wrong.push(`${route}: ${res.status} ${res.body.errorCode}`);
          } else if (res.status !== 403 || res.body.errorCode !== 'forbidden' || !String(res.body.detail).includes(`Required scopes: ${operation.scope}`)) {
            wrong.push(`${route}: ${res.status} ${res.body.errorCode}`);
          }
        }
      }
      expect(wrong).toEqual([]);
      // Nothing the refused requests named was done: the app is not pending deletion, and its keys are all there.
      const listed = await svc.http.get(`/admin/apps/${app.appId}/api-keys`).set('ManagementKey', MANAGEMENT_KEY);
      expect(listed.body).toHaveLength(4 + PUBLIC_SCOPES.length + SECRET_SCOPES.length);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    "gives the app's own keys every scope of their kind, and a key without scopes every route of its kind",
    async () => {
      const listed = (await svc.http.get(`/admin/apps/${app.appId}/api-keys`).set('ManagementKey', MANAGEMENT_KEY)).body as { id: string; scopes: string[] }[];
      expect(listed.find((k) => k.id === keyIdOf(app.apiSecret))?.scopes).toEqual([...SECRET_SCOPES].sort());
      expect(listed.find((k) => k.id === keyIdOf(app.apiKey))?.scopes).toEqual([...PUBLIC_SCOPES].sort());
      // A row without scopes (none is created so today; older tools might have): full access, as before scopes existed.
      const unscoped = keys.get('events')!;
      const db = new Database(svc.database.url.replace(/^file:/, ''));
      db.prepare('UPDATE "ApiKey" SET "scopes" = \'\' WHERE "tenant" = ? AND "id" = ?').run(app.appId, keyIdOf(unscoped));
      db.close();
      // The process caches key checks for five seconds: a fresh key row is what it reads next, so lock and unlock to drop the cache.
      for (const action of ['lock', 'unlock']) {
        expect((await svc.http.post(`/admin/apps/${app.appId}/api-keys/${keyIdOf(unscoped)}/${action}`).set('ManagementKey', MANAGEMENT_KEY)).status).toBe(204);
      }
      for (const operation of operations.filter((o) => o.header === 'ApiSecret')) {
        for (const key of [app.apiSecret, unscoped]) {
          const res = await call(operation, key);
          expect({ route: `${operation.method} ${operation.path}`, status: [401, 403].includes(res.status) }).toEqual({ route: `${operation.method} ${operation.path}`, status: false });
        }
      }
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'creates keys with the new scopes through the management API (by name or by index) and through the CLI',
    async () => {
      const byIndex = await createKey('secret', [SECRET_SCOPES.indexOf('users')]);
      expect((await svc.http.get('/users/count').set('ApiSecret', byIndex)).status).toBe(200);
      expectProblem(await svc.http.post('/register/token').set('ApiSecret', byIndex).send({ userId: 'u1', username: 'u1' }), 403, 'forbidden');
      const unknown = await svc.http.post(`/admin/apps/${app.appId}/secret-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes: ['everything'] });
      expectProblem(unknown, 400, 'validation_failed');

      const { stdout } = await promisify(execFile)(process.execPath, [CLI, 'apps', 'create-key', app.appId, 'secret', '--scopes', 'events,aliases'], {
        env: childEnv({ DATABASE_URL: svc.database.url, LOG_LEVEL: 'warn' }),
      });
      const created = JSON.parse(stdout) as { apiKey: string; scopes: string[] };
      expect(created.scopes).toEqual(['events', 'aliases']);
      expect((await svc.http.get('/alias/list?userId=u1').set('ApiSecret', created.apiKey)).status).toBe(200);
      expectProblem(await svc.http.post('/users/delete').set('ApiSecret', created.apiKey).send({ userId: 'u1' }), 403, 'forbidden');
    },
    PROCESS_TIMEOUT_MS,
  );
});

describe.each(providers())("the reference's keys on a service process on %s", (provider) => {
  let svc: Awaited<ReturnType<typeof startServiceProcess>>;
  let app: TestApp;
  let operations: Operation[];

  const call = (operation: Operation, key: string) => {
    const request = svc.http[operation.method](operation.path.replace(/\{(\w+)\}/g, 'x')).set(operation.header, key);
    return operation.method === 'get' ? request : request.send({});
  };
  /** A key as the reference's console and tooling make one: scopes by their enum indexes. */
  const createKey = async (kind: 'public' | 'secret', scopes: (string | number)[]) => {
    const res = await svc.http.post(`/admin/apps/${app.appId}/${kind}-keys`).set('ManagementKey', MANAGEMENT_KEY).send({ scopes });
    expect(res.status).toBe(200);
    return res.body.apiKey as string;
  };
  /** Every route of the key's kind that it is refused (401 or 403), as `METHOD path status errorCode`. */
  const refusals = async (header: Operation['header'], key: string) => {
    const refused: string[] = [];
    for (const operation of operations.filter((o) => o.header === header)) {
      const res = await call(operation, key);
      if (res.status === 401 || res.status === 403) refused.push(`${operation.method.toUpperCase()} ${operation.path} ${res.status} ${res.body.errorCode}`);
    }
    return refused;
  };

  let database: TestDatabase | undefined;
  beforeAll(async () => {
    // SQLite: a fresh file the process owns; PostgreSQL: a database of this suite's own.
    database = provider === 'postgresql' ? await createTestDatabase('postgresql') : undefined;
    svc = await startServiceProcess({ MAGIC_LINK_NEW_APP_PERIOD: '00:00:00' }, database);
    app = await svc.createApp();
    operations = keyOperations((await svc.http.get('/openapi.json')).body);
  }, PROCESS_TIMEOUT_MS);
  afterAll(async () => {
    await svc?.stop();
    await database?.drop();
  }, PROCESS_TIMEOUT_MS);

  it(
    "admits a secret made with the reference's scopes [token_register, token_verify] (by index or by name) to every private route, as the reference does: it lists credentials",
    async () => {
      for (const scopes of [[0, 1], ['token_verify', 'token_register']]) {
        const secret = await createKey('secret', scopes);
        // It registers a passkey (register/token), and lists it: /credentials/list was 403 for such a key.
        const { userId, complete } = await registerPasskey(svc, { ...app, apiSecret: secret });
        expect(complete.status).toBe(200);
        const listed = await svc.http.get(`/credentials/list?userId=${userId}`).set('ApiSecret', secret);
        expect({ status: listed.status, credentials: listed.body.length }).toEqual({ status: 200, credentials: 1 });
        expect((await verifyToken(svc, { apiSecret: secret }, complete.body.token)).body).toMatchObject({ success: true, userId });
        expect(await refusals('ApiSecret', secret)).toEqual([]);
      }
      const publicKey = await createKey('public', [1, 0]);
      expect(await refusals('ApiKey', publicKey)).toEqual([]);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    'refuses signin/generate-token (403 forbidden, token_generate) to a verify-only secret, which still verifies; a token_generate key mints',
    async () => {
      const verifyOnly = await createKey('secret', [1]);
      const minted = await svc.http.post('/signin/generate-token').set('ApiSecret', verifyOnly).send({ userId: 'victim' });
      expectProblem(minted, 403, 'forbidden');
      expect(minted.body.detail).toContain('Required scopes: token_generate');
      expect(minted.body.token).toBeUndefined();
      expectProblem(await svc.http.post('/v3/signin/generate-token').set('ApiSecret', verifyOnly).send({ userId: 'victim' }), 403, 'forbidden');

      const minter = await createKey('secret', ['token_generate']);
      const token = await svc.http.post('/signin/generate-token').set('ApiSecret', minter).send({ userId: 'u1' });
      expect(token.status).toBe(200);
      // The verify-only key verifies what another key minted, and nothing else it may do.
      expect((await verifyToken(svc, { apiSecret: verifyOnly }, token.body.token)).body).toMatchObject({ success: true, userId: 'u1' });
      expectProblem(await verifyToken(svc, { apiSecret: minter }, token.body.token), 403, 'forbidden');
      // The app's own keys have every scope, the new one too.
      expect((await svc.http.post('/signin/generate-token').set('ApiSecret', app.apiSecret).send({ userId: 'u2' })).status).toBe(200);
    },
    PROCESS_TIMEOUT_MS,
  );

  it(
    "keeps a strict subset of the reference's scopes, or any set with one of our own, to least privilege",
    async () => {
      const everyOther = (allowed: string[]) =>
        operations
          .filter((o) => o.header === 'ApiSecret' && !allowed.includes(o.scope ?? ''))
          .map((o) => `${o.method.toUpperCase()} ${o.path} 403 forbidden`)
          .sort();
      const registerOnly = await createKey('secret', [0]);
      expect((await refusals('ApiSecret', registerOnly)).sort()).toEqual(everyOther(['token_register']));
      expectProblem(await svc.http.get('/credentials/list?userId=u1').set('ApiSecret', registerOnly), 403, 'forbidden');
      const withOwn = await createKey('secret', ['token_register', 'token_verify', 'users']);
      expect((await refusals('ApiSecret', withOwn)).sort()).toEqual(everyOther(['token_register', 'token_verify', 'users']));
      const loginOnly = await createKey('public', [1]);
      expectProblem(await svc.http.post('/register/begin').set('ApiKey', loginOnly).send({}), 403, 'forbidden');
    },
    PROCESS_TIMEOUT_MS,
  );
});
