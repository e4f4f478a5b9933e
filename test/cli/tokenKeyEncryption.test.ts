/**
 * TOKEN_KEY_ENCRYPTION_KEY on service processes: token keys are stored wrapped, so a copy of the
 * database without the key cannot mint a token the real service accepts; an existing database's
 * plain keys keep working and are wrapped by `token-keys rewrap`; the key-encryption key rotates,
 * and webhook secrets move to the new key with the token keys.
 */
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import Database from 'better-sqlite3';
import { parseKeyEncryptionKey } from '../../src/server/core/parseKeyEncryptionKey';
import { outputOf } from '../support/childProcess';
import { eventually } from '../support/eventually';
import { CLI, childEnv, ensureBuilt, startServiceProcess } from '../support/serviceProcess';
import { createTestDatabase, type TestApp, type TestDatabase } from '../support/testService';
import { startWebhookReceiver, verifyWebhook, type WebhookReceiver } from '../support/webhookReceiver';
import { givenUsers } from '../support/webhookUsers';

const PROCESS_TIMEOUT_MS = 180_000;
const newKek = () => randomBytes(32).toString('base64url');

/** A process of the CLI on `database` with `env`; resolves with its exit code and output. */
function runCli(args: string[], database: TestDatabase, env: Record<string, string>) {
  return outputOf(spawn(process.execPath, [CLI, ...args], { env: childEnv({ DATABASE_URL: database.url, LOG_LEVEL: 'warn', ...env }) }));
}

const fileOf = (database: TestDatabase) => database.url.replace(/^file:/, '');
const storedKeys = (database: TestDatabase) => {
  const db = new Database(fileOf(database), { readonly: true });
  try {
    return db.prepare('SELECT "tenant", "keyId", "keyMaterial" FROM "TokenKey"').all() as { tenant: string; keyId: number; keyMaterial: string }[];
  } finally {
    db.close();
  }
};
/** The stored webhook secrets, current and previous, of every endpoint. */
const storedWebhookSecrets = (database: TestDatabase) => {
  const db = new Database(fileOf(database), { readonly: true });
  try {
    return (db.prepare('SELECT "secret", "previousSecret" FROM "WebhookEndpoint"').all() as { secret: string; previousSecret: string | null }[]).flatMap((row) => [row.secret, row.previousSecret]);
  } finally {
    db.close();
  }
};
/** What a local webhook receiver needs of the service: plain http to loopback, allowed as a destination. */
const LOOPBACK_ALLOWED = { WEBHOOK_ALLOW_INSECURE: 'true', WEBHOOK_ALLOW_PRIVATE_NETWORKS: '127.0.0.1/32' };

const generateToken = async (svc: { http: Awaited<ReturnType<typeof startServiceProcess>>['http'] }, secret: string, userId: string) => {
  const res = await svc.http.post('/signin/generate-token').set('ApiSecret', secret).send({ userId });
  expect(res.status).toBe(200);
  return res.body.token as string;
};
const verify = (svc: { http: Awaited<ReturnType<typeof startServiceProcess>>['http'] }, app: TestApp, token: string) =>
  svc.http.post('/signin/verify').set('ApiSecret', app.apiSecret).send({ token });

beforeAll(() => ensureBuilt(), PROCESS_TIMEOUT_MS);

describe('a database copied without TOKEN_KEY_ENCRYPTION_KEY', () => {
  let original: TestDatabase;
  let copy: TestDatabase;
  beforeEach(async () => {
    original = await createTestDatabase('sqlite');
    copy = await createTestDatabase('sqlite');
  });
  afterEach(async () => {
    await original.drop();
    await copy.drop();
  });

  it(
    'cannot mint a token that the service verifies',
    async () => {
      const kek = newKek();
      const service = await startServiceProcess({ TOKEN_KEY_ENCRYPTION_KEY: kek }, original);
      try {
        const app = await service.createApp();
        expect((await verify(service, app, await generateToken(service, app.apiSecret, 'victim'))).body).toMatchObject({ success: true, userId: 'victim' });
        // What is stored is wrapped: no row holds key material a reader could use.
        const rows = storedKeys(original);
        expect(rows.length).toBeGreaterThan(0);
        for (const row of rows) expect(row.keyMaterial).toMatch(/^kek1:[0-9a-f]{8}:[A-Za-z0-9_-]+$/);

        // The thief's copy (a consistent snapshot of the live file), with a secret of their own for the app.
        const source = new Database(fileOf(original));
        source.exec(`VACUUM INTO '${fileOf(copy).replace(/'/g, "''")}'`);
        source.close();
        const thiefSecret = `${app.appId}:secret:${randomBytes(16).toString('hex')}`;
        const db = new Database(fileOf(copy));
        db.prepare('INSERT INTO "ApiKey" ("tenant", "id", "kind", "keyHash", "scopes") VALUES (?, ?, \'secret\', ?, \'\')').run(app.appId, thiefSecret.slice(-4), createHash('sha256').update(thiefSecret).digest('hex'));
        db.close();

        // The service refuses to run on the copy without the key, or with another one, and says which variable.
        for (const env of [{}, { TOKEN_KEY_ENCRYPTION_KEY: newKek() }] as Record<string, string>[]) {
          const refused = await runCli(['serve'], copy, { PORT: '1', ...env });
          expect({ code: refused.code, stderr: refused.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('TOKEN_KEY_ENCRYPTION_KEY') });
          expect(refused.stderr).not.toContain(kek);
        }
        // Without the wrapped keys it runs, makes a key of its own, and mints: the real service refuses what it mints.
        const emptied = new Database(fileOf(copy));
        emptied.exec('DELETE FROM "TokenKey"');
        emptied.close();
        const thief = await startServiceProcess({}, copy);
        try {
          const forged = await generateToken(thief, thiefSecret, 'victim');
          const refused = await verify(service, app, forged);
          expect({ status: refused.status, errorCode: refused.body.errorCode }).toEqual({ status: 400, errorCode: 'invalid_token' });
        } finally {
          await thief.stop();
        }
      } finally {
        await service.stop();
      }
    },
    PROCESS_TIMEOUT_MS,
  );
});

