/**
 * On PostgreSQL a registration is one statement (`pwl_store_registration`, a migration) rather
 * than the unit of steps `registrationSteps` makes, which SQLite runs. The two must not drift
 * apart: the same registrations, run once through each, leave the same rows and give the same
 * outcomes, refusals included.
 */
import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { isForeignKeyViolation, isUniqueViolation } from '../../src/server/core/storeErrors';
import { utcDayOf } from '../../src/server/core/utcDay';
import { openStore, type Queries, type Store } from '../../src/server/store';
import type { NewRegistration, StoredCredential } from '../../src/server/store/sql/queries';
import { openPostgresDriver } from '../../src/server/store/sql/postgresDriver';
import { queriesOn } from '../../src/server/store/sql/queriesOn';
import { createTestDatabase, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const T0 = Date.UTC(2026, 10, 26, 8, 0, 0, 123);
const describePostgres = process.env.TEST_DATABASE_URL ? describe : describe.skip;

describePostgres('a registration as one statement on PostgreSQL, against the same unit of steps', () => {
  let database: TestDatabase;
  let store: Store;
  let asSteps: Queries;

  beforeAll(async () => {
    database = await createTestDatabase('postgresql');
    store = openStore(database.url);
    await store.migrate();
    asSteps = queriesOn(openPostgresDriver(database.url, { statements: 2, units: 2 }, { registrationStatement: false }));
  });
  afterAll(async () => {
    await asSteps.close();
    await store.close();
    await database.drop();
  });

  const passkey = (userId: string, id: string, overrides: Partial<StoredCredential> = {}): StoredCredential => ({
    descriptorId: id,
    userId,
    userHandle: Buffer.from(userId).toString('base64url'),
    publicKey: 'pQECAyYgASFYIA',
    signatureCounter: 7,
    attestationFmt: 'packed',
    aaGuid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
    transports: '["usb","hybrid"]',
    rpid: 'example.com',
    origin: 'https://example.com',
    country: 'NL',
    device: 'Firefox, Linux',
    nickname: 'key',
    backupEligible: true,
    backupState: false,
    isDiscoverable: null,
    uvInitialized: true,
    createdAt: T0,
    lastUsedAt: T0 + 1000,
    lastUsedDay: utcDayOf(T0),
    prfSalt: 'ab'.repeat(32),
    prfEnabled: true,
    madeByUpgrade: false,
    ...overrides,
  });

  /** Every registration the service makes, and each refusal, in one order. */
  const script = (tenant: string): NewRegistration[] => [
    { webhookDeliveries: [], tenant, credential: passkey('alice', 'k1'), aliases: [{ aliasHash: 'h-alice', plaintext: 'alice@example.com' }], redeemedToken: { tokenId: 'register:t1', expiresAt: T0 + 60_000 } },
    // The same token again: refused, nothing written.
    { webhookDeliveries: [], tenant, credential: passkey('alice', 'k2'), redeemedToken: { tokenId: 'register:t1', expiresAt: T0 + 60_000 } },
    // A second passkey without aliases: the aliases stay.
    // (made by the automatic upgrade: a column the function stores since 20261128003700_webhook_trace_context)
    { webhookDeliveries: [], tenant, credential: passkey('alice', 'k3', { isDiscoverable: true, signatureCounter: 4_294_967_295, madeByUpgrade: true }) },
    // A second passkey replacing the aliases, with a webhook delivery.
    {
      tenant,
      credential: passkey('alice', 'k4', { backupState: true }),
      aliases: [{ aliasHash: 'h-alice-2', plaintext: null }, { aliasHash: 'h-alice-3', plaintext: 'a3' }],
      webhookDeliveries: [{ id: `msg_${tenant}_1`, tenant, endpointId: `we_${tenant}`, eventType: 'passkey.registered', payload: '{"userId":"alice"}', createdAt: T0,
        // The queuing span's traceparent (stored by the function since 20261128003700_webhook_trace_context).
        traceContext: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' }],
    },
    // A new user, the app's second of two.
    { webhookDeliveries: [], tenant, credential: passkey('bob', 'k5'), aliases: [] },
    // A third user: over maxUsers = 2, refused, nothing written (the token stays unredeemed).
    { webhookDeliveries: [], tenant, credential: passkey('carol', 'k6'), redeemedToken: { tokenId: 'register:t2', expiresAt: T0 } },
    // A taken alias, and a passkey already stored: refused by the unique keys, nothing written.
    { webhookDeliveries: [], tenant, credential: passkey('bob', 'k7'), aliases: [{ aliasHash: 'h-alice-3', plaintext: 'a3' }] },
    { webhookDeliveries: [], tenant, credential: passkey('bob', 'k1') },
  ];

  const outcomeOf = (promise: Promise<unknown>) =>
    promise.then(
      // The outcome, without the rows a unit of steps kept (the one statement keeps none).
      (value) => (value && typeof value === 'object' && 'kept' in value ? { ...(value as object), kept: undefined } : value),
      (error: unknown) => (isUniqueViolation(error) ? 'unique violation' : isForeignKeyViolation(error) ? 'foreign-key violation' : String(error)),
    );

  /** The app's rows in the tables a registration writes, without the app's id. */
  const rowsOf = async (tenant: string) => {
    const client = new Client({ connectionString: database.url });
    await client.connect();
    try {
      const dump: Record<string, unknown[]> = {};
      for (const [table, order] of [
        ['User', '"userId"'],
        ['Credential', '"descriptorId"'],
        ['Alias', '"aliasHash"'],
        ['AppCounter', '"tenant"'],
        ['RedeemedToken', '"tokenId"'],
        ['WebhookDelivery', '"id"'],
      ]) {
        const { rows } = await client.query(`SELECT * FROM "${table}" WHERE "tenant" = $1 ORDER BY ${order}`, [tenant]);
        dump[table] = rows.map((row) => JSON.parse(JSON.stringify(row).split(tenant).join('<app>')));
      }
      return dump;
    } finally {
      await client.end();
    }
  };

  it('leaves the same rows and gives the same outcomes, refusals included', async () => {
    const results: Record<string, { outcomes: unknown[]; rows: Record<string, unknown[]> }> = {};
    for (const [name, hot] of [
      ['statement', store.queries],
      ['steps', asSteps],
    ] as const) {
      const tenant = `reg${randomBytes(4).toString('hex')}`;
      await store.db.app.create({ data: { id: tenant, adminEmail: 'owner@example.com', maxUsers: 2 } });
      await store.db.webhookEndpoint.create({ data: { id: `we_${tenant}`, tenant, url: 'https://hooks.example.com/in', eventTypes: '["passkey.registered"]', secret: 'whsec_c2VjcmV0' } });
      const outcomes = [];
      for (const registration of script(tenant)) outcomes.push(await outcomeOf(hot.storeRegistration(registration)));
      results[name] = { outcomes, rows: await rowsOf(tenant) };
    }
    expect(results.statement.outcomes).toEqual([
      { ok: true },
      { ok: false, failure: 'token_already_used' },
      { ok: true },
      { ok: true },
      { ok: true },
      { ok: false, failure: 'max_users_reached' },
      'unique violation',
      'unique violation',
    ]);
    expect(results.statement).toEqual(results.steps);
    expect(results.statement.rows.Credential.map((row) => (row as { madeByUpgrade: boolean }).madeByUpgrade)).toEqual([false, true, false, false]);
    expect(results.statement.rows.User).toEqual([
      { tenant: '<app>', userId: 'alice', credentialsCount: 3, aliasCount: 2 },
      { tenant: '<app>', userId: 'bob', credentialsCount: 1, aliasCount: 0 },
    ]);
  });

  it('refuses a registration for an app that is gone as a foreign-key violation, both ways', async () => {
    for (const hot of [store.queries, asSteps]) {
      expect(await outcomeOf(hot.storeRegistration({ webhookDeliveries: [], tenant: 'no-such-app', credential: passkey('dave', `k-${randomBytes(4).toString('hex')}`) }))).toBe('foreign-key violation');
    }
  });
});
