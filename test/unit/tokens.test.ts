import { createHmac, hkdfSync } from 'node:crypto';
import { ApiError } from '../../src/server/core/apiError';
import { AppIncarnations } from '../../src/server/services/apps/incarnations';
import { TokenService, humanizeSeconds, type TokenEnvelope } from '../../src/server/services/tokens/tokenService';
import { openStore, TokenKeyRepository, type Store } from '../../src/server/store';
import { createTestDatabase, type TestDatabase } from '../support/testService';

const MINUTE = 60_000;
const DAY = 24 * 60 * MINUTE;

interface Payload extends TokenEnvelope {
  userId: string;
}

async function failure(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!(error instanceof ApiError)) throw new Error(`expected an ApiError, got ${String(error)}`);
  return error;
}

const keyIdOf = (token: string) => token.split('.')[1];

describe('TokenService', () => {
  let database: TestDatabase;
  let store: Store;
  let clock: number;
  let tokens: TokenService;
  const now = () => clock;

  beforeAll(async () => {
    database = await createTestDatabase('sqlite');
    store = openStore(database.url);
    await store.migrate();
    // Token keys belong to an app (a foreign key), so the apps these tests sign for exist.
    await store.db.app.createMany({ data: Array.from({ length: 9 }, (_, i) => ({ id: `tokapp${i + 1}`, adminEmail: 'owner@example.com' })) });
  });
  afterAll(async () => {
    await store.close();
    await database.drop();
  });
  beforeEach(() => {
    clock = Date.parse('2026-01-01T00:00:00Z');
    tokens = new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }), now });
  });

  const payload = (app: string, lifetimeMs = 10 * MINUTE): Payload => ({ app, exp: clock + lifetimeMs, userId: 'u1' });

  it('opens what it issued, for the same app and kind', async () => {
    const token = await tokens.issue('verify', payload('tokapp1'));
    expect(token).toMatch(/^verify_[A-Za-z0-9_-]+\.\d+\.[A-Za-z0-9_-]{43}$/);
    await expect(tokens.open<Payload>('verify', token, 'tokapp1')).resolves.toMatchObject({ userId: 'u1' });
  });

  it('refuses a token of another kind, even with the prefix swapped', async () => {
    const token = await tokens.issue('register', payload('tokapp2'));
    expect((await failure(tokens.open('verify', token, 'tokapp2'))).code).toBe('invalid_token');
    expect((await failure(tokens.open('verify', token.replace(/^register_/, 'verify_'), 'tokapp2'))).code).toBe('invalid_token');
  });

  it('refuses a token of another app', async () => {
    const token = await tokens.issue('verify', payload('tokapp3'));
    await tokens.issue('verify', payload('tokapp4'));
    expect((await failure(tokens.open('verify', token, 'tokapp4'))).code).toBe('invalid_token');
  });

  it('refuses a changed payload or MAC, and says which of missing, malformed or invalid it is', async () => {
    const token = await tokens.issue('verify', payload('tokapp5'));
    const [body, keyId, mac] = token.slice('verify_'.length).split('.');
    const forgedBody = Buffer.from(JSON.stringify({ ...payload('tokapp5'), userId: 'admin' })).toString('base64url');
    expect((await failure(tokens.open('verify', `verify_${forgedBody}.${keyId}.${mac}`, 'tokapp5'))).code).toBe('invalid_token');
    const flipped = `${mac.slice(0, -2)}${mac.endsWith('AA') ? 'BA' : 'AA'}`;
    expect((await failure(tokens.open('verify', `verify_${body}.${keyId}.${flipped}`, 'tokapp5'))).code).toBe('invalid_token');
    expect((await failure(tokens.open('verify', 'verify_not a token', 'tokapp5'))).code).toBe('invalid_token_format');
    expect((await failure(tokens.open('verify', '', 'tokapp5'))).code).toBe('missing_token');
    expect((await failure(tokens.open('verify', undefined, 'tokapp5'))).code).toBe('missing_token');
  });

  it('answers 403 expired_token with how long ago, once exp has passed (exp itself is still valid)', async () => {
    const token = await tokens.issue('verify', payload('tokapp6', 2 * MINUTE));
    clock += 2 * MINUTE;
    await expect(tokens.open('verify', token, 'tokapp6')).resolves.toBeDefined();
    clock += 10_000;
    const expired = await failure(tokens.open('verify', token, 'tokapp6'));
    expect([expired.code, expired.status, expired.message]).toEqual(['expired_token', 403, 'The token expired 10 seconds ago.']);
  });

  it('rotates weekly: the new key verifies at once but signs only after it is published', async () => {
    const first = await tokens.issue('verify', payload('tokapp7', 30 * DAY));
    clock += 7 * DAY;
    const duringPublication = await tokens.issue('verify', payload('tokapp7', 30 * DAY));
    expect(await store.db.tokenKey.count({ where: { tenant: 'tokapp7' } })).toBe(2);
    expect(keyIdOf(duringPublication)).toBe(keyIdOf(first));

    clock += 2 * MINUTE;
    const afterPublication = await tokens.issue('verify', payload('tokapp7', 30 * DAY));
    expect(keyIdOf(afterPublication)).not.toBe(keyIdOf(first));
    for (const token of [first, duringPublication, afterPublication]) await expect(tokens.open('verify', token, 'tokapp7')).resolves.toBeDefined();
  });

  it('never signs with a key another replica has not loaded yet', async () => {
    const replicaA = tokens;
    const replicaB = new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }), now });
    const first = await replicaA.issue('verify', payload('tokapp8', 30 * DAY));
    clock += 7 * DAY - 500;
    // B loads the key list half a second before A rotates: it trusts that list for a while, and a
    // key missing from it is not looked up again so soon. Only the publish delay keeps A from
    // signing with the key B does not have.
    await expect(replicaB.open('verify', first, 'tokapp8')).resolves.toBeDefined();
    clock += 500;
    const signedRightAfterRotation = await replicaA.issue('verify', payload('tokapp8'));
    expect(await store.db.tokenKey.count({ where: { tenant: 'tokapp8' } })).toBe(2);
    await expect(replicaB.open('verify', signedRightAfterRotation, 'tokapp8')).resolves.toBeDefined();
    clock += 2 * MINUTE;
    const signedWithTheNewKey = await replicaA.issue('verify', payload('tokapp8'));
    expect(keyIdOf(signedWithTheNewKey)).not.toBe(keyIdOf(first));
    await expect(replicaB.open('verify', signedWithTheNewKey, 'tokapp8')).resolves.toBeDefined();
  });

  it('keeps a key long enough to verify every token it signed, then prunes it', async () => {
    const early = await tokens.issue('verify', payload('tokapp9', 30 * DAY));
    clock += 7 * DAY - MINUTE; // the last token the first key signs, living the longest a token may
    const late = await tokens.issue('verify', payload('tokapp9', 30 * DAY));
    expect(keyIdOf(late)).toBe(keyIdOf(early));
    const start = Date.parse('2026-01-01T00:00:00Z');
    for (const day of [14, 21, 28, 35]) {
      clock = start + day * DAY;
      await tokens.issue('verify', payload('tokapp9')); // rotates weekly, pruning keys past retention
    }
    expect(await store.db.tokenKey.count({ where: { tenant: 'tokapp9' } })).toBe(5);
    clock = start + 37 * DAY - 2 * MINUTE; // `late` still lives: its key must still be there
    await expect(new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }), now }).open('verify', late, 'tokapp9')).resolves.toBeDefined();
    clock = start + 42 * DAY;
    await tokens.issue('verify', payload('tokapp9'));
    expect(await store.db.tokenKey.count({ where: { tenant: 'tokapp9' } })).toBe(5);
    clock = start; // even a token that has not expired is refused once its key is gone
    expect((await failure(new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }), now }).open('verify', early, 'tokapp9'))).code).toBe('invalid_token');
  });
  describe('incarnations', () => {
    it('verifies a token made the way tokens were made before incarnations (no inc, the original derivation) for an app that predates them', async () => {
      await tokens.issue('verify', payload('tokapp9')); // makes the app's first token key
      const [row] = await store.db.tokenKey.findMany({ where: { tenant: 'tokapp9' } });
      const macKey = Buffer.from(hkdfSync('sha256', Buffer.from(row.keyMaterial, 'base64'), Buffer.alloc(0), 'passwordless-token-v1:tokapp9', 32));
      const body = Buffer.from(JSON.stringify(payload('tokapp9'))).toString('base64url');
      const old = `verify_${body}.${row.keyId}.${createHmac('sha256', macKey).update('verify_').update(body).digest('base64url')}`;
      await expect(tokens.open<Payload>('verify', old, 'tokapp9')).resolves.toMatchObject({ userId: 'u1' });
    });

    it("binds tokens to one creation of the app: a replica that still caches the old app's keys refuses its tokens once it has read the new incarnation", async () => {
      await store.db.app.create({ data: { id: 'reborn', adminEmail: 'owner@example.com', incarnation: 'first' } });
      const replicaA = new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }), now, incarnations: new AppIncarnations() });
      const seenByB = new AppIncarnations();
      const replicaB = new TokenService({ tokenKeys: new TokenKeyRepository({ db: store.db }), now, incarnations: seenByB });
      const old = await replicaA.issue('verify', payload('reborn'));
      expect(JSON.parse(Buffer.from(old.slice('verify_'.length).split('.')[0], 'base64url').toString())).toMatchObject({ inc: 'first' });
      await expect(replicaB.open('verify', old, 'reborn')).resolves.toMatchObject({ app: 'reborn' }); // B now caches the first app's keys

      await store.db.app.delete({ where: { id: 'reborn' } });
      await store.db.app.create({ data: { id: 'reborn', adminEmail: 'owner@example.com', incarnation: 'second' } });
      replicaA.forget('reborn'); // what the deleting process does
      const fresh = await replicaA.issue('verify', payload('reborn'));
      // A key check on B reads the new incarnation (no extra round trip: it reads the app row anyway).
      seenByB.note('reborn', 'second');
      expect((await failure(replicaB.open('verify', old, 'reborn'))).code).toBe('invalid_token');
      await expect(replicaB.open('verify', fresh, 'reborn')).resolves.toMatchObject({ inc: 'second' });
      // An old token re-signed with no inc, or with its inc edited, fails its MAC.
      const [body, keyId, mac] = old.slice('verify_'.length).split('.');
      const edited = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), inc: 'second' })).toString('base64url');
      expect((await failure(replicaA.open('verify', `verify_${edited}.${keyId}.${mac}`, 'reborn'))).code).toBe('invalid_token');
    });
  });
});

describe('humanizeSeconds', () => {
  it.each([
    [1, '1 second'],
    [10, '10 seconds'],
    [60, '1 minute'],
    [90, '90 seconds'],
    [120, '2 minutes'],
    [3600, '1 hour'],
    [2 * 86400 + 5, '2 days'],
  ])('%i -> %s', (seconds, text) => {
    expect(humanizeSeconds(seconds)).toBe(text);
  });

});
