/**
 * `pwlconsole`, the console's own app, is reserved (issue 44, finding 5), against real service
 * processes and the real CLI: every management route that takes an app id refuses it, and so do
 * the apps and webhooks commands; on a database an older version wrote, the console takes over its
 * own older app (its keys, derivable from the database, replaced; its operators kept) and refuses
 * one someone else made (one log line; `console reset` removes it).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Database from 'better-sqlite3';
import supertest from 'supertest';
import { createApp } from '../../src/server/app';
import { deriveConsoleKeys } from '../../src/server/console/consoleKeys';
import { loadConfig } from '../../src/server/core/config';
import { createLogger } from '../../src/server/core/logger';
import { CONSOLE_APP_ID } from '../../src/server/core/reservedAppId';
import { createServices } from '../../src/server/services';
import { PUBLIC_SCOPES, type Scope } from '../../src/server/services/apps/apiKeys';
import { openStore } from '../../src/server/store';
import { registerPasskey } from '../support/ceremonies';
import { consoleSignIn } from '../support/consoleSession';
import { expectProblem } from '../support/http';
import { CLI, childEnv, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import type { SoftCredential } from '../support/softwareAuthenticator';
import { createTestDatabase, MANAGEMENT_KEY, type TestDatabase } from '../support/testService';

jest.setTimeout(120_000);

const run = promisify(execFile);
const OPERATOR = 'owner@example.com';
/** The secret key's scopes the console's middleware had before this version. */
const OLD_MIDDLEWARE_SCOPES: Scope[] = ['token_register', 'token_verify', 'users', 'credentials', 'aliases', 'magic_links', 'token_generate'];

/** The CLI on `database`: its exit code and output, whether or not it failed. */
async function cli(database: TestDatabase, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [CLI, ...args], { env: childEnv({ DATABASE_URL: database.url, PUBLIC_URL: 'http://localhost:7001', MANAGEMENT_KEY, LOG_LEVEL: 'warn' }) });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * `pwlconsole` as a version before this one left it, written in process through the services (which,
 * unlike the API and the CLI now, take the id): `legacy`, the console's own (its random keys
 * replaced by keys derived from its decoy key, as that version's console did); otherwise planted
 * (`apps create pwlconsole`, its four random keys). Either way an operator registered with the
 * app's keys. Answers the app's secret and the operator's passkey.
 */
async function olderDatabase(database: TestDatabase, kind: 'legacy' | 'planted'): Promise<{ apiSecret: string; credential: SoftCredential }> {
  const config = loadConfig({ DATABASE_URL: database.url, LOG_LEVEL: 'silent', MAIL_FILE: join(database.url.replace(/^file:/, ''), '..', 'mail.md') });
  const store = openStore(config.databaseUrl);
  await store.migrate();
  const services = createServices(config, store, { reportSweepIntervalMs: 0, metadataRefreshIntervalMs: 0, webhooks: { pollIntervalMs: 0 } });
  try {
    const created = await services.apps.create(CONSOLE_APP_ID, { adminEmail: OPERATOR, plan: 'enterprise', eventLoggingIsEnabled: true, eventLoggingRetentionPeriod: 365 }, kind === 'legacy' ? 'console' : undefined);
    let keys = { apiKey: created.apiKey1, apiSecret: created.apiSecret1 };
    if (kind === 'legacy') {
      for (const key of await services.apps.listKeys(CONSOLE_APP_ID)) await services.apps.deleteKey(CONSOLE_APP_ID, key.id, 'console');
      keys = deriveConsoleKeys(CONSOLE_APP_ID, await services.tokens.decoyKeyOf(CONSOLE_APP_ID));
      await services.apps.adoptKey(CONSOLE_APP_ID, keys.apiKey, PUBLIC_SCOPES);
      await services.apps.adoptKey(CONSOLE_APP_ID, keys.apiSecret, OLD_MIDDLEWARE_SCOPES);
    }
    const http = supertest(createApp(services, createLogger('silent')));
    const { credential, complete } = await registerPasskey({ http }, { appId: CONSOLE_APP_ID, apiKey2: '', apiSecret2: '', ...keys }, {
      userId: 'operator-1', username: OPERATOR, aliases: [OPERATOR], aliasHashing: false, discoverable: true, origin: 'http://localhost', rpId: 'localhost',
    });
    expect(complete.status).toBe(200);
    return { apiSecret: keys.apiSecret, credential };
  } finally {
    await services.close();
  }
}

