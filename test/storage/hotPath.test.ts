/**
 * The hot path's statements run on the driver, beside Prisma: each side must read what the other
 * wrote (DateTime, BigInt and Boolean encodings differ per provider), the expiry comparisons and
 * the background sweep must agree on the stored times, and the foreign keys must hold.
 */
import { randomBytes } from 'node:crypto';
import { ChallengeStore } from '../../src/server/services/ceremonies/challenges';
import { isForeignKeyViolation, isUniqueViolation } from '../../src/server/core/storeErrors';
import type { StoredCredential } from '../../src/server/store/sql/queries';
import { RedemptionRepository } from '../../src/server/store/repositories/redemptions';
import { WebhookOutbox } from '../../src/server/store/repositories/webhookOutbox';
import { openStore, sqliteFilename, type Store } from '../../src/server/store';
import { openSqliteConnection } from '../../src/server/store/sqlite';
import { utcDayOf } from '../../src/server/core/utcDay';
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

  describe('sign-in reads and single-use ids', () => {
    it('reads the user\'s passkeys for an allow list, most recently used first, only in its own tenant', async () => {
      const [older, newer] = [credentialRow({ lastUsedAt: new Date(T0 - MINUTE) }), credentialRow({ lastUsedAt: new Date(T0) })];
      await store.db.credential.createMany({ data: [older, newer, credentialRow({ userId: 'user-2' })] });
      expect(await store.queries.findUserCredentials(tenant, 'user-1', 10)).toEqual([newer, older].map((c) => ({ descriptorId: c.descriptorId, transports: c.transports, prfSalt: null })));
      expect(await store.queries.findUserCredentials('otherapp', 'user-1', 10)).toEqual([]);
      expect(await store.queries.findUserCredentials(tenant, 'nobody', 10)).toEqual([]);
      expect(await store.queries.findUserCredentials(tenant, 'user-1', 1)).toHaveLength(1);
    });

    it('redeems a session id and reads a passkey in one call: once per app, the id redeemed whether or not the passkey exists', async () => {
      const row = credentialRow();
      await store.db.credential.create({ data: row });
      const credential = await store.queries.findCredential(tenant, row.descriptorId);
      expect(await store.queries.redeemTokenAndFindCredential(tenant, 's1', T0, row.descriptorId)).toEqual({ redeemed: true, credential });
      expect(await store.queries.redeemTokenAndFindCredential(tenant, 's1', T0, row.descriptorId)).toEqual({ redeemed: false, credential });
      // Another app's id space is its own, and its reads see none of this app's passkeys.
      await store.db.app.create({ data: { id: `${tenant}b`, adminEmail: 'owner@example.com' } });
      expect(await store.queries.redeemTokenAndFindCredential(`${tenant}b`, 's1', T0, row.descriptorId)).toEqual({ redeemed: true, credential: undefined });
      expect(await store.queries.redeemTokenAndFindCredential(tenant, 's2', T0, 'unknown')).toEqual({ redeemed: true, credential: undefined });
      expect((await store.db.redeemedToken.findMany({ where: { tenant }, orderBy: { tokenId: 'asc' } })).map((t) => [t.tokenId, t.expiresAt])).toEqual([
        ['s1', new Date(T0)],
        ['s2', new Date(T0)],
      ]);
    });

    it('the background sweep drops the expired redeemed ids, and keeps the rest', async () => {
      await store.queries.redeemToken(tenant, 'old-token', T0 - MINUTE, []);
      await store.queries.redeemToken(tenant, 'new-token', T0 + MINUTE, []);
      const redemptions = new RedemptionRepository({ db: store.db, queries: store.queries, outbox: new WebhookOutbox({ db: store.db, sql: store.sql, now: () => T0 }) });
      await new ChallengeStore({ redemptions, now: () => T0 }).sweep();
      expect((await store.db.redeemedToken.findMany({ where: { tenant } })).map((t) => t.tokenId)).toEqual(['new-token']);
    });
  });

  describe('credentials', () => {
    it('reads a Prisma-written credential with its counter, flags and transports, only in its own tenant', async () => {
      const row = credentialRow();
      await store.db.credential.create({ data: row });
      expect(await store.queries.findCredential(tenant, row.descriptorId)).toEqual({
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
      expect(await store.queries.findCredential('otherapp', row.descriptorId)).toBeUndefined();
    });

    it('records a use only when the counter rises (or, reported as 0, is still the one read), as Prisma then reads it', async () => {
      const row = credentialRow();
      await store.db.credential.create({ data: row });
      const use = { tenant, descriptorId: row.descriptorId, storedCounter: 5, backupState: true, uvInitialized: true, usedAt: T0, lastUsedDay: DAY0, device: 'Chrome, Mac OS 10', country: 'DE' };
      expect(await store.queries.recordCredentialUse({ ...use, newCounter: 5 }, [])).toBe(false);
      expect(await store.queries.recordCredentialUse({ ...use, storedCounter: 4, newCounter: 0 }, [])).toBe(false); // read before another use
      expect(await store.queries.recordCredentialUse({ ...use, tenant: 'otherapp', newCounter: 6 }, [])).toBe(false);
      expect(await store.queries.recordCredentialUse({ ...use, newCounter: 6 }, [])).toBe(true);
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
      expect(await store.queries.recordCredentialUse(zeroUse, [])).toBe(true);
      expect(await store.queries.recordCredentialUse(zeroUse, [])).toBe(true);
      expect(await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: zero.descriptorId } } })).toMatchObject({ signatureCounter: 0n, backupState: false, uvInitialized: false });
    });

    it('answers uses of one passkey made at once as if made one after another', async () => {
      const [counting, synced] = [credentialRow({ signatureCounter: 5n }), credentialRow({ signatureCounter: 0n })];
      await store.db.credential.createMany({ data: [counting, synced] });
      const use = { tenant, backupState: false, uvInitialized: false, usedAt: T0, lastUsedDay: DAY0, device: '', country: '' };
      const outcomes = await Promise.all([
        // Two sign-ins that read counter 5 and both report 6: one passes, the other is a clone's.
        store.queries.recordCredentialUse({ ...use, descriptorId: counting.descriptorId, storedCounter: 5, newCounter: 6 }, []),
        store.queries.recordCredentialUse({ ...use, descriptorId: counting.descriptorId, storedCounter: 5, newCounter: 6 }, []),
        store.queries.recordCredentialUse({ ...use, descriptorId: counting.descriptorId, storedCounter: 5, newCounter: 7 }, []),
        // A synced passkey (always 0) signs in three times at once: every one passes.
        ...[1, 2, 3].map(() => store.queries.recordCredentialUse({ ...use, descriptorId: synced.descriptorId, storedCounter: 0, newCounter: 0 }, [])),
      ]);
      expect(outcomes).toEqual([true, false, true, true, true, true]);
      expect((await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: counting.descriptorId } } }))?.signatureCounter).toBe(7n);
    });

    it('keeps counters beyond 32 bits intact', async () => {
      const row = credentialRow({ signatureCounter: 4_294_967_294n });
      await store.db.credential.create({ data: row });
      expect((await store.queries.findCredential(tenant, row.descriptorId))?.signatureCounter).toBe(4_294_967_294);
      const use = { tenant, descriptorId: row.descriptorId, storedCounter: 4_294_967_294, newCounter: 4_294_967_295, backupState: false, uvInitialized: false, usedAt: T0, lastUsedDay: DAY0, device: '', country: '' };
      expect(await store.queries.recordCredentialUse(use, [])).toBe(true);
      expect((await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: row.descriptorId } } }))?.signatureCounter).toBe(4_294_967_295n);
    });

    it("writes the UTC day of a use only when it differs from the day read, under the same counter rule", async () => {
      const row = credentialRow({ lastUsedDay: DAY0 - 3 });
      await store.db.credential.create({ data: row });
      const key = { tenant_descriptorId: { tenant, descriptorId: row.descriptorId } };
      const use = { tenant, descriptorId: row.descriptorId, storedCounter: 5, backupState: false, uvInitialized: false, usedAt: T0, lastUsedDay: DAY0 - 3, device: '', country: '' };
      expect(await store.queries.recordCredentialUse({ ...use, newCounter: 5 }, [])).toBe(false);
      expect((await store.db.credential.findUnique({ where: key }))?.lastUsedDay).toBe(DAY0 - 3);
      expect(await store.queries.recordCredentialUse({ ...use, newCounter: 6 }, [])).toBe(true);
      expect(await store.db.credential.findUnique({ where: key })).toMatchObject({ lastUsedAt: new Date(T0), lastUsedDay: DAY0, signatureCounter: 6n });
      // Read as today's already: the day column is not written again (here it proves which statement ran).
      await store.db.credential.update({ where: key, data: { lastUsedDay: DAY0 - 1 } });
      expect(await store.queries.recordCredentialUse({ ...use, storedCounter: 6, newCounter: 7, usedAt: T0 + MINUTE, lastUsedDay: DAY0 }, [])).toBe(true);
      expect(await store.db.credential.findUnique({ where: key })).toMatchObject({ lastUsedAt: new Date(T0 + MINUTE), lastUsedDay: DAY0 - 1, signatureCounter: 7n });
    });
  });

  it("lists a user's credentials for an allow list, most recently used first, within the limit and the tenant", async () => {
    const used = (minutes: number) => credentialRow({ lastUsedAt: new Date(T0 + minutes * MINUTE) });
    const [older, newest, middle] = [used(1), used(3), used(2)];
    for (const row of [older, newest, middle]) await store.db.credential.create({ data: row });
    await store.db.credential.create({ data: credentialRow({ userId: 'user-2', userHandle: 'dXNlci0y' }) });
    expect(await store.queries.findUserCredentials(tenant, 'user-1', 10)).toEqual([newest, middle, older].map((c) => ({ descriptorId: c.descriptorId, transports: c.transports, prfSalt: null })));
    expect((await store.queries.findUserCredentials(tenant, 'user-1', 2)).map((c) => c.descriptorId)).toEqual([newest.descriptorId, middle.descriptorId]);
    expect(await store.queries.findUserCredentials('otherapp', 'user-1', 10)).toEqual([]);
  });

  it('answers many writes made at once each with its own outcome: one refused for a gone app fails alone', async () => {
    const ids = Array.from({ length: 20 }, (_, i) => `c${i}-${tenant}`);
    const outcomes = await Promise.allSettled([
      ...ids.map((id) => store.queries.redeemToken(tenant, id, T0, [])),
      store.queries.redeemToken('noapp', `gone-${tenant}`, T0, []),
      store.queries.redeemToken(tenant, 'token-a', T0, []),
      store.queries.redeemToken(tenant, 'token-a', T0, []),
    ]);
    expect(outcomes.slice(0, ids.length).every((o) => o.status === 'fulfilled')).toBe(true);
    const [gone, first, second] = outcomes.slice(ids.length);
    expect(gone.status === 'rejected' && isForeignKeyViolation(gone.reason)).toBe(true);
    expect([first, second].map((o) => (o.status === 'fulfilled' ? o.value : o.reason)).sort()).toEqual([false, true]);
    expect(await store.db.redeemedToken.count({ where: { tenant } })).toBe(ids.length + 1);
  });

  describe('users, counted as their rows are written', () => {
    /** A passkey as the registration ceremony hands it to the store. */
    const passkey = (userId: string, overrides: Partial<StoredCredential> = {}): StoredCredential => ({
      descriptorId: randomBytes(16).toString('base64url'),
      userId,
      userHandle: Buffer.from(userId).toString('base64url'),
      publicKey: 'pQECAyYgASFYIA',
      signatureCounter: 7,
      attestationFmt: 'packed',
      aaGuid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
      transports: '["usb"]',
      rpid: 'example.com',
      origin: 'https://example.com',
      country: 'NL',
      device: 'Firefox, Linux',
      nickname: 'key',
      backupEligible: false,
      backupState: false,
      isDiscoverable: true,
      uvInitialized: true,
      createdAt: T0,
      lastUsedAt: T0 + MINUTE,
      lastUsedDay: utcDayOf(T0 + MINUTE),
      prfSalt: 'cd'.repeat(32),
      prfEnabled: null,
      madeByUpgrade: false,
      ...overrides,
    });
    const register = (userId: string, options: { aliases?: { aliasHash: string; plaintext: string | null }[]; credential?: Partial<StoredCredential> } = {}) =>
      store.queries.storeRegistration({ webhookDeliveries: [], tenant, credential: passkey(userId, options.credential), aliases: options.aliases });
    const userRow = (userId: string) => store.db.user.findUnique({ where: { tenant_userId: { tenant, userId } }, select: { credentialsCount: true, aliasCount: true } });
    const userCount = async () => (await store.db.appCounter.findUnique({ where: { tenant } }))?.userCount ?? 0;
    const limitUsers = (maxUsers: number | null) => store.db.app.update({ where: { id: tenant }, data: { maxUsers } });

    it('stores a registration Prisma reads back field for field, counts a new user once, and lists the passkeys oldest first', async () => {
      const first = passkey('alice', { createdAt: T0 + 2 * MINUTE });
      expect(await store.queries.storeRegistration({ webhookDeliveries: [], tenant, credential: first })).toMatchObject({ ok: true });
      const second = passkey('alice', { isDiscoverable: null, backupEligible: true, backupState: true, signatureCounter: 4_294_967_295 });
      expect(await store.queries.storeRegistration({ webhookDeliveries: [], tenant, credential: second })).toMatchObject({ ok: true });
      expect(await store.db.credential.findUnique({ where: { tenant_descriptorId: { tenant, descriptorId: first.descriptorId } } })).toEqual({
        ...first,
        tenant,
        signatureCounter: 7n,
        createdAt: new Date(first.createdAt),
        lastUsedAt: new Date(first.lastUsedAt),
      });
      expect(await store.queries.listCredentials(tenant, 'alice')).toEqual([second, first]);
      expect(await store.queries.listCredentials('otherapp', 'alice')).toEqual([]);
      expect(await userRow('alice')).toEqual({ credentialsCount: 2, aliasCount: 0 });
      expect(await userCount()).toBe(1);
      expect(await store.queries.countUsers(tenant)).toBe(1);
    });

    it('reads a credential Prisma wrote with every column', async () => {
      const row = credentialRow({ isDiscoverable: false, createdAt: new Date(T0), lastUsedAt: new Date(T0 + MINUTE), country: 'SE', device: 'Safari', aaGuid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd', prfSalt: 'ef'.repeat(32), prfEnabled: true, madeByUpgrade: true });
      await store.db.credential.create({ data: row });
      expect(await store.queries.listCredentials(tenant, 'user-1')).toEqual([
        {
          descriptorId: row.descriptorId,
          userId: 'user-1',
          userHandle: row.userHandle,
          publicKey: row.publicKey,
          signatureCounter: 5,
          attestationFmt: 'none',
          aaGuid: 'fbfc3007-154e-4ecc-8c0b-6e020557d7bd',
          transports: row.transports,
          rpid: 'example.com',
          origin: 'https://example.com',
          country: 'SE',
          device: 'Safari',
          nickname: 'laptop',
          backupEligible: true,
          backupState: false,
          isDiscoverable: false,
          uvInitialized: false,
          createdAt: T0,
          lastUsedAt: T0 + MINUTE,
          lastUsedDay: row.lastUsedDay,
          prfSalt: 'ef'.repeat(32),
          prfEnabled: true,
          madeByUpgrade: true,
        },
      ]);
    });

    it('replaces the aliases with the registration, and refuses a taken credential id or alias leaving everything as it was', async () => {
      const taken = { aliasHash: 'hash-taken', plaintext: 'taken@example.com' };
      expect(await register('alice', { aliases: [taken] })).toMatchObject({ ok: true });
      expect(await register('bob', { aliases: [{ aliasHash: 'hash-bob', plaintext: null }] })).toMatchObject({ ok: true });
      expect(await userRow('bob')).toEqual({ credentialsCount: 1, aliasCount: 1 });
      expect(await register('bob', { aliases: [{ aliasHash: 'hash-bob-2', plaintext: null }, { aliasHash: 'hash-bob-3', plaintext: 'b3' }] })).toMatchObject({ ok: true });
      expect(await userRow('bob')).toEqual({ credentialsCount: 2, aliasCount: 2 });
      expect((await store.db.alias.findMany({ where: { tenant, userId: 'bob' }, orderBy: { aliasHash: 'asc' } })).map((a) => [a.aliasHash, a.plaintext])).toEqual([
        ['hash-bob-2', null],
        ['hash-bob-3', 'b3'],
      ]);

      const before = { users: await store.db.user.findMany({ where: { tenant } }), aliases: await store.db.alias.count({ where: { tenant } }), count: await userCount() };
      const [existing] = await store.queries.listCredentials(tenant, 'alice');
      const refusals = [
        await register('carol', { aliases: [taken] }).then(() => undefined, (e: unknown) => e),
        await register('carol', { credential: { descriptorId: existing.descriptorId } }).then(() => undefined, (e: unknown) => e),
      ];
      expect(refusals.map(isUniqueViolation)).toEqual([true, true]);
      expect({ users: await store.db.user.findMany({ where: { tenant } }), aliases: await store.db.alias.count({ where: { tenant } }), count: await userCount() }).toEqual(before);
      expect(await store.queries.listCredentials(tenant, 'carol')).toEqual([]);
    });

    it('refuses a new user at maxUsers with nothing stored, and still takes more passkeys of existing users', async () => {
      await limitUsers(2);
      expect(await register('alice')).toMatchObject({ ok: true });
      expect(await register('bob', { aliases: [{ aliasHash: 'hash-bob', plaintext: null }] })).toMatchObject({ ok: true });
      expect(await store.queries.userCapacity(tenant, 'carol')).toEqual({ userCount: 2, maxUsers: 2, hasPasskey: false });
      expect(await store.queries.userCapacity(tenant, 'alice')).toEqual({ userCount: 2, maxUsers: 2, hasPasskey: true });
      expect(await register('carol', { aliases: [{ aliasHash: 'hash-carol', plaintext: null }] })).toEqual({ ok: false, failure: 'max_users_reached' });
      expect(await store.queries.listCredentials(tenant, 'carol')).toEqual([]);
      expect(await userRow('carol')).toBeNull();
      expect(await store.db.alias.count({ where: { tenant, userId: 'carol' } })).toBe(0);
      expect(await register('alice')).toMatchObject({ ok: true });
      expect(await userCount()).toBe(2);

      // A user with only aliases is not counted until their first passkey.
      await store.queries.replaceAliases(tenant, 'dave', [{ aliasHash: 'hash-dave', plaintext: null }], []);
      expect(await register('dave')).toEqual({ ok: false, failure: 'max_users_reached' });
      expect(await userRow('dave')).toEqual({ credentialsCount: 0, aliasCount: 1 });
      await limitUsers(null);
      expect(await register('dave')).toMatchObject({ ok: true });
      expect(await userCount()).toBe(3);
    });

    it('uncounts a user with their last passkey, and forgets them once they have no alias either', async () => {
      expect(await register('alice', { aliases: [{ aliasHash: 'hash-alice', plaintext: null }] })).toMatchObject({ ok: true });
      expect(await register('alice')).toMatchObject({ ok: true });
      const [one, two] = await store.queries.listCredentials(tenant, 'alice');
      expect(await store.queries.deleteCredential(tenant, one.descriptorId, 'alice', [])).toBe(true);
      expect(await store.queries.deleteCredential(tenant, one.descriptorId, 'alice', [])).toBe(false);
      expect(await store.queries.deleteCredential('otherapp', two.descriptorId, 'alice', [])).toBe(false);
      expect([await userRow('alice'), await userCount()]).toEqual([{ credentialsCount: 1, aliasCount: 1 }, 1]);
      expect(await store.queries.deleteCredential(tenant, two.descriptorId, 'alice', [])).toBe(true);
      expect([await userRow('alice'), await userCount()]).toEqual([{ credentialsCount: 0, aliasCount: 1 }, 0]);
      await store.queries.replaceAliases(tenant, 'alice', [], []);
      expect(await userRow('alice')).toBeNull();
      expect(await store.db.alias.count({ where: { tenant } })).toBe(0);
    });

    it('deletes a user with everything of theirs and uncounts them, and leaves other users alone', async () => {
      await register('alice', { aliases: [{ aliasHash: 'hash-alice', plaintext: null }] });
      await register('alice');
      await register('bob');
      await store.queries.replaceAliases(tenant, 'carol', [{ aliasHash: 'hash-carol', plaintext: 'c' }], []);
      await store.queries.deleteUser(tenant, 'alice', []);
      await store.queries.deleteUser(tenant, 'carol', []);
      await store.queries.deleteUser(tenant, 'nobody', []);
      await store.queries.deleteUser('otherapp', 'bob', []);
      expect(await store.db.user.findMany({ where: { tenant }, select: { userId: true } })).toEqual([{ userId: 'bob' }]);
      expect(await store.db.credential.count({ where: { tenant, userId: 'alice' } })).toBe(0);
      expect(await store.db.alias.count({ where: { tenant } })).toBe(0);
      expect(await userCount()).toBe(1);
    });

    it('pages through the users by key, with their aliases, passkey counts and last use, and nothing of another app', async () => {
      const other = `${tenant}x`;
      await store.db.app.create({ data: { id: other, adminEmail: 'owner@example.com' } });
      await store.queries.storeRegistration({ webhookDeliveries: [], tenant: other, credential: passkey('a-user') });
      await register('u3', { aliases: [{ aliasHash: 'h3b', plaintext: 'three@example.com' }, { aliasHash: 'h3a', plaintext: null }], credential: { lastUsedAt: T0 + 3 * MINUTE } });
      await register('u3', { credential: { lastUsedAt: T0 + 5 * MINUTE } });
      await register('u1');
      await store.queries.replaceAliases(tenant, 'u2', [{ aliasHash: 'h2', plaintext: 'two' }], []);
      await register('u4');

      const first = await store.queries.usersPage(tenant, '', 2);
      expect(first).toEqual({
        users: [
          { userId: 'u1', credentialsCount: 1, aliasCount: 0, aliases: [], lastUsedAt: T0 + MINUTE },
          { userId: 'u2', credentialsCount: 0, aliasCount: 1, aliases: ['two'], lastUsedAt: null },
        ],
        next: 'u2',
      });
      const second = await store.queries.usersPage(tenant, 'u2', 2);
      expect(second).toEqual({
        users: [
          { userId: 'u3', credentialsCount: 2, aliasCount: 2, aliases: [null, 'three@example.com'], lastUsedAt: T0 + 5 * MINUTE },
          { userId: 'u4', credentialsCount: 1, aliasCount: 0, aliases: [], lastUsedAt: T0 + MINUTE },
        ],
        next: 'u4',
      });
      expect(await store.queries.usersPage(tenant, 'u4', 2)).toEqual({ users: [], next: null });
      expect((await store.queries.usersPage(tenant, '', 10)).next).toBeNull();
      expect(await store.queries.usersPage('nosuchapp', '', 10)).toEqual({ users: [], next: null });
      expect(await store.queries.countUsers('nosuchapp')).toBe(0);
      expect(await store.queries.userCapacity('nosuchapp', 'u1')).toBeUndefined();
    });

    it('refuses a registration for an app that is gone, as a foreign-key violation, with nothing stored', async () => {
      await store.db.app.delete({ where: { id: tenant } });
      const refusal = await register('alice').then(() => undefined, (e: unknown) => e);
      expect(isForeignKeyViolation(refusal)).toBe(true);
      expect(await store.db.user.count({ where: { tenant } })).toBe(0);
      expect(await store.db.credential.count({ where: { tenant } })).toBe(0);
    });
  });

  describe('the event log', () => {
    const event = (id: string, overrides: Record<string, unknown> = {}) => ({
      id: `${tenant}-${id}`,
      tenant,
      performedAt: T0,
      eventType: 'ApiUserDeleted',
      message: 'The user\'s "passkeys" went: ünïcode',
      severity: 'Informational',
      performedBy: 'System',
      subject: 'user-1',
      apiKeyId: '',
      ...overrides,
    });

    it('writes a batch of events Prisma reads back, with each app’s count, and pages it newest first by key', async () => {
      const other = `${tenant}x`;
      await store.db.app.create({ data: { id: other, adminEmail: 'owner@example.com' } });
      const batch = [event('a', { performedAt: T0 + 1 }), event('b', { performedAt: T0 + 2, apiKeyId: 'ab12' }), event('c', { performedAt: T0 + 2 }), event('d', { tenant: other })];
      await store.queries.writeEvents(batch);
      expect(await store.db.event.findUnique({ where: { id: `${tenant}-b` } })).toEqual({ ...batch[1], performedAt: new Date(T0 + 2) });
      expect((await store.db.appCounter.findMany({ where: { tenant: { in: [tenant, other] } }, orderBy: { tenant: 'asc' }, select: { eventCount: true } })).map((a) => a.eventCount)).toEqual([3, 1]);
      const first = await store.queries.eventsPage(tenant, null, 2);
      expect(first).toEqual({ total: 3, events: [batch[2], batch[1]].map(({ tenant: _tenant, ...e }) => e) });
      const rest = await store.queries.eventsPage(tenant, { performedAt: T0 + 2, id: `${tenant}-b` }, 2);
      expect(rest.events.map((e) => e.id)).toEqual([`${tenant}-a`]);
      await store.queries.writeEvents([event('e', { performedAt: T0 + 3 })]);
      expect((await store.queries.eventsPage(tenant, null, 1)).total).toBe(4);
    });

    it('refuses a whole batch with an event of an app that is gone, as a foreign-key violation', async () => {
      const refusal = await store.queries.writeEvents([event('kept'), event('orphan', { tenant: 'noapp' })]).then(() => undefined, (e: unknown) => e);
      expect(isForeignKeyViolation(refusal)).toBe(true);
      expect(await store.db.event.count({ where: { tenant } })).toBe(0);
      expect(await store.db.appCounter.count({ where: { tenant } })).toBe(0);
    });
  });

  describe('redeemed tokens', () => {
    it('redeems a token id once per tenant, in a row Prisma reads with its expiry', async () => {
      expect(await store.queries.redeemToken(tenant, 'token-1', T0, [])).toBe(true);
      expect(await store.queries.redeemToken(tenant, 'token-1', T0, [])).toBe(false);
      expect(await store.db.redeemedToken.findUnique({ where: { tenant_tokenId: { tenant, tokenId: 'token-1' } } })).toEqual({ tenant, tokenId: 'token-1', expiresAt: new Date(T0) });
    });

    it('sees a token id Prisma recorded as already redeemed', async () => {
      await store.db.redeemedToken.create({ data: { tenant, tokenId: 'token-2', expiresAt: new Date(T0) } });
      expect(await store.queries.redeemToken(tenant, 'token-2', T0, [])).toBe(false);
    });
  });

  it('refuses a redeemed token or session id for an app that is gone, as a foreign-key violation', async () => {
    await store.db.app.delete({ where: { id: tenant } });
    const refusals = [
      await store.queries.redeemToken(tenant, 'token-3', T0, []).then(() => undefined, (e: unknown) => e),
      await store.queries.redeemTokenAndFindCredential(tenant, 'session-3', T0, 'any').then(() => undefined, (e: unknown) => e),
    ];
    expect(refusals.map(isForeignKeyViolation)).toEqual([true, true]);
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
      const write = store.queries.redeemToken(tenant, 'token-during-lock', T0, []);
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
