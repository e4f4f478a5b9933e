/**
 * The operator console's session store (src/server/console/sessions), driven through real
 * express-session and a tiny Express app with supertest, each agent a browser with a cookie jar of
 * its own: in memory (an injected clock decides idle expiry) and on Redis (TEST_REDIS_URL, a key
 * prefix per test; skipped loudly without). Both give the middleware's session directory its
 * `sessionsOf` path.
 */
import express, { type Request } from 'express';
import session, { type SessionData } from 'express-session';
import { createClient } from 'redis';
import supertest from 'supertest';
import { sessionDirectory } from '../../src/express/sessions/sessionDirectory';
import type { RedisConnection } from '../../src/server/redis/connection';
import { consoleSessionStore, DEFAULT_MAX_SESSIONS, type ConsoleSessionStore, type ConsoleSessionStoreOptions } from '../../src/server/console/sessions/consoleSessionStore';
import { MemoryConsoleSessionStore } from '../../src/server/console/sessions/memoryConsoleSessionStore';
import { dropRedisKeys, testRedisUrl, uniqueRedisPrefix } from '../support/redis';

const IDLE_MS = 30 * 60_000;

/** What the console app keeps in a session: the middleware's record of who signed in, and a counter of its own. */
interface ConsoleValues {
  passwordlessSession?: { userId: string; createdAt: number; lastSeenAt: number; device: string; browser: string };
  notes?: number;
}
const valuesOf = (req: Request) => req.session as unknown as ConsoleValues;

/** The console's session set-up: an idle timeout (`rolling`), no session stored before a sign-in. */
function consoleApp(store: ConsoleSessionStore) {
  const app = express();
  app.use(session({ store, name: 'console.sid', secret: 'console-test-secret', resave: false, saveUninitialized: false, rolling: true }));
  // A sign-in as the middleware ends one: a new session id, then its record.
  app.post('/sign-in/:userId', (req, res, next) => {
    req.session.regenerate((error) => {
      if (error) return next(error);
      valuesOf(req).passwordlessSession = { userId: String(req.params.userId), createdAt: 1, lastSeenAt: 1, device: 'Linux', browser: 'Firefox' };
      res.json({ sid: req.sessionID });
    });
  });
  // Another user's record on the same session id (no regenerate): the index must follow it.
  app.post('/become/:userId', (req, res) => {
    valuesOf(req).passwordlessSession = { userId: String(req.params.userId), createdAt: 2, lastSeenAt: 2, device: 'Linux', browser: 'Firefox' };
    res.status(204).end();
  });
  app.post('/note', (req, res) => {
    const values = valuesOf(req);
    values.notes = (values.notes ?? 0) + 1;
    res.json({ notes: values.notes });
  });
  app.get('/me', (req, res) => {
    const values = valuesOf(req);
    res.json({ userId: values.passwordlessSession?.userId ?? null, notes: values.notes ?? 0 });
  });
  app.post('/sign-out', (req, res, next) => req.session.destroy((error) => (error ? next(error) : res.status(204).end())));
  return app;
}

/** A browser: its cookie jar, and its session id once signed in. */
async function signedIn(app: express.Express, userId: string) {
  const agent = supertest.agent(app);
  const reply = await agent.post(`/sign-in/${userId}`).expect(200);
  return { agent, sid: reply.body.sid as string };
}

const who = async (agent: ReturnType<typeof supertest.agent>) => (await agent.get('/me').expect(200)).body.userId as string | null;

const sessionsOf = (store: ConsoleSessionStore, userId: string) =>
  new Promise<Record<string, SessionData>>((resolve, reject) => store.sessionsOf(userId, (error, sessions) => (error ? reject(error) : resolve(sessions!))));
const storeGet = (store: ConsoleSessionStore, sid: string) =>
  new Promise<SessionData | null | undefined>((resolve, reject) => store.get(sid, (error, value) => (error ? reject(error) : resolve(value))));
const storeCall = (call: (done: (error?: unknown) => void) => void) => new Promise<void>((resolve, reject) => call((error) => (error ? reject(error) : resolve())));
const aSession = (extra: Record<string, unknown> = {}): SessionData => ({ cookie: { originalMaxAge: null, expires: null }, ...extra }) as unknown as SessionData;
const ownedBy = (userId: string) => aSession({ passwordlessSession: { userId, createdAt: 1, lastSeenAt: 1, device: 'Linux', browser: 'Firefox' } });

