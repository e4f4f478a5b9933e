import { outputOf, type ChildResult } from '../support/childProcess';
import { spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { Client } from 'pg';
import ts from 'typescript';
import { Prisma as SqlitePrisma } from '../../src/server/store/generated/sqlite/client';
import { Prisma as PostgresPrisma } from '../../src/server/store/generated/postgresql/client';
import { isForeignKeyViolation } from '../../src/server/core/storeErrors';
import { openStore, sqliteFilename, type Db, type Store } from '../../src/server/store';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { loadMigrations, MIGRATION_LEDGER, migratePostgres, migrateSqlite, type Migration, type Provider } from '../../src/server/store/migrate';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const ROOT = join(__dirname, '..', '..');
const TMP = join(ROOT, '.test-tmp');
const INIT = '20261122000000_init';
/** Every committed migration, in order (the same names for both providers). */
const ALL = loadMigrations('sqlite').map((m) => m.name);

/** Runs the provider's migrator directly, with an explicit list of migrations. */
async function migrateWith(provider: Provider, url: string, migrations: Migration[]): Promise<string[]> {
  return provider === 'sqlite' ? migrateSqlite(sqliteFilename(url), migrations) : migratePostgres(url, migrations);
}

const withChecksum = (name: string, sql: string): Migration => ({ name, sql, checksum: createHash('sha256').update(sql).digest('hex') });

// ---------------------------------------------------------------------------------------------
// Concurrency: PostgreSQL starts race inside one process; SQLite's migrator is synchronous, so two
// replicas are two processes, each running the real migrate.ts (transpiled once for the children).


function runNode(script: string, env: Record<string, string>): Promise<ChildResult> {
  return outputOf(spawn(process.execPath, ['-e', script], { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env } }));
}

