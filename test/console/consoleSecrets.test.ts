/**
 * The console's keys and cookie secret come from TOKEN_KEY_ENCRYPTION_KEY, never from the database
 * (issue 44, finding 1): against real service processes, a copy of the database (a consistent
 * snapshot of the live file, as a backup is) yields no ApiSecret of the console's app and no
 * session cookie: the older derivation from `App.decoyKey`, and every other value the copy holds
 * about the console's app, are refused. The console's own keys keep working across a rotation of
 * the key (the previous key's still accepted, for replicas still on it) and a restart after it
 * (the previous key's then gone); with Redis, a session survives both.
 */
import { spawn } from 'node:child_process';
import { createHmac, randomBytes } from 'node:crypto';
import Database from 'better-sqlite3';
import { deriveConsoleKeys } from '../../src/server/console/consoleKeys';
import { consoleSecretOf } from '../../src/server/console/consoleSecrets';
import { CONSOLE_APP_ID } from '../../src/server/core/reservedAppId';
import { parseKeyEncryptionKey } from '../../src/server/core/parseKeyEncryptionKey';
import { consoleSession, consoleSignIn, type ConsoleSession } from '../support/consoleSession';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';
import { outputOf } from '../support/childProcess';
import { CLI, childEnv, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, type TestDatabase } from '../support/testService';

jest.setTimeout(120_000);

const newKek = () => randomBytes(32).toString('base64url');
const fileOf = (database: TestDatabase) => database.url.replace(/^file:/, '');

/** express-session's signed cookie value (`s:<sid>.<HMAC-SHA256, base64 without padding>`), as a Cookie header. */
const signedCookie = (sid: string, secret: string) => `console=${encodeURIComponent(`s:${sid}.${createHmac('sha256', secret).update(sid).digest('base64').replace(/=+$/, '')}`)}`;
const sidOf = (cookie: string) => decodeURIComponent(cookie.slice('console='.length)).replace(/^s:/, '').replace(/\.[^.]*$/, '');

/** The console's current ApiSecret of a key-encryption key, as the service derives it. */
const secretOfKek = (kek: string) => deriveConsoleKeys(CONSOLE_APP_ID, consoleSecretOf(parseKeyEncryptionKey(kek)!)).apiSecret;

/** What a private-API call with `secret` answers: 200 lists the operators. */
const usersWith = async (service: ServiceProcess, secret: string) => (await service.http.get('/users/list').set('ApiSecret', secret)).status;

/** Whether a cookie is an operator's session: the apps page (200), or sent to sign in (303). */
const pageWith = async (service: ServiceProcess, cookie: string) => (await service.http.get('/console/apps').set('Cookie', cookie)).status;