/** Every command the store sends, on a connection made as the service's is (node-redis, raw commands). */
const rawClient = (url: string) => createClient({ url });
type CountingRedis = RedisConnection & { commands: string[][]; raw: ReturnType<typeof rawClient> };
async function countingRedis(url: string): Promise<CountingRedis> {
  const raw = rawClient(url);
  await raw.connect();
  const commands: string[][] = [];
  return {
    commands,
    raw,
    sendCommand: (args) => {
      commands.push(args);
      return raw.sendCommand(args);
    },
    isAvailable: () => raw.isReady,
    ping: async () => void (await raw.ping()),
    close: async () => raw.destroy(),
  };
}

interface Fixture {
  store: ConsoleSessionStore;
  app: express.Express;
  close(): Promise<void>;
}

const redisUrl = testRedisUrl();
const kinds: Array<[string, () => Promise<Fixture>]> = [
  [
    'in memory',
    async () => {
      const store = consoleSessionStore({ keyPrefix: 'unused:', idleMs: IDLE_MS });
      return { store, app: consoleApp(store), close: async () => undefined };
    },
  ],
  ...(redisUrl
    ? [
        [
          'on Redis',
          async () => {
            const redis = await countingRedis(redisUrl);
            const keyPrefix = uniqueRedisPrefix();
            const store = consoleSessionStore({ redis, keyPrefix, idleMs: IDLE_MS });
            return {
              store,
              app: consoleApp(store),
              close: async () => {
                await dropRedisKeys(redisUrl, keyPrefix);
                await redis.close();
              },
            };
          },
        ] as [string, () => Promise<Fixture>],
      ]
    : []),
];

describe.each(kinds)('the console session store %s, through express-session', (_kind, make) => {
  let fixture: Fixture;
  beforeEach(async () => {
    fixture = await make();
  });
  afterEach(() => fixture.close());

  it('keeps a signed-in session across requests, with what a request changed; a stranger has none', async () => {
    const { agent } = await signedIn(fixture.app, 'op-1');
    expect(await who(agent)).toBe('op-1');
    await agent.post('/note').expect(200, { notes: 1 });
    await agent.post('/note').expect(200, { notes: 2 });
    expect((await agent.get('/me').expect(200)).body).toEqual({ userId: 'op-1', notes: 2 });
    expect(await who(supertest.agent(fixture.app))).toBeNull();
  });

  it('answers null for a session it does not hold, and destroys one idempotently', async () => {
    expect(await storeGet(fixture.store, 'no-such-sid')).toBeNull();
    const { agent, sid } = await signedIn(fixture.app, 'op-1');
    await storeCall((done) => fixture.store.destroy(sid, done));
    await storeCall((done) => fixture.store.destroy(sid, done));
    await storeCall((done) => fixture.store.destroy('no-such-sid', done));
    expect(await storeGet(fixture.store, sid)).toBeNull();
    expect(await who(agent)).toBeNull();
  });

  it("lists a user's sessions by sessionsOf, and forgets the one that signed out", async () => {
    const first = await signedIn(fixture.app, 'op-1');
    const second = await signedIn(fixture.app, 'op-1');
    const other = await signedIn(fixture.app, 'op-2');
    const listed = await sessionsOf(fixture.store, 'op-1');
    expect(Object.keys(listed).sort()).toEqual([first.sid, second.sid].sort());
    expect((listed[first.sid] as unknown as ConsoleValues).passwordlessSession?.userId).toBe('op-1');
    expect(Object.keys(await sessionsOf(fixture.store, 'op-2'))).toEqual([other.sid]);

    await first.agent.post('/sign-out').expect(204);
    expect(Object.keys(await sessionsOf(fixture.store, 'op-1'))).toEqual([second.sid]);
    expect(await sessionsOf(fixture.store, 'nobody')).toEqual({});
  });

  it("moves a session in the index when another user's record replaces its owner's", async () => {
    const { agent, sid } = await signedIn(fixture.app, 'op-1');
    await agent.post('/become/op-2').expect(204);
    expect(await sessionsOf(fixture.store, 'op-1')).toEqual({});
    expect(Object.keys(await sessionsOf(fixture.store, 'op-2'))).toEqual([sid]);
  });

  it("is read by the middleware's session directory through sessionsOf, which lists and ends a session", async () => {
    const directory = sessionDirectory(fixture.store);
    expect(directory.how).toBe('sessionsOf');
    const { agent, sid } = await signedIn(fixture.app, 'op-1');
    const candidates = await directory.candidates('op-1');
    expect([...candidates.keys()]).toEqual([sid]);
    expect(candidates.get(sid)?.passwordlessSession?.userId).toBe('op-1');
    await directory.end('op-1', sid);
    expect(await who(agent)).toBeNull();
    expect((await directory.candidates('op-1')).size).toBe(0);
  });

  it('keeps a destroyed session destroyed: a request that loaded it before writes it back in vain (and it is not listed)', async () => {
    const { agent, sid } = await signedIn(fixture.app, 'op-1');
    const loaded = await storeGet(fixture.store, sid);
    await storeCall((done) => fixture.store.destroy(sid, done));
    // What express-session does when that request answers: save it (changed) or touch it.
    await storeCall((done) => fixture.store.set(sid, { ...loaded!, notes: 9 } as unknown as SessionData, done));
    await storeCall((done) => fixture.store.touch(sid, loaded!, done));
    expect(await storeGet(fixture.store, sid)).toBeNull();
    expect(await sessionsOf(fixture.store, 'op-1')).toEqual({});
    expect(await who(agent)).toBeNull();
    // Another session id is not affected.
    const other = await signedIn(fixture.app, 'op-1');
    expect(await who(other.agent)).toBe('op-1');
  });

  it("ends a session at its cookie's expiry when that comes before the idle timeout", async () => {
    await storeCall((done) => fixture.store.set('short', aSession({ cookie: { originalMaxAge: 1, expires: new Date(Date.now() - 1) } }), done));
    expect(await storeGet(fixture.store, 'short')).toBeNull();
  });

  it('refuses to be built with a nonsensical idle timeout or size', () => {
    expect(() => consoleSessionStore({ keyPrefix: 'x:', idleMs: 0 })).toThrow(/idleMs/);
    expect(() => consoleSessionStore({ keyPrefix: 'x:', idleMs: Number.NaN })).toThrow(/idleMs/);
    expect(() => consoleSessionStore({ keyPrefix: 'x:', idleMs: 1000, maxSessions: 0 })).toThrow(/maxSessions/);
  });
});

