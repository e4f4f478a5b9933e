/**
 * The hot path's statements run on the driver, beside Prisma: each side must read what the other
 * wrote (DateTime, BigInt and Boolean encodings differ per provider), the expiry comparisons and
 * the background sweep must agree on the stored times, and the foreign keys must hold.
 */
import { randomBytes } from 'node:crypto';
import { ChallengeStore } from '../../src/server/services/ceremonies/challenges';
import { isForeignKeyViolation } from '../../src/server/core/storeErrors';
import { openStore, sqliteFilename, type Store } from '../../src/server/store';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { createTestDatabase, providers, warnIfPostgresSkipped, type TestDatabase } from '../support/testService';

warnIfPostgresSkipped();

const MINUTE = 60_000;
// Whole milliseconds, as both providers store them; a time that is not "now" catches time-zone slips.
const T0 = Date.UTC(2026, 10, 23, 12, 34, 56, 789);
const DAY0 = Math.floor(T0 / 86_400_000);

describe.each(providers())('the hot path beside Prisma on %s', (provider) => {
  let database: TestDatabase;
  let store: Store;
  let tenant: string;

  beforeAll(async () => {
    database = await createTestDatabase(provider);
    store = openStore(database.url);
    await store.migrate();
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });
  beforeEach(async () => {
    tenant = `hot${randomBytes(4).toString('hex')}`;
    await store.db.app.create({ data: { id: tenant, adminEmail: 'owner@example.com' } });
  });

  const credentialRow = (overrides: Record<string, unknown> = {}) => ({
    tenant,
    descriptorId: randomBytes(16).toString('base64url'),
    userId: 'user-1',
    userHandle: Buffer.from('user-1').toString('base64url'),
    publicKey: 'pQECAyYgASFYIA',
    signatureCounter: 5n,
    transports: '["internal","hybrid"]',
    rpid: 'example.com',
    origin: 'https://example.com',
    nickname: 'laptop',
    backupEligible: true,
    uvInitialized: false,
    lastUsedDay: DAY0,
    ...overrides,
  });

  describe('challenges', () => {
    it('issues a row Prisma reads back with the same expiry and binding', async () => {
      await store.hot.insertChallenge({ id: 'c-hot', tenant, ceremony: 'authentication', expiresAt: T0, expectedUserId: 'user-1' });
      expect(await store.db.challenge.findUnique({ where: { id: 'c-hot' } })).toEqual({ id: 'c-hot', tenant, ceremony: 'authentication', expiresAt: new Date(T0), expectedUserId: 'user-1' });
    });

    it('consumes a Prisma-written challenge once, only for its tenant and ceremony and only before it expires', async () => {
      await store.db.challenge.create({ data: { id: `c-${tenant}`, tenant, ceremony: 'authentication', expiresAt: new Date(T0), expectedUserId: null } });
      expect(await store.hot.deleteChallenge('otherapp', 'authentication', `c-${tenant}`, T0 - 1)).toBeUndefined();
      expect(await store.hot.deleteChallenge(tenant, 'registration', `c-${tenant}`, T0 - 1)).toBeUndefined();
      expect(await store.hot.deleteChallenge(tenant, 'authentication', `c-${tenant}`, T0)).toBeUndefined(); // expired at T0
      expect(await store.hot.deleteChallenge(tenant, 'authentication', `c-${tenant}`, T0 - 1)).toEqual({ expectedUserId: null });
      expect(await store.hot.deleteChallenge(tenant, 'authentication', `c-${tenant}`, T0 - 1)).toBeUndefined();
      expect(await store.db.challenge.count({ where: { tenant } })).toBe(0);
    });

    it('the background sweep drops the expired challenges and redeemed tokens the hot path wrote, and keeps the rest', async () => {
      await store.hot.insertChallenge({ id: `old-${tenant}`, tenant, ceremony: 'registration', expiresAt: T0 - MINUTE, expectedUserId: null });
      await store.hot.insertChallenge({ id: `new-${tenant}`, tenant, ceremony: 'registration', expiresAt: T0 + MINUTE, expectedUserId: '' });
      await store.hot.redeemToken(tenant, 'old-token', T0 - MINUTE);
      await store.hot.redeemToken(tenant, 'new-token', T0 + MINUTE);
      await new ChallengeStore(store.db, store.hot, () => T0).sweep();
      expect((await store.db.challenge.findMany({ where: { tenant } })).map((c) => [c.id, c.expectedUserId])).toEqual([[`new-${tenant}`, '']]);
      expect((await store.db.redeemedToken.findMany({ where: { tenant } })).map((t) => t.tokenId)).toEqual(['new-token']);
    });
  });

  describe('credentials', () => {
    it('reads a Prisma-written credential with its counter, flags and transports, only in its own tenant', async () => {
      const row = credentialRow();
      await store.db.credential.create({ data: row });
      expect(await store.hot.findCredential(tenant, row.descriptorId)).toEqual({
        descriptorId: row.descriptorId,
        userId: 'user-1',
        userHandle: row.userHandle,
        publicKey: row.publicKey,
        signatureCounter: 5,
        transports: '["internal","hybrid"]',
        backupEligible: true,
        uvInitialized: false,
        nickname: 'laptop',
        lastUsedDay: DAY0,
      });
      expect(await store.hot.findCredential('otherapp', row.descriptorId)).toBeUndefined();
    });

    it('records a use only when the counter rises (or, reported as 0, is still the one read), as Prisma then reads it', async () => {
      const row = credentialRow();
      await store.db.credential.create({ data: row });
      const use = { tenant, descriptorId: row.descriptorId, storedCounter: 5, backupState: true, uvInitialized: true, usedAt: T0, lastUsedDay: DAY0, device: 'Chrome, Mac OS 10', country: 'DE' };
      expect(await store.hot.recordCredentialUse({ ...use, newCounter: 5 })).toBe(false);
      expect(await store.hot.recordCredentialUse({ ...use, storedCounter: 4, newCounter: 0 })).toBe(false); // read before another use
      expect(await store.hot.recordCredentialUse({ ...use, tenant: 'otherapp', newCounter: 6 })).toBe(false);
      expect(await store.hot.recordCredentialUse({ ...use, newCounter: 6 })).toBe(true);
      expect(await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: row.descriptorId } } })).toMatchObject({
        signatureCounter: 6n,
        backupState: true,
        uvInitialized: true,
        lastUsedAt: new Date(T0),
        device: 'Chrome, Mac OS 10',
        country: 'DE',
        backupEligible: true,
      });

      const zero = credentialRow({ signatureCounter: 0n });
      await store.db.credential.create({ data: zero });
      const zeroUse = { ...use, descriptorId: zero.descriptorId, storedCounter: 0, newCounter: 0, backupState: false, uvInitialized: false };
      expect(await store.hot.recordCredentialUse(zeroUse)).toBe(true);
      expect(await store.hot.recordCredentialUse(zeroUse)).toBe(true);
      expect(await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: zero.descriptorId } } })).toMatchObject({ signatureCounter: 0n, backupState: false, uvInitialized: false });
    });

    it('keeps counters beyond 32 bits intact', async () => {
      const row = credentialRow({ signatureCounter: 4_294_967_294n });
      await store.db.credential.create({ data: row });
      expect((await store.hot.findCredential(tenant, row.descriptorId))?.signatureCounter).toBe(4_294_967_294);
      const use = { tenant, descriptorId: row.descriptorId, storedCounter: 4_294_967_294, newCounter: 4_294_967_295, backupState: false, uvInitialized: false, usedAt: T0, lastUsedDay: DAY0, device: '', country: '' };
      expect(await store.hot.recordCredentialUse(use)).toBe(true);
      expect((await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: row.descriptorId } } }))?.signatureCounter).toBe(4_294_967_295n);
    });

    it("writes the UTC day of a use only when it differs from the day read, under the same counter rule", async () => {
      const row = credentialRow({ lastUsedDay: DAY0 - 3 });
      await store.db.credential.create({ data: row });
      const key = { tenant_descriptorId: { tenant, descriptorId: row.descriptorId } };
      const use = { tenant, descriptorId: row.descriptorId, storedCounter: 5, backupState: false, uvInitialized: false, usedAt: T0, lastUsedDay: DAY0 - 3, device: '', country: '' };
      expect(await store.hot.recordCredentialUse({ ...use, newCounter: 5 })).toBe(false);
      expect((await store.db.credential.findUnique({ where: key }))?.lastUsedDay).toBe(DAY0 - 3);
      expect(await store.hot.recordCredentialUse({ ...use, newCounter: 6 })).toBe(true);
      expect(await store.db.credential.findUnique({ where: key })).toMatchObject({ lastUsedAt: new Date(T0), lastUsedDay: DAY0, signatureCounter: 6n });
      // Read as today's already: the day column is not written again (here it proves which statement ran).
      await store.db.credential.update({ where: key, data: { lastUsedDay: DAY0 - 1 } });
      expect(await store.hot.recordCredentialUse({ ...use, storedCounter: 6, newCounter: 7, usedAt: T0 + MINUTE, lastUsedDay: DAY0 })).toBe(true);
      expect(await store.db.credential.findUnique({ where: key })).toMatchObject({ lastUsedAt: new Date(T0 + MINUTE), lastUsedDay: DAY0 - 1, signatureCounter: 7n });
    });
  });

  it("lists a user's credentials for an allow list, most recently used first, within the limit and the tenant", async () => {
    const used = (minutes: number) => credentialRow({ lastUsedAt: new Date(T0 + minutes * MINUTE) });
    const [older, newest, middle] = [used(1), used(3), used(2)];
    for (const row of [older, newest, middle]) await store.db.credential.create({ data: row });
    await store.db.credential.create({ data: credentialRow({ userId: 'user-2', userHandle: 'dXNlci0y' }) });
    expect(await store.hot.findUserCredentials(tenant, 'user-1', 10)).toEqual([newest, middle, older].map((c) => ({ descriptorId: c.descriptorId, transports: c.transports })));
    expect((await store.hot.findUserCredentials(tenant, 'user-1', 2)).map((c) => c.descriptorId)).toEqual([newest.descriptorId, middle.descriptorId]);
    expect(await store.hot.findUserCredentials('otherapp', 'user-1', 10)).toEqual([]);
  });

  it('answers many writes made at once each with its own outcome: one refused for a gone app fails alone', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `c${i}-${tenant}`);
    const outcomes = await Promise.allSettled([
      ...ids.map((id) => store.hot.insertChallenge({ id, tenant, ceremony: 'authentication', expiresAt: T0, expectedUserId: null })),
      store.hot.insertChallenge({ id: `gone-${tenant}`, tenant: 'noapp', ceremony: 'authentication', expiresAt: T0, expectedUserId: null }),
      store.hot.redeemToken(tenant, 'token-a', T0),
      store.hot.redeemToken(tenant, 'token-a', T0),
    ]);
    expect(outcomes.slice(0, ids.length).every((o) => o.status === 'fulfilled')).toBe(true);
    const [gone, first, second] = outcomes.slice(ids.length);
    expect(gone.status === 'rejected' && isForeignKeyViolation(gone.reason)).toBe(true);
    expect([first, second].map((o) => (o.status === 'fulfilled' ? o.value : o.reason)).sort()).toEqual([false, true]);
    expect(await store.db.challenge.count({ where: { tenant } })).toBe(ids.length);
  });

  describe('redeemed tokens', () => {
    it('redeems a token id once per tenant, in a row Prisma reads with its expiry', async () => {
      expect(await store.hot.redeemToken(tenant, 'token-1', T0)).toBe(true);
      expect(await store.hot.redeemToken(tenant, 'token-1', T0)).toBe(false);
      expect(await store.db.redeemedToken.findUnique({ where: { tenant_tokenId: { tenant, tokenId: 'token-1' } } })).toEqual({ tenant, tokenId: 'token-1', expiresAt: new Date(T0) });
    });

    it('sees a token id Prisma recorded as already redeemed', async () => {
      await store.db.redeemedToken.create({ data: { tenant, tokenId: 'token-2', expiresAt: new Date(T0) } });
      expect(await store.hot.redeemToken(tenant, 'token-2', T0)).toBe(false);
    });
  });

  it('refuses a challenge or a redeemed token for an app that is gone, as a foreign-key violation', async () => {
    await store.db.app.delete({ where: { id: tenant } });
    const refusals = [
      await store.hot.insertChallenge({ id: `c-${tenant}`, tenant, ceremony: 'authentication', expiresAt: T0, expectedUserId: null }).then(() => undefined, (e: unknown) => e),
      await store.hot.redeemToken(tenant, 'token-3', T0).then(() => undefined, (e: unknown) => e),
    ];
    expect(refusals.map(isForeignKeyViolation)).toEqual([true, true]);
    expect(await store.db.challenge.count({ where: { tenant } })).toBe(0);
    expect(await store.db.redeemedToken.count({ where: { tenant } })).toBe(0);
  });

  if (provider === 'sqlite') {
    it("waits for a write lock Prisma's own connection holds without blocking the event loop, then commits", async () => {
      let locked!: () => void;
      let release!: () => void;
      const isLocked = new Promise<void>((resolve) => (locked = resolve));
      const released = new Promise<void>((resolve) => (release = resolve));
      // A Prisma transaction that has written (so holds SQLite's write lock) and waits on this test.
      const transaction = store.db.$transaction(async (tx) => {
        await tx.alias.create({ data: { tenant, aliasHash: 'held', userId: 'user-1' } });
        locked();
        await released;
      });
      await isLocked;
      const write = store.hot.redeemToken(tenant, 'token-during-lock', T0);
      // Released from the event loop: were the hot path to wait for the lock on the event loop's
      // thread, the transaction could not go on until the wait gave up.
      setImmediate(release);
      await transaction;
      expect(await write).toBe(true);
      expect(await store.db.alias.count({ where: { tenant } })).toBe(1);
      expect(await store.db.redeemedToken.count({ where: { tenant } })).toBe(1);
    });

    it('syncs every commit (synchronous = FULL) on Prisma\'s connection and on driver-level ones like the hot path\'s', async () => {
      const prisma = store.db as unknown as { $queryRawUnsafe(sql: string): Promise<unknown> };
      expect(await prisma.$queryRawUnsafe('PRAGMA synchronous')).toEqual([{ synchronous: 2n }]);
      const db = openSqliteConnection(sqliteFilename(database.url));
      try {
        expect(db.pragma('synchronous', { simple: true })).toBe(2);
      } finally {
        db.close();
      }
    });
  }
});