/** migrate.ts (and the connection setup it imports) as CommonJS plus the committed SQLite migrations, for child processes to load. */
function prepareSqliteMigrator(): { module: string; migrations: string; cleanup(): void } {
  const dir = join(TMP, `migrator-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { recursive: true });
  for (const name of ['migrate', 'sqlite']) {
    const source = readFileSync(join(ROOT, 'src', 'server', 'store', `${name}.ts`), 'utf8');
    const { outputText } = ts.transpileModule(source, {
      compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true },
    });
    writeFileSync(join(dir, `${name}.js`), outputText);
  }
  writeFileSync(join(dir, 'migrations.json'), JSON.stringify(loadMigrations('sqlite')));
  return { module: join(dir, 'migrate.js'), migrations: join(dir, 'migrations.json'), cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

const CHILD_MIGRATE = `
  const { migrateSqlite } = require(process.env.MIGRATOR);
  const migrations = require(process.env.MIGRATIONS);
  process.stdout.write(JSON.stringify(migrateSqlite(process.env.DB_FILE, migrations)));
`;

async function migrateTwiceAtOnce(provider: Provider, url: string): Promise<string[][]> {
  if (provider === 'postgresql') return Promise.all([migratePostgres(url), migratePostgres(url)]);
  const migrator = prepareSqliteMigrator();
  try {
    const env = { MIGRATOR: migrator.module, MIGRATIONS: migrator.migrations, DB_FILE: sqliteFilename(url) };
    const results = await Promise.all([runNode(CHILD_MIGRATE, env), runNode(CHILD_MIGRATE, env)]);
    for (const result of results) expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
    return results.map((result) => JSON.parse(result.stdout) as string[]);
  } finally {
    migrator.cleanup();
  }
}

// ---------------------------------------------------------------------------------------------
// What the migrated database holds, read without Prisma.

async function queryPostgres<T>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as T[];
  } finally {
    await client.end();
  }
}

function querySqlite<T>(url: string, sql: string): T[] {
  const db = new Database(sqliteFilename(url), { readonly: true });
  try {
    return db.prepare(sql).all() as T[];
  } finally {
    db.close();
  }
}

/** Runs statements on the database directly, past the store, as an older version of the service would have written. */
async function execute(provider: Provider, url: string, statements: string[]): Promise<void> {
  if (provider === 'postgresql') {
    for (const sql of statements) await queryPostgres(url, sql);
    return;
  }
  const db = new Database(sqliteFilename(url));
  try {
    for (const sql of statements) db.exec(sql);
  } finally {
    db.close();
  }
}

async function tableNames(provider: Provider, url: string): Promise<string[]> {
  const rows =
    provider === 'sqlite'
      ? querySqlite<{ name: string }>(url, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")
      : await queryPostgres<{ name: string }>(url, "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public'");
  return rows.map((r) => r.name).sort();
}

async function columnNames(provider: Provider, url: string, table: string): Promise<string[]> {
  const rows =
    provider === 'sqlite'
      ? querySqlite<{ name: string }>(url, `SELECT name FROM pragma_table_info('${table}')`)
      : await queryPostgres<{ name: string }>(url, "SELECT column_name AS name FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1", [table]);
  return rows.map((r) => r.name).sort();
}

// ---------------------------------------------------------------------------------------------
// One row per model with every field set (nothing left to a default), to round-trip through the
// Prisma client. `nullable` lists the optional fields, which a second row sets to null.

const T1 = new Date('2026-11-22T10:11:12.345Z');
const T2 = new Date('2027-01-02T03:04:05.678Z');
const T3 = new Date('2025-06-07T08:09:10.011Z');

interface ModelCase {
  model: keyof typeof SqlitePrisma.ModelName;
  row(k: string): Record<string, unknown>;
  key(row: Record<string, unknown>): Record<string, unknown>;
  nullable: string[];
  /** A row of another model this one's foreign key needs, made first (by the same k). */
  parent?: { model: ModelCase['model']; row(k: string): Record<string, unknown> };
}

const byId = (row: Record<string, unknown>) => ({ id: row.id });

const MODELS: ModelCase[] = [
  {
    model: 'App',
    row: (k) => ({
      id: `app${k}`,
      adminEmail: 'owner@example.com',
      plan: 'enterprise',
      createdAt: T1,
      incarnation: `inc${k}`,
      frozen: true,
      deleteAt: T2,
      keysFreezeAt: T3,
      keysFrozenForDeletion: true,
      deletionNonce: 'n'.repeat(43),
      eventLoggingIsEnabled: true,
      eventLoggingRetentionPeriod: 90,
      magicLinkEmailMonthlyQuota: 2147483647,
      maxUsers: 123456,
      allowAttestation: true,
      isGenerateSignInTokenEndpointEnabled: false,
      isMagicLinksEnabled: false,
      allowedOrigins: '["https://shop.example.com","android:apk-key-hash:abc"]',
      sdkCompatibleLists: true,
      decoyKey: 'd'.repeat(64),
      reserved: true,
    }),
    key: byId,
    nullable: ['deleteAt', 'keysFreezeAt', 'deletionNonce', 'maxUsers', 'sdkCompatibleLists'],
  },
  {
    model: 'ApiKey',
    row: (k) => ({
      tenant: `app${k}`,
      id: 'ab12',
      kind: 'public',
      keyHash: 'f'.repeat(64),
      publicValue: `app${k}:public:${'0'.repeat(28)}ab12`,
      scopes: 'register,login',
      isLocked: true,
      lastLockedAt: T1,
      lastUnlockedAt: T2,
      createdAt: T3,
    }),
    key: (row) => ({ tenant_id: { tenant: row.tenant, id: row.id } }),
    nullable: ['publicValue', 'lastLockedAt', 'lastUnlockedAt'],
  },
  {
    model: 'TokenKey',
    row: (k) => ({ tenant: `app${k}`, keyId: 2147483647, keyMaterial: randomBytes(64).toString('base64'), createdAt: T1 }),
    key: (row) => ({ tenant_keyId: { tenant: row.tenant, keyId: row.keyId } }),
    nullable: [],
  },
  {
    model: 'Credential',
    row: (k) => ({
      tenant: `app${k}`,
      descriptorId: randomBytes(32).toString('base64url'),
      userId: 'user-ünïcödé-👩‍💻',
      userHandle: Buffer.from('user-1').toString('base64url'),
      publicKey: randomBytes(77).toString('base64url'),
      signatureCounter: 4294967295n,
      attestationFmt: 'packed',
      aaGuid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
      transports: '["internal","hybrid"]',
      rpid: 'shop.example.com',
      origin: 'https://shop.example.com',
      country: 'SE',
      device: 'Chrome, macOS',
      nickname: 'n'.repeat(64),
      backupEligible: true,
      backupState: true,
      isDiscoverable: false,
      uvInitialized: true,
      createdAt: T1,
      lastUsedAt: T2,
      lastUsedDay: 2_147_483_647,
      prfSalt: 'ab'.repeat(32),
      prfEnabled: false,
      madeByUpgrade: true,
    }),
    key: (row) => ({ tenant_descriptorId: { tenant: row.tenant, descriptorId: row.descriptorId } }),
    nullable: ['isDiscoverable', 'prfSalt', 'prfEnabled'],
  },
  {
    model: 'AppCounter',
    row: (k) => ({ tenant: `app${k}`, userCount: 2147483647, eventCount: 1000000 }),
    key: (row) => ({ tenant: row.tenant }),
    nullable: [],
  },
  {
    model: 'User',
    row: (k) => ({ tenant: `app${k}`, userId: `user-${k}-ü`, credentialsCount: 2147483647, aliasCount: 10 }),
    key: (row) => ({ tenant_userId: { tenant: row.tenant, userId: row.userId } }),
    nullable: [],
  },
  {
    model: 'Alias',
    row: (k) => ({ tenant: `app${k}`, aliasHash: randomBytes(32).toString('base64'), userId: 'user-1', plaintext: 'ålias@example.com' }),
    key: (row) => ({ tenant_aliasHash: { tenant: row.tenant, aliasHash: row.aliasHash } }),
    nullable: ['plaintext'],
  },
  {
    model: 'RedeemedToken',
    row: (k) => ({ tenant: `app${k}`, tokenId: randomBytes(16).toString('hex'), expiresAt: T2 }),
    key: (row) => ({ tenant_tokenId: { tenant: row.tenant, tokenId: row.tokenId } }),
    nullable: [],
  },
  {
    model: 'AuthConfig',
    row: (k) => ({
      tenant: `app${k}`,
      purpose: 'step-up',
      userVerificationRequirement: 'required',
      timeToLiveSeconds: 604800,
      hints: '["client-device"]',
      extensions: '{"prf":true,"largeBlob":"read"}',
      createdBy: 'creator@example.com',
      createdOn: T1,
      editedBy: 'editor@example.com',
      editedOn: T2,
      lastUsedOn: T3,
    }),
    key: (row) => ({ tenant_purpose: { tenant: row.tenant, purpose: row.purpose } }),
    nullable: ['editedBy', 'editedOn', 'lastUsedOn'],
  },
  {
    model: 'Event',
    row: (k) => ({
      id: `event-${k}`,
      tenant: `app${k}`,
      performedAt: T1,
      eventType: 'RegisterTokenCreated',
      message: 'm'.repeat(10_000),
      severity: 'Informational',
      performedBy: 'System',
      subject: 'user-1',
      apiKeyId: 'ab12',
    }),
    key: byId,
    nullable: [],
  },
  {
    model: 'DispatchedEmail',
    row: (k) => ({ id: `email-${k}`, tenant: `app${k}`, createdAt: T3 }),
    key: byId,
    nullable: [],
  },
  {
    model: 'Authenticator',
    row: (k) => ({ tenant: `app${k}`, aaGuid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', isAllowed: true, createdAt: T1 }),
    key: (row) => ({ tenant_aaGuid: { tenant: row.tenant, aaGuid: row.aaGuid } }),
    nullable: [],
  },
  {
    model: 'DailyReport',
    row: (k) => ({ tenant: `app${k}`, day: '2026-11-24', users: 2147483647, credentials: 0, dailyActiveUsers: 1, weeklyActiveUsers: 2, createdAt: T2 }),
    key: (row) => ({ tenant_day: { tenant: row.tenant, day: row.day } }),
    nullable: [],
  },
  {
    model: 'SignInCount',
    row: (k) => ({ tenant: `app${k}`, day: '2026-11-24', passkey: 2147483647, magicLink: 0, generatedToken: 7 }),
    key: (row) => ({ tenant_day: { tenant: row.tenant, day: row.day } }),
    nullable: [],
  },
  {
    model: 'WebhookEndpoint',
    row: (k) => ({
      id: `ep_${k}`,
      tenant: `app${k}`,
      url: 'https://hooks.example.com/passkeys?x=1',
      eventTypes: '["passkey.registered","signin.completed"]',
      description: 'd'.repeat(500),
      enabled: false,
      secret: `kek1:abcd1234:${'s'.repeat(80)}`,
      previousSecret: `whsec_${'p'.repeat(44)}`,
      previousSecretExpiresAt: T1,
      disabledReason: 'The receiver answered 410 Gone.',
      createdAt: T2,
    }),
    key: byId,
    nullable: ['previousSecret', 'previousSecretExpiresAt', 'disabledReason'],
  },
  {
    model: 'WebhookDelivery',
    row: (k) => ({
      id: `msg_${k}`,
      tenant: `app${k}`,
      endpointId: `ep_${k}`,
      eventType: 'passkey.registered',
      payload: '{"type":"passkey.registered","timestamp":"2026-11-22T10:11:12.345Z","data":{"userId":"ü"}}',
      createdAt: T1,
      state: 'failed',
      attempts: 2147483647,
      nextAttemptAt: T2,
      lastStatus: 503,
      lastError: 'ECONNREFUSED',
      leaseUntil: T3,
      claimedBy: 'host:123:abcd',
      webhookId: 'msg_0001',
      traceContext: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01',
    }),
    key: byId,
    nullable: ['lastStatus', 'lastError', 'leaseUntil', 'claimedBy', 'webhookId', 'traceContext'],
  },
  {
    model: 'WebhookAttempt',
    row: (k) => ({ id: `att_${k}`, tenant: `app${k}`, deliveryId: `msg_${k}`, at: T3, status: 599, error: 'no answer within 10000 ms', durationMs: 10_001 }),
    key: byId,
    nullable: ['status', 'error'],
    parent: {
      model: 'WebhookDelivery',
      row: (k) => ({ id: `msg_${k}`, tenant: `app${k}`, endpointId: `ep_${k}`, eventType: 'user.deleted', payload: '{}', createdAt: T1, nextAttemptAt: T1 }),
    },
  },
];

interface Delegate {
  create(args: { data: object }): Promise<unknown>;
  findUnique(args: { where: object }): Promise<unknown>;
  delete(args: { where: object }): Promise<unknown>;
}

const delegateOf = (db: Db, model: string) => (db as unknown as Record<string, Delegate>)[model[0].toLowerCase() + model.slice(1)];

function scalarFields(prisma: typeof SqlitePrisma | typeof PostgresPrisma, model: string): string[] {
  return Object.keys((prisma as unknown as Record<string, object>)[`${model}ScalarFieldEnum`]).sort();
}

async function roundTrip(db: Db, model: ModelCase['model'], row: Record<string, unknown>, key: Record<string, unknown>, parent?: { model: ModelCase['model']; row: Record<string, unknown> }) {
  const delegate = delegateOf(db, model);
  // Every other model's rows belong to an app that must exist.
  if (model !== 'App') await db.app.create({ data: { id: String(row.tenant), adminEmail: 'owner@example.com' } });
  if (parent) await delegateOf(db, parent.model).create({ data: parent.row });
  await delegate.create({ data: row });
  const stored = await delegate.findUnique({ where: key });
  await delegate.delete({ where: key });
  const gone = await delegate.findUnique({ where: key });
  return { stored, gone };
}

// ---------------------------------------------------------------------------------------------

describe.each(providers())('migrations on %s', (provider) => {
  let database: TestDatabase;
  let store: Store | undefined;
  beforeEach(async () => {
    database = await createTestDatabase(provider);
  });
  afterEach(async () => {
    await store?.close();
    store = undefined;
    await database.drop();
  });
  const open = () => (store = openStore(database.url));

  it('migrates a fresh database once, and records it in the ledger', async () => {
    const s = open();
    expect(await s.migrate()).toEqual(ALL);
    expect(await s.migrate()).toEqual([]);
    expect(await s.appliedMigrations()).toEqual(ALL);
    expect(await tableNames(provider, database.url)).toContain(MIGRATION_LEDGER);
  });

  it('applies a later migration on its own, after the ones already applied', async () => {
    expect(await open().migrate()).toEqual(ALL);
    const later = withChecksum('20991231000000_later', 'CREATE TABLE "LaterTable" ("id" INTEGER NOT NULL PRIMARY KEY);');
    expect(await migrateWith(provider, database.url, [...loadMigrations(provider), later])).toEqual([later.name]);
    expect(await store!.appliedMigrations()).toEqual([...ALL, later.name]);
    expect(await tableNames(provider, database.url)).toContain('LaterTable');
  });

  it('keeps existing apps and their sends when upgrading from the first migration, with retention brought into 0..90', async () => {
    const [init] = loadMigrations(provider);
    expect(await migrateWith(provider, database.url, [init])).toEqual([INIT]);
    const seed = [
      `INSERT INTO "App" ("id", "adminEmail", "eventLoggingRetentionPeriod", "magicLinkEmailMonthlyQuota") VALUES ('oldapp', 'owner@example.com', 365, 42)`,
      `INSERT INTO "App" ("id", "adminEmail", "eventLoggingRetentionPeriod") VALUES ('keptapp', 'owner@example.com', 7)`,
      `INSERT INTO "DispatchedEmail" ("id", "tenant", "userId", "emailAddress", "linkTemplate") VALUES ('sent1', 'oldapp', 'u1', 'someone@example.com', 'https://x/?t=$TOKEN')`,
    ];
    await execute(provider, database.url, seed);
    const s = open();
    expect(await s.migrate()).toEqual(ALL.slice(1));
    const apps = await s.db.app.findMany({ orderBy: { id: 'asc' }, select: { id: true, eventLoggingRetentionPeriod: true, magicLinkEmailMonthlyQuota: true } });
    expect(apps).toEqual([
      { id: 'keptapp', eventLoggingRetentionPeriod: 7, magicLinkEmailMonthlyQuota: 0 },
      { id: 'oldapp', eventLoggingRetentionPeriod: 90, magicLinkEmailMonthlyQuota: 42 },
    ]);
    expect(await s.db.dispatchedEmail.findMany({ select: { id: true, tenant: true } })).toEqual([{ id: 'sent1', tenant: 'oldapp' }]);
    expect(await columnNames(provider, database.url, 'DispatchedEmail')).toEqual(['createdAt', 'id', 'tenant']);
  });

  it("gives every existing credential the UTC day of its last use, for the active-user counts", async () => {
    const before = loadMigrations(provider).filter((m) => m.name < '20261125031000');
    await migrateWith(provider, database.url, before);
    const when = (iso: string) => (provider === 'sqlite' ? iso.replace('Z', '+00:00') : iso.replace('T', ' ').replace('Z', ''));
    const seed = [`INSERT INTO "App" ("id", "adminEmail") VALUES ('oldapp', 'owner@example.com')`];
    for (const [id, usedAt] of [['late', '2026-11-24T23:59:59.999Z'], ['early', '2026-11-25T00:00:00.000Z'], ['epoch', '1970-01-01T12:00:00.000Z']]) {
      seed.push(
        `INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "rpid", "origin", "lastUsedAt") VALUES ('oldapp', '${id}', 'u', 'dQ', 'pk', 'rp', 'o', '${when(usedAt)}')`,
      );
    }
    await execute(provider, database.url, seed);
    const s = open();
    expect(await s.migrate()).toEqual(ALL.filter((name) => name >= '20261125031000'));
    const days = await s.db.credential.findMany({ orderBy: { lastUsedAt: 'asc' }, select: { descriptorId: true, lastUsedDay: true } });
    const day = (iso: string) => Math.floor(Date.parse(iso) / 86_400_000);
    expect(days).toEqual([
      { descriptorId: 'epoch', lastUsedDay: 0 },
      { descriptorId: 'late', lastUsedDay: day('2026-11-24T12:00:00Z') },
      { descriptorId: 'early', lastUsedDay: day('2026-11-25T12:00:00Z') },
    ]);
  });

  it('gives the secret keys made before scopes on every route the access they had: every new scope for a key with both old ones, none for a key with one', async () => {
    const before = loadMigrations(provider).filter((m) => m.name < '20261125040000');
    await migrateWith(provider, database.url, before);
    const key = (id: string, kind: string, scopes: string) =>
      `INSERT INTO "ApiKey" ("tenant", "id", "kind", "keyHash", "scopes") VALUES ('oldapp', '${id}', '${kind}', 'h${id}', '${scopes}')`;
    await execute(provider, database.url, [
      `INSERT INTO "App" ("id", "adminEmail") VALUES ('oldapp', 'owner@example.com')`,
      key('aaaa', 'secret', 'token_register,token_verify'),
      key('bbbb', 'secret', 'token_verify,token_register'),
      key('cccc', 'secret', 'token_register'),
      key('dddd', 'secret', 'token_verify'),
      key('eeee', 'public', 'register,login'),
      key('ffff', 'secret', ''),
    ]);
    const s = open();
    await s.migrate();
    const scopes = Object.fromEntries((await s.db.apiKey.findMany({ select: { id: true, scopes: true } })).map((k) => [k.id, k.scopes]));
    // Each later scope migration adds its scope to the keys that had the access it takes over.
    const everything = 'token_register,token_verify,users,credentials,aliases,auth_configs,magic_links,events,features,account_delete,webhooks,token_generate';
    expect(scopes).toEqual({ aaaa: everything, bbbb: everything, cccc: 'token_register', dddd: 'token_verify,token_generate', eeee: 'register,login', ffff: '' });
  });

  it("gives every secret key that could mint sign-ins through token_verify the new token_generate, except a key with exactly the reference's two scopes", async () => {
    const before = loadMigrations(provider).filter((m) => m.name < '20261127010000');
    await migrateWith(provider, database.url, before);
    const key = (id: string, kind: string, scopes: string) =>
      `INSERT INTO "ApiKey" ("tenant", "id", "kind", "keyHash", "scopes") VALUES ('oldapp', '${id}', '${kind}', 'h${id}', '${scopes}')`;
    const everyScopeThen = 'token_register,token_verify,users,credentials,aliases,auth_configs,magic_links,events,features,account_delete,webhooks';
    await execute(provider, database.url, [
      `INSERT INTO "App" ("id", "adminEmail") VALUES ('oldapp', 'owner@example.com')`,
      key('aaaa', 'secret', everyScopeThen),
      key('bbbb', 'secret', 'token_register,token_verify'),
      key('cccc', 'secret', 'token_verify,token_register'),
      key('dddd', 'secret', 'token_verify'),
      key('eeee', 'secret', 'users,token_verify'),
      key('ffff', 'secret', 'token_register'),
      key('gggg', 'secret', 'users,events'),
      key('hhhh', 'public', 'register,login'),
      key('iiii', 'secret', ''),
    ]);
    const s = open();
    expect(await s.migrate()).toEqual(ALL.filter((name) => name >= '20261127010000'));
    const scopes = Object.fromEntries((await s.db.apiKey.findMany({ select: { id: true, scopes: true } })).map((k) => [k.id, k.scopes]));
    expect(scopes).toEqual({
      aaaa: `${everyScopeThen},token_generate`,
      // The reference's own set has every scope of its kind (effectiveScopes) and is left alone.
      bbbb: 'token_register,token_verify',
      cccc: 'token_verify,token_register',
      dddd: 'token_verify,token_generate',
      eeee: 'users,token_verify,token_generate',
      ffff: 'token_register',
      gggg: 'users,events',
      hhhh: 'register,login',
      iiii: '',
    });
  });

  it('gives every passkey stored before PRF salts existed a random salt of its own, and every configuration no extensions', async () => {
    const before = loadMigrations(provider).filter((m) => m.name < '20261127050000');
    await migrateWith(provider, database.url, before);
    const credential = (id: string) =>
      `INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "rpid", "origin") VALUES ('oldapp', '${id}', 'u', 'dQ', 'pk', 'example.com', 'https://example.com')`;
    await execute(provider, database.url, [
      `INSERT INTO "App" ("id", "adminEmail") VALUES ('oldapp', 'owner@example.com')`,
      credential('c1'),
      credential('c2'),
      `INSERT INTO "AuthConfig" ("tenant", "purpose", "createdBy") VALUES ('oldapp', 'checkout', 'alice')`,
    ]);
    const s = open();
    expect(await s.migrate()).toEqual(ALL.filter((name) => name >= '20261127050000'));
    const rows = await s.db.credential.findMany({ select: { prfSalt: true, prfEnabled: true }, orderBy: { descriptorId: 'asc' } });
    expect(rows).toEqual([
      { prfSalt: expect.stringMatching(/^[0-9a-f]{64}$/), prfEnabled: null },
      { prfSalt: expect.stringMatching(/^[0-9a-f]{64}$/), prfEnabled: null },
    ]);
    expect(rows[0].prfSalt).not.toBe(rows[1].prfSalt);
    expect(await s.db.authConfig.findMany({ select: { extensions: true } })).toEqual([{ extensions: '{}' }]);
  });

  it('gives every existing app a random decoy secret of its own', async () => {
    const before = loadMigrations(provider).filter((m) => m.name < '20261125041000');
    await migrateWith(provider, database.url, before);
    await execute(provider, database.url, ['one', 'two'].map((id) => `INSERT INTO "App" ("id", "adminEmail") VALUES ('${id}app', 'owner@example.com')`));
    const s = open();
    await s.migrate();
    const keys = (await s.db.app.findMany({ select: { decoyKey: true } })).map((a) => a.decoyKey);
    for (const key of keys) expect(key).toMatch(/^[0-9a-f]{60,64}$/);
    expect(new Set(keys).size).toBe(2);
  });

  it('gives existing apps their users, user counts and event counts from the rows they hold', async () => {
    const before = loadMigrations(provider).filter((m) => m.name < '20261125020000');
    await migrateWith(provider, database.url, before);
    const credential = (app: string, id: string, userId: string) =>
      `INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "rpid", "origin") VALUES ('${app}', '${id}', '${userId}', 'h', 'k', 'example.com', 'https://example.com')`;
    const alias = (app: string, hash: string, userId: string) => `INSERT INTO "Alias" ("tenant", "aliasHash", "userId") VALUES ('${app}', '${hash}', '${userId}')`;
    await execute(provider, database.url, [
      `INSERT INTO "App" ("id", "adminEmail", "maxUsers") VALUES ('bigapp', 'owner@example.com', 5)`,
      `INSERT INTO "App" ("id", "adminEmail") VALUES ('emptyapp', 'owner@example.com')`,
      credential('bigapp', 'c1', 'alice'),
      credential('bigapp', 'c2', 'alice'),
      credential('bigapp', 'c3', 'bob'),
      alias('bigapp', 'h1', 'bob'),
      alias('bigapp', 'h2', 'carol'),
      alias('bigapp', 'h3', 'carol'),
      ...['e1', 'e2'].map((id) => `INSERT INTO "Event" ("id", "tenant", "eventType", "message", "severity", "performedBy", "subject") VALUES ('${id}', 'bigapp', 'ApiUserDeleted', 'm', 'Informational', 'System', 'alice')`),
    ]);
    const s = open();
    await s.migrate();
    expect(await s.db.appCounter.findMany({ orderBy: { tenant: 'asc' }, select: { tenant: true, userCount: true, eventCount: true } })).toEqual([
      { tenant: 'bigapp', userCount: 2, eventCount: 2 },
      { tenant: 'emptyapp', userCount: 0, eventCount: 0 },
    ]);
    expect(await s.db.user.findMany({ orderBy: { userId: 'asc' }, select: { tenant: true, userId: true, credentialsCount: true, aliasCount: true } })).toEqual([
      { tenant: 'bigapp', userId: 'alice', credentialsCount: 2, aliasCount: 0 },
      { tenant: 'bigapp', userId: 'bob', credentialsCount: 1, aliasCount: 1 },
      { tenant: 'bigapp', userId: 'carol', credentialsCount: 0, aliasCount: 2 },
    ]);
    // What the service then answers is these figures, and they go on from there.
    expect(await s.queries.countUsers('bigapp')).toBe(2);
    expect(await s.queries.userCapacity('bigapp', 'carol')).toEqual({ userCount: 2, maxUsers: 5, hasPasskey: false });
    await s.queries.deleteUser('bigapp', 'alice', []);
    expect(await s.queries.countUsers('bigapp')).toBe(1);
  });

  it('applies the migrations exactly once when two replicas start together', async () => {
    const results = await migrateTwiceAtOnce(provider, database.url);
    expect([...results].sort((x, y) => y.length - x.length)).toEqual([ALL, []]);
    expect(await open().appliedMigrations()).toEqual(ALL);
  });

  it('refuses to start when an applied migration was edited afterwards', async () => {
    expect(await open().migrate()).toEqual(ALL);
    const edited = loadMigrations(provider).map((m) => withChecksum(m.name, `${m.sql}\n-- edited after release\n`));
    await expect(migrateWith(provider, database.url, edited)).rejects.toThrow(`migration ${INIT} was edited after it was applied`);
    expect(await store!.appliedMigrations()).toEqual(ALL);
  });

  describe('the migrated schema matches the Prisma client', () => {
    const prisma = provider === 'sqlite' ? SqlitePrisma : PostgresPrisma;

    it('has one table per model, with exactly the columns the client knows', async () => {
      await open().migrate();
      expect(MODELS.map((m) => m.model).sort()).toEqual(Object.keys(prisma.ModelName).sort());
      expect(await tableNames(provider, database.url)).toEqual([...MODELS.map((m) => m.model), MIGRATION_LEDGER].sort());
      for (const { model } of MODELS) {
        expect({ model, columns: await columnNames(provider, database.url, model) }).toEqual({ model, columns: scalarFields(prisma, model) });
      }
    });

    it.each(MODELS.map((m) => [m.model, m] as const))('stores and reads back every field of %s', async (model, spec) => {
      const s = open();
      await s.migrate();
      const k = randomBytes(4).toString('hex');
      const row = spec.row(k);
      expect(Object.keys(row).sort()).toEqual(scalarFields(prisma, model));

      const { stored, gone } = await roundTrip(s.db, model, row, spec.key(row), spec.parent && { model: spec.parent.model, row: spec.parent.row(k) });
      expect(stored).toEqual(row);
      expect(gone).toBeNull();

      if (spec.nullable.length > 0) {
        const k2 = randomBytes(4).toString('hex');
        const withNulls = { ...spec.row(k2), ...Object.fromEntries(spec.nullable.map((field) => [field, null])) };
        const nulls = await roundTrip(s.db, model, withNulls, spec.key(withNulls), spec.parent && { model: spec.parent.model, row: spec.parent.row(k2) });
        expect(nulls.stored).toEqual(withNulls);
      }
    });
  });

  describe('every tenant-owned row belongs to an app (foreign keys with cascades)', () => {
    const owned = MODELS.filter((m) => m.model !== 'App');

    it('deleting the App row deletes every row of that app and nothing of another app', async () => {
      const s = open();
      await s.migrate();
      const rows = (k: string) => owned.map((spec) => ({ spec, row: spec.row(k) }));
      const [doomed, kept] = [rows(randomBytes(4).toString('hex')), rows(randomBytes(4).toString('hex'))];
      for (const set of [doomed, kept]) {
        await s.db.app.create({ data: { id: String(set[0].row.tenant), adminEmail: 'owner@example.com' } });
        for (const { spec, row } of set) await delegateOf(s.db, spec.model).create({ data: row });
      }
      await s.db.app.delete({ where: { id: String(doomed[0].row.tenant) } });
      for (const { spec, row } of doomed) expect({ model: spec.model, row: await delegateOf(s.db, spec.model).findUnique({ where: spec.key(row) }) }).toEqual({ model: spec.model, row: null });
      for (const { spec, row } of kept) expect({ model: spec.model, found: (await delegateOf(s.db, spec.model).findUnique({ where: spec.key(row) })) !== null }).toEqual({ model: spec.model, found: true });
    });

    it('refuses a row for an app that does not exist, through Prisma and through the driver', async () => {
      const s = open();
      await s.migrate();
      for (const spec of owned) {
        const error = await delegateOf(s.db, spec.model).create({ data: spec.row(randomBytes(4).toString('hex')) }).then(() => undefined, (e: unknown) => e);
        expect({ model: spec.model, foreignKeyViolation: isForeignKeyViolation(error) }).toEqual({ model: spec.model, foreignKeyViolation: true });
      }
      const insert = `INSERT INTO "Alias" ("tenant", "aliasHash", "userId") VALUES ('noapp', 'h', 'u')`;
      let driverError: unknown;
      if (provider === 'sqlite') {
        const db = openSqliteConnection(sqliteFilename(database.url));
        try {
          db.exec(insert);
        } catch (error) {
          driverError = error;
        } finally {
          db.close();
        }
      } else {
        driverError = await queryPostgres(database.url, insert).then(() => undefined, (e: unknown) => e);
      }
      expect(isForeignKeyViolation(driverError)).toBe(true);
      expect(await s.db.alias.count()).toBe(0);
    });

    it('upgrading drops the rows that apps deleted earlier left behind, and keeps every other row', async () => {
      const before = loadMigrations(provider).filter((m) => m.name < '20261123020000');
      await migrateWith(provider, database.url, before);
      const seed = [
        `INSERT INTO "App" ("id", "adminEmail") VALUES ('keptapp', 'owner@example.com')`,
        ...['keptapp', 'goneapp'].flatMap((app) => [
          `INSERT INTO "Alias" ("tenant", "aliasHash", "userId") VALUES ('${app}', 'h-${app}', 'u1')`,
          `INSERT INTO "AuthConfig" ("tenant", "purpose", "createdBy") VALUES ('${app}', 'p', 'me')`,
          `INSERT INTO "TokenKey" ("tenant", "keyId", "keyMaterial") VALUES ('${app}', 1, 'k')`,
        ]),
      ];
      await execute(provider, database.url, seed);
      const s = open();
      expect(await s.migrate()).toEqual(ALL.filter((name) => !before.some((m) => m.name === name)));
      for (const table of ['alias', 'authConfig', 'tokenKey'] as const) {
        expect({ table, tenants: (await (s.db[table] as unknown as { findMany(a: object): Promise<{ tenant: string }[]> }).findMany({ select: { tenant: true } })).map((r) => r.tenant) }).toEqual({ table, tenants: ['keptapp'] });
      }
    });
  });

  if (provider === 'sqlite') {
    it('turns foreign keys on for the store connection and for driver-level connections', async () => {
      const s = open();
      await s.migrate();
      // The store's db is the Prisma client itself; Db just does not name $queryRawUnsafe.
      const prisma = s.db as unknown as { $queryRawUnsafe(sql: string): Promise<unknown> };
      expect(await prisma.$queryRawUnsafe('PRAGMA foreign_keys')).toEqual([{ foreign_keys: 1n }]);
      const db = openSqliteConnection(sqliteFilename(database.url));
      try {
        expect(db.pragma('foreign_keys', { simple: true })).toBe(1);
      } finally {
        db.close();
      }
    });

    it('runs migrations with foreign keys off, so redefining App cascades into nothing, and refuses one that leaves a row without its app', async () => {
      const s = open();
      await s.migrate();
      await s.db.app.create({ data: { id: 'keptapp', adminEmail: 'owner@example.com' } });
      await s.db.alias.create({ data: { tenant: 'keptapp', aliasHash: 'h', userId: 'u1' } });
      const redefineApp = withChecksum(
        '20991231000000_redefine_app',
        `CREATE TABLE "new_App" ("id" TEXT NOT NULL PRIMARY KEY, "adminEmail" TEXT NOT NULL);
         INSERT INTO "new_App" SELECT "id", "adminEmail" FROM "App"; DROP TABLE "App"; ALTER TABLE "new_App" RENAME TO "App";`,
      );
      expect(migrateSqlite(sqliteFilename(database.url), [...loadMigrations('sqlite'), redefineApp])).toEqual([redefineApp.name]);
      expect(await s.db.alias.count()).toBe(1);

      const orphaning = withChecksum('20991231000001_orphaning', `DELETE FROM "App" WHERE "id" = 'keptapp';`);
      expect(() => migrateSqlite(sqliteFilename(database.url), [...loadMigrations('sqlite'), redefineApp, orphaning])).toThrow(/rows whose app does not exist/);
      expect(await s.appliedMigrations()).toEqual([...ALL, redefineApp.name]);
      expect(await s.db.app.count()).toBe(1);
    });

    it('leaves the SQLite file in WAL mode', async () => {
      await open().migrate();
      const db = new Database(sqliteFilename(database.url), { readonly: true });
      try {
        expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
      } finally {
        db.close();
      }
    });

    it('creates the directory of a file: DATABASE_URL that does not exist yet', async () => {
      const dir = join(TMP, `missing-${randomBytes(4).toString('hex')}`);
      const file = join(dir, 'nested', 'deeper', 'passwordless.db');
      expect(existsSync(dir)).toBe(false);
      const fresh = openStore(`file:${file}`);
      try {
        expect(await fresh.migrate()).toEqual(ALL);
        expect(existsSync(file)).toBe(true);
      } finally {
        await fresh.close();
        rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});