describe('the console with TOKEN_KEY_ENCRYPTION_KEY, and a copy of its database', () => {
  let database: TestDatabase;
  let copy: TestDatabase;
  let service: (ServiceProcess & { database: TestDatabase }) | undefined;
  const redisUrl = testRedisUrl();
  const redisPrefix = uniqueRedisPrefix();
  const redisEnv: Record<string, string> = redisUrl ? { REDIS_URL: redisUrl, REDIS_KEY_PREFIX: redisPrefix } : {};

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    copy = await createTestDatabase('sqlite');
  });

  afterAll(async () => {
    await service?.stop();
    await database?.drop();
    await copy?.drop();
    if (redisUrl) await dropRedisKeys(redisUrl, redisPrefix);
  });

  const start = async (env: Record<string, string>) => {
    service = await startServiceProcess({ PUBLIC_URL: 'http://localhost:{port}', ...redisEnv, ...env }, database);
    return { running: service, origin: `http://localhost:${new URL(service.url).port}` };
  };
  const signIn = async (running: ServiceProcess, origin: string, operator: ConsoleSession) => {
    const session = await consoleSignIn(running, origin, operator.credential);
    if (!('cookie' in session)) throw new Error(`the operator's passkey no longer signs in: ${session.status} ${session.text}`);
    expect(await pageWith(running, session.cookie)).toBe(200);
    return session;
  };

  it('opens nothing from the copy, and keeps the console working across a rotation of the key and a restart', async () => {
    const first = newKek();
    const second = newKek();

    const s1 = await start({ TOKEN_KEY_ENCRYPTION_KEY: first });
    const operator = await consoleSession(s1.running, s1.origin, 'owner@example.com', { TOKEN_KEY_ENCRYPTION_KEY: first });
    expect(await pageWith(s1.running, operator.cookie)).toBe(200);

    // The thief's copy, taken while the console runs.
    const live = new Database(fileOf(database));
    live.exec(`VACUUM INTO '${fileOf(copy).replace(/'/g, "''")}'`);
    live.close();
    const stolen = new Database(fileOf(copy), { readonly: true });
    const appRow = stolen.prepare('SELECT * FROM "App" WHERE "id" = ?').get(CONSOLE_APP_ID) as Record<string, unknown>;
    const tokenKeys = (stolen.prepare('SELECT "keyMaterial" FROM "TokenKey" WHERE "tenant" = ?').all(CONSOLE_APP_ID) as { keyMaterial: string }[]).map((row) => row.keyMaterial);
    stolen.close();
    const decoy = Buffer.from(String(appRow.decoyKey), 'hex');
    expect(decoy).toHaveLength(32);

    // What versions before this one derived from the decoy key: the ApiSecret, and the cookie secret signing the operator's own session id.
    const oldSecret = deriveConsoleKeys(CONSOLE_APP_ID, decoy).apiSecret;
    const oldCookieSecret = createHmac('sha256', decoy).update('console session cookie').digest('base64url');
    expect(await usersWith(s1.running, oldSecret)).toBe(401);
    expect(await pageWith(s1.running, signedCookie(sidOf(operator.cookie), oldCookieSecret))).toBe(303);
    // Nor any other value the copy holds about the console's app, read as a seed either way.
    const seeds = [...Object.values(appRow), ...tokenKeys].filter((value): value is string => typeof value === 'string' && value.length > 0);
    const candidates = new Set(seeds.flatMap((seed) => [Buffer.from(seed), ...(/^[0-9a-f]+$/.test(seed) ? [Buffer.from(seed, 'hex')] : [])]).map((seed) => deriveConsoleKeys(CONSOLE_APP_ID, seed).apiSecret));
    for (const candidate of candidates) expect({ candidate, status: await usersWith(s1.running, candidate) }).toEqual({ candidate, status: 401 });
    // The console's own key: derived from the key-encryption key, which the copy does not hold.
    expect(await usersWith(s1.running, secretOfKek(first))).toBe(200);
    await s1.running.stop();

    // A rotation: the new key derives the keys the console uses, the previous key's still work (replicas still on it), a session signed under it still opens.
    const s2 = await start({ TOKEN_KEY_ENCRYPTION_KEY: second, TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS: first });
    const rotated = await signIn(s2.running, s2.origin, operator);
    expect(await usersWith(s2.running, secretOfKek(second))).toBe(200);
    expect(await usersWith(s2.running, secretOfKek(first))).toBe(200);
    expect(await usersWith(s2.running, oldSecret)).toBe(401);
    if (redisUrl) expect(await pageWith(s2.running, operator.cookie)).toBe(200);
    await s2.running.stop();

    // The rotation done (`token-keys rewrap` moves the token keys to the new key), a restart with the new key alone: the previous key's keys are gone, the console works on.
    const rewrap = await outputOf(spawn(process.execPath, [CLI, 'token-keys', 'rewrap'], { env: childEnv({ DATABASE_URL: database.url, TOKEN_KEY_ENCRYPTION_KEY: second, TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS: first, LOG_LEVEL: 'warn' }) }));
    expect(rewrap.code).toBe(0);
    const s3 = await start({ TOKEN_KEY_ENCRYPTION_KEY: second });
    await signIn(s3.running, s3.origin, operator);
    expect(await usersWith(s3.running, secretOfKek(second))).toBe(200);
    expect(await usersWith(s3.running, secretOfKek(first))).toBe(401);
    expect(await usersWith(s3.running, oldSecret)).toBe(401);
    if (redisUrl) {
      // A session the rotation's replica signed with the new key opens after the restart; one signed only with the previous key does not.
      expect(await pageWith(s3.running, rotated.cookie)).toBe(200);
      expect(await pageWith(s3.running, operator.cookie)).toBe(303);
    }
  });
});