describe('the console session store in memory', () => {
  /** A clock that moves only when told. */
  function memory(options: Partial<ConsoleSessionStoreOptions> = {}) {
    const clock = { now: Date.UTC(2026, 10, 1) };
    const store = consoleSessionStore({ keyPrefix: 'unused:', idleMs: IDLE_MS, now: () => clock.now, ...options }) as MemoryConsoleSessionStore;
    return { clock, store, app: consoleApp(store) };
  }

  it('is the memory store without redis, holding 10 000 sessions by default', () => {
    const { store } = memory();
    expect(store).toBeInstanceOf(MemoryConsoleSessionStore);
    expect(DEFAULT_MAX_SESSIONS).toBe(10_000);
  });

  it('ends a session idleMs after its last request, and each request (rolling: a touch) moves that on', async () => {
    const { clock, store, app } = memory();
    const { agent, sid } = await signedIn(app, 'op-1');
    for (let i = 0; i < 3; i++) {
      clock.now += IDLE_MS - 1;
      expect(await who(agent)).toBe('op-1');
    }
    clock.now += IDLE_MS;
    expect(await storeGet(store, sid)).toBeNull();
    expect(await who(agent)).toBeNull();
    expect(await sessionsOf(store, 'op-1')).toEqual({});
    expect(store.size).toBe(0);
    expect(store.indexedUsers).toBe(0);
  });

  it('at maxSessions, evicts the session closest to expiry (not the oldest) and unlists it', async () => {
    const { clock, store, app } = memory({ maxSessions: 3 });
    const first = await signedIn(app, 'op-1');
    clock.now += 1;
    const second = await signedIn(app, 'op-2');
    clock.now += 1;
    const third = await signedIn(app, 'op-3');
    clock.now += 1;
    // The first is touched: now the second is the one closest to expiry.
    expect(await who(first.agent)).toBe('op-1');
    clock.now += 1;
    const fourth = await signedIn(app, 'op-4');
    expect(store.size).toBe(3);
    expect(store.indexedUsers).toBe(3);
    expect(await who(second.agent)).toBeNull();
    expect(await sessionsOf(store, 'op-2')).toEqual({});
    for (const [agent, userId] of [[first.agent, 'op-1'], [third.agent, 'op-3'], [fourth.agent, 'op-4']] as const) expect(await who(agent)).toBe(userId);
    expect(Object.keys(await sessionsOf(store, 'op-1'))).toEqual([first.sid]);
  });

  it('keeps its per-user index in step with destroys and changes of owner', async () => {
    const { store, app } = memory();
    const first = await signedIn(app, 'op-1');
    const second = await signedIn(app, 'op-2');
    expect(store.indexedUsers).toBe(2);
    await second.agent.post('/become/op-1').expect(204);
    expect(store.indexedUsers).toBe(1);
    expect(Object.keys(await sessionsOf(store, 'op-1')).sort()).toEqual([first.sid, second.sid].sort());
    await first.agent.post('/sign-out').expect(204);
    await second.agent.post('/sign-out').expect(204);
    expect(store.indexedUsers).toBe(0);
    expect(store.size).toBe(0);
  });

  it('evicts on a new session only: rewriting a held session at maxSessions evicts nothing', async () => {
    const { store } = memory({ maxSessions: 2 });
    await storeCall((done) => store.set('a', ownedBy('op-1'), done));
    await storeCall((done) => store.set('b', ownedBy('op-2'), done));
    await storeCall((done) => store.set('a', ownedBy('op-1'), done));
    expect(store.size).toBe(2);
    expect(await storeGet(store, 'b')).not.toBeNull();
  });

  it('drops expired sessions a few per call, not in one scan, and all of them in the end', async () => {
    const { clock, store } = memory({ maxSessions: 2000 });
    for (let i = 0; i < 1000; i++) store.set(`s${i}`, ownedBy(`op-${i % 10}`));
    expect(store.size).toBe(1000);
    clock.now += IDLE_MS;
    await storeGet(store, 'unknown');
    expect(store.size).toBe(1000 - 16);
    for (let i = 0; i < 70; i++) await storeGet(store, 'unknown');
    expect(store.size).toBe(0);
    expect(store.indexedUsers).toBe(0);
    expect(await sessionsOf(store, 'op-3')).toEqual({});
  });

  it("keeps a copy: the caller's later changes to the object do not reach the store", async () => {
    const { store } = memory();
    const data = ownedBy('op-1') as unknown as ConsoleValues & SessionData;
    await storeCall((done) => store.set('a', data, done));
    data.notes = 99;
    expect((await storeGet(store, 'a')) as unknown as ConsoleValues).not.toHaveProperty('notes');
  });

  it('holds a session nobody signed in to (a sign-in under way) without listing it', async () => {
    const { store } = memory();
    await storeCall((done) => store.set('pending', aSession({ challenge: 'c' }), done));
    expect(await storeGet(store, 'pending')).toMatchObject({ challenge: 'c' });
    expect(await sessionsOf(store, 'undefined')).toEqual({});
  });

  it('answers an error for a session JSON cannot hold, and keeps the one it had', async () => {
    const { store } = memory();
    await storeCall((done) => store.set('a', ownedBy('op-1'), done));
    const cyclic = ownedBy('op-1') as unknown as Record<string, unknown>;
    cyclic.self = cyclic;
    await expect(storeCall((done) => store.set('a', cyclic as unknown as SessionData, done))).rejects.toThrow(/circular/i);
    expect(await storeGet(store, 'a')).toMatchObject({ passwordlessSession: { userId: 'op-1' } });
  });
});