const reservedMark = (database: TestDatabase) => {
  const db = new Database(database.url.replace(/^file:/, ''), { readonly: true });
  try {
    return (db.prepare('SELECT "reserved" FROM "App" WHERE "id" = ?').get(CONSOLE_APP_ID) as { reserved: number } | undefined)?.reserved;
  } finally {
    db.close();
  }
};

describe("an older version's console app, and the reserved id", () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let legacy: Awaited<ReturnType<typeof olderDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    legacy = await olderDatabase(database, 'legacy');
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}' }, database);
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('takes the app over at start: the keys derived from the database stop working, its operator signs in', async () => {
    expect((await service.http.get('/users/list').set('ApiSecret', legacy.apiSecret)).status).toBe(401);
    expect(reservedMark(database)).toBe(1);
    const origin = `http://localhost:${new URL(service.url).port}`;
    const signedIn = await consoleSignIn(service, origin, legacy.credential);
    expect('cookie' in signedIn && (await signedIn.get('/console/apps')).status).toBe(200);
  });

  it('refuses the id on every management route that takes one, and answers that it is not available', async () => {
    const document = (await service.http.get('/openapi.json')).body as { paths: Record<string, Record<string, { security?: Record<string, string[]>[] }>> };
    const routes = Object.entries(document.paths)
      .filter(([path]) => path.includes('{appId}'))
      .flatMap(([path, methods]) => Object.entries(methods).filter(([, operation]) => operation.security?.some((s) => 'ManagementKey' in s)).map(([method]) => ({ method: method as 'get' | 'post' | 'delete', path })));
    expect(routes.length).toBeGreaterThanOrEqual(20);
    for (const { method, path } of routes) {
      const target = path.replace('{appId}', CONSOLE_APP_ID).replace(/\{\w+\}/g, 'abcd');
      const res = await service.http[method](target).set('ManagementKey', MANAGEMENT_KEY).send(method === 'get' ? undefined : { adminEmail: 'planter@example.com', scopes: ['register'] });
      if (path.endsWith('/available')) expect({ target, status: res.status, body: res.body }).toEqual({ target, status: 200, body: { available: false } });
      else {
        expect({ target, status: res.status }).toEqual({ target, status: 403 });
        expectProblem(res, 403, 'app_id_reserved');
      }
    }
    // Without the key, the key's refusal comes first, as on every management route.
    expect((await service.http.post(`/admin/apps/${CONSOLE_APP_ID}/create`).send({ adminEmail: 'planter@example.com' })).status).toBe(401);
  });

  it('refuses the id in the apps and webhooks commands', async () => {
    for (const args of [['apps', 'create', CONSOLE_APP_ID, '--admin-email', 'planter@example.com'], ['apps', 'create-key', CONSOLE_APP_ID, 'secret'], ['webhooks', 'list', CONSOLE_APP_ID]]) {
      const result = await cli(database, args);
      expect({ args, code: result.code, stderr: result.stderr }).toEqual({ args, code: 1, stderr: expect.stringContaining('This app id is reserved.') });
    }
  });
});

describe('a pwlconsole someone else made', () => {
  let database: TestDatabase;
  let service: ServiceProcess;
  let planted: Awaited<ReturnType<typeof olderDatabase>>;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    planted = await olderDatabase(database, 'planted');
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}' }, database);
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
  });

  it('stops the console with one log line saying what was found and what to do, until `console reset` removes it', async () => {
    const refused = await service.http.get('/console/sign-in');
    expect(refused.status).toBe(503);
    // One line, at start (a request checks again without repeating it).
    const lines = service.output().split('\n').filter((line) => line.includes('the operator console does not start'));
    expect(lines).toEqual([expect.stringMatching(/"msg":"the operator console does not start: an app 'pwlconsole' exists that the console did not make \(it has keys the console did not make \(ids [0-9a-f, ]+\)\).*console reset/)]);
    // Nor does the CLI hand out an invite to it.
    const invite = await cli(database, ['console', 'invite', 'newcomer@example.com']);
    expect({ code: invite.code, stderr: invite.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('console reset') });
    expect(reservedMark(database)).toBe(0);

    const reset = await cli(database, ['console', 'reset']);
    expect(reset.code).toBe(0);
    expect((await service.http.get('/users/list').set('ApiSecret', planted.apiSecret)).status).toBe(401);
    // The next request makes the console's own app, marked as such.
    expect((await service.http.get('/console/sign-in')).status).toBe(200);
    expect(reservedMark(database)).toBe(1);
  });
});