describe('turning TOKEN_KEY_ENCRYPTION_KEY on for an existing database, and rotating it', () => {
  let database: TestDatabase;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    receiver = await startWebhookReceiver();
  });
  afterAll(async () => {
    await receiver.close();
    await database.drop();
  });

  it(
    'keeps plain keys and webhook secrets working, wraps them with token-keys rewrap, and moves them to a new key-encryption key',
    async () => {
      // An existing database: keys and a webhook secret stored plain.
      let service = await startServiceProcess(LOOPBACK_ALLOWED, database);
      const app = await service.createApp();
      const oldToken = await generateToken(service, app.apiSecret, 'u1');
      const endpoint = await service.http.post('/webhooks/create').set('ApiSecret', app.apiSecret).send({ url: receiver.url('/in'), eventTypes: ['user.deleted'] });
      expect(endpoint.status).toBe(201);
      await service.stop();
      expect(storedKeys(database).every((row) => !row.keyMaterial.startsWith('kek1:'))).toBe(true);
      expect(storedWebhookSecrets(database)).toEqual([endpoint.body.secret, null]);

      // The key set: tokens signed before still verify, before and after the rewrap. The webhook's
      // secret is rotated under it: the new one is sealed, the one before stays plain until the rewrap.
      const first = newKek();
      service = await startServiceProcess({ ...LOOPBACK_ALLOWED, TOKEN_KEY_ENCRYPTION_KEY: first }, database);
      const laterToken = await generateToken(service, app.apiSecret, 'u2');
      const rotated = await service.http.post('/webhooks/rotate-secret').set('ApiSecret', app.apiSecret).send({ id: endpoint.body.id });
      expect(rotated.status).toBe(200);
      await service.stop();
      const rewrap = await runCli(['token-keys', 'rewrap'], database, { TOKEN_KEY_ENCRYPTION_KEY: first });
      expect(rewrap.code).toBe(0);
      expect(JSON.parse(rewrap.stdout)).toMatchObject({ rewrapped: 1, unreadable: [], webhookSecrets: { rewrapped: 1, unchanged: 1, cleared: 0, unreadable: [] } });
      expect(storedKeys(database).every((row) => row.keyMaterial.startsWith('kek1:'))).toBe(true);
      const sealedWith = (kek: string) => expect.stringMatching(new RegExp(`^kek1:${parseKeyEncryptionKey(kek)!.id}:`));
      expect(storedWebhookSecrets(database)).toEqual([sealedWith(first), sealedWith(first)]);

      // Rotation: the new key current, the old one previous; rewrap; then the old one can go.
      const second = newKek();
      const rotate = await runCli(['token-keys', 'rewrap'], database, { TOKEN_KEY_ENCRYPTION_KEY: second, TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS: first });
      expect(JSON.parse(rotate.stdout)).toMatchObject({ rewrapped: 1, unchanged: 0, unreadable: [], webhookSecrets: { rewrapped: 2, unchanged: 0, unreadable: [] } });
      const again = await runCli(['token-keys', 'rewrap'], database, { TOKEN_KEY_ENCRYPTION_KEY: second });
      expect(JSON.parse(again.stdout)).toEqual({ rewrapped: 0, unchanged: 1, unreadable: [], webhookSecrets: { rewrapped: 0, unchanged: 2, cleared: 0, unreadable: [] } });
      expect(storedWebhookSecrets(database)).toEqual([sealedWith(second), sealedWith(second)]);
      service = await startServiceProcess({ ...LOOPBACK_ALLOWED, TOKEN_KEY_ENCRYPTION_KEY: second }, database);
      try {
        for (const [token, userId] of [
          [oldToken, 'u1'],
          [laterToken, 'u2'],
        ]) {
          expect((await verify(service, app, token)).body).toMatchObject({ success: true, userId });
        }
        // Without the first key the endpoint still signs with both of its secrets, each verifying.
        await givenUsers(service.http, app.apiSecret, ['u1']);
        expect((await service.http.post('/users/delete').set('ApiSecret', app.apiSecret).send({ userId: 'u1' })).status).toBe(204);
        const webhook = await eventually('the user.deleted webhook', () => receiver.received[0]);
        expect(webhook.signatures).toHaveLength(2);
        for (const [signature, secret] of [
          [webhook.signatures[0], rotated.body.secret],
          [webhook.signatures[1], endpoint.body.secret],
        ]) {
          expect(verifyWebhook({ ...webhook, headers: { ...webhook.headers, 'webhook-signature': signature } }, secret)).toEqual({ type: 'user.deleted', timestamp: expect.any(String), data: { userId: 'u1' } });
        }
      } finally {
        await service.stop();
      }
      // The retired key no longer opens them: the service says so rather than failing every token.
      const retired = await runCli(['serve'], database, { PORT: '1', TOKEN_KEY_ENCRYPTION_KEY: first });
      expect({ code: retired.code, stderr: retired.stderr }).toEqual({ code: 1, stderr: expect.stringContaining('TOKEN_KEY_ENCRYPTION_KEY') });
      expect(existsSync(fileOf(database))).toBe(true);
    },
    PROCESS_TIMEOUT_MS,
  );
});