(redisUrl ? describe : describe.skip)('the console session store on Redis', () => {
  let redis: CountingRedis;
  let keyPrefix: string;
  let store: ConsoleSessionStore;
  let app: express.Express;
  beforeEach(async () => {
    redis = await countingRedis(redisUrl!);
    keyPrefix = uniqueRedisPrefix();
    store = consoleSessionStore({ redis, keyPrefix, idleMs: IDLE_MS });
    app = consoleApp(store);
  });
  afterEach(async () => {
    await dropRedisKeys(redisUrl!, keyPrefix);
    await redis.close();
  });

  const sessionKey = (sid: string) => `${keyPrefix}console:sess:${sid}`;
  const userKey = (userId: string) => `${keyPrefix}console:user:${userId}`;

  it('keeps a session as JSON under console:sess:<sid> for idleMs, and its sid in console:user:<userId>', async () => {
    const { sid } = await signedIn(app, 'op-1');
    expect(JSON.parse((await redis.raw.get(sessionKey(sid)))!)).toMatchObject({ passwordlessSession: { userId: 'op-1' }, cookie: {} });
    for (const key of [sessionKey(sid), userKey('op-1')]) {
      const ttl = await redis.raw.pTTL(key);
      expect(ttl).toBeGreaterThan(IDLE_MS - 10_000);
      expect(ttl).toBeLessThanOrEqual(IDLE_MS);
    }
    expect(await redis.raw.sMembers(userKey('op-1'))).toEqual([sid]);
  });

  it('moves the expiry of the session and of its user set on at each request (rolling: a touch)', async () => {
    const { agent, sid } = await signedIn(app, 'op-1');
    // As if most of the idle time had passed.
    await redis.raw.pExpire(sessionKey(sid), 5_000);
    await redis.raw.pExpire(userKey('op-1'), 5_000);
    expect(await who(agent)).toBe('op-1');
    expect(await redis.raw.pTTL(sessionKey(sid))).toBeGreaterThan(IDLE_MS - 10_000);
    expect(await redis.raw.pTTL(userKey('op-1'))).toBeGreaterThan(IDLE_MS - 10_000);
  });

  it('forgets a session Redis expired, and does not bring it back; its sid leaves the user set when the set is read', async () => {
    const { agent, sid } = await signedIn(app, 'op-1');
    const kept = await signedIn(app, 'op-1');
    // Expiry in the past: Redis deletes the key as its own expiry would.
    await redis.raw.pExpireAt(sessionKey(sid), Date.now() - 1000);
    expect(await who(agent)).toBeNull();
    expect(await redis.raw.exists(sessionKey(sid))).toBe(0);
    expect(await redis.raw.sMembers(userKey('op-1'))).toHaveLength(2);
    expect(Object.keys(await sessionsOf(store, 'op-1'))).toEqual([kept.sid]);
    expect(await redis.raw.sMembers(userKey('op-1'))).toEqual([kept.sid]);
  });

  it('drops from the user set a sid that was destroyed, or taken over by another user', async () => {
    const gone = await signedIn(app, 'op-1');
    const moved = await signedIn(app, 'op-1');
    await gone.agent.post('/sign-out').expect(204);
    await moved.agent.post('/become/op-2').expect(204);
    expect(await sessionsOf(store, 'op-1')).toEqual({});
    expect(await redis.raw.exists(userKey('op-1'))).toBe(0);
    expect(Object.keys(await sessionsOf(store, 'op-2'))).toEqual([moved.sid]);
  });

  it('costs a request on a signed-in session two round trips: one to read it, one to touch or save it', async () => {
    const { agent } = await signedIn(app, 'op-1');
    redis.commands.length = 0;
    await agent.get('/me').expect(200);
    expect(redis.commands.map(([name]) => name)).toEqual(['GET', 'EVAL']);
    redis.commands.length = 0;
    await agent.post('/note').expect(200);
    expect(redis.commands.map(([name]) => name)).toEqual(['GET', 'EVAL']);
    redis.commands.length = 0;
    await supertest(app).get('/me').expect(200);
    expect(redis.commands).toEqual([]);
  });

  it("keeps a session no longer than its cookie's expiry", async () => {
    await storeCall((done) => store.set('short', aSession({ cookie: { originalMaxAge: 60_000, expires: new Date(Date.now() + 60_000) } }), done));
    const ttl = await redis.raw.pTTL(sessionKey('short'));
    expect(ttl).toBeGreaterThan(50_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('answers null for a value under its key that is not a session', async () => {
    await redis.raw.set(sessionKey('junk'), 'not json');
    expect(await storeGet(store, 'junk')).toBeNull();
  });

  it('passes a Redis failure to express-session as an error, not as a missing session', async () => {
    const { sid } = await signedIn(app, 'op-1');
    await redis.close();
    await expect(storeGet(store, sid)).rejects.toThrow();
    redis = await countingRedis(redisUrl!); // for afterEach
  });
});
