import { createHash } from 'node:crypto';
import { PasswordlessSettingsError } from '../errors';
import type { SessionValues } from '../sessionValues';
import { storeCall } from './storeCall';

/** A session as a store gives it back: the middleware's values, the cookie, and the host's own. */
export type StoredSession = SessionValues & { cookie?: { expires?: string | Date | null }; [key: string]: unknown };

type Callback<T> = (error: unknown, value?: T) => void;

/** What the middleware uses of the host's express-session store (the object given to `session({ store })`). */
export interface SessionStoreLike {
  get(sid: string, done: Callback<StoredSession | null | undefined>): unknown;
  destroy(sid: string, done: Callback<void>): unknown;
  /**
   * Optional, and the cheapest: the sessions whose `passwordlessSession.userId` is `userId`, as
   * `{ [sid]: session }` (or an array of sessions each with its `id`), from an index of the store.
   */
  sessionsOf?(userId: string, done: Callback<SessionList>): unknown;
  /** express-session's optional `all()`: every session of the store. */
  all?(done: Callback<SessionList>): unknown;
}

type SessionList = Record<string, StoredSession> | Array<StoredSession & { id?: string }>;

/** How the middleware finds one user's sessions in the host's store. */
export interface SessionDirectory {
  /** `sessionsOf`: the store's own per-user lookup; `redis`: a per-user set kept beside connect-redis's keys; `all`: a scan of every session. */
  readonly how: 'sessionsOf' | 'redis' | 'all';
  /** Sessions that may be the user's (the caller checks each record): sid to session. */
  candidates(userId: string): Promise<Map<string, StoredSession>>;
  /** Signs a session out at its next request: the store forgets it. */
  end(userId: string, sid: string): Promise<void>;
  /** Only where the directory keeps an index: notes that `sid` is a session of `userId`. */
  index?(userId: string, sid: string, session: StoredSession): Promise<void>;
}

function listed(list: SessionList | null | undefined): Map<string, StoredSession> {
  const found = new Map<string, StoredSession>();
  if (Array.isArray(list)) {
    for (const session of list) if (session && typeof session.id === 'string') found.set(session.id, session);
  } else if (list) {
    for (const [sid, session] of Object.entries(list)) if (session) found.set(sid, typeof session === 'string' ? (JSON.parse(session) as StoredSession) : session);
  }
  return found;
}

// connect-redis's RedisStore with a node-redis client: the parts the per-user set needs.
interface RedisSetClient {
  sAdd(key: string, member: string): Promise<unknown>;
  sMembers(key: string): Promise<string[]>;
  sRem(key: string, members: string[]): Promise<unknown>;
  expire(key: string, seconds: number, mode?: 'NX' | 'GT'): Promise<unknown>;
}
type RedisStoreLike = SessionStoreLike & { client: RedisSetClient; prefix: string; ttl?: unknown };

function isRedisStore(store: SessionStoreLike): store is RedisStoreLike {
  const client = (store as { client?: Partial<RedisSetClient> }).client;
  return typeof (store as { prefix?: unknown }).prefix === 'string' && !!client && ['sAdd', 'sMembers', 'sRem', 'expire'].every((name) => typeof client[name as keyof RedisSetClient] === 'function');
}

/** How long a session has left, in seconds (its cookie's expiry, else the store's ttl, else a day). */
function secondsLeft(store: RedisStoreLike, session: StoredSession): number {
  const expires = session.cookie?.expires;
  if (expires) return Math.max(1, Math.ceil((new Date(expires).getTime() - Date.now()) / 1000));
  return typeof store.ttl === 'number' && store.ttl > 0 ? store.ttl : 86_400;
}

/**
 * connect-redis: one Redis set of session ids per user, beside the store's keys (under its own
 * prefix, so that the store's `all()`, `length()` and `clear()`, which scan the session prefix,
 * never meet it). A set add is atomic, so two sign-ins at once both stay listed. The set lives as
 * long as its longest session (plus the two minutes last seen may lag behind a rolling session);
 * ids whose session has gone are dropped when the set is read.
 */
function redisDirectory(store: RedisStoreLike): SessionDirectory {
  const { client } = store;
  const keyOf = (userId: string) => `passwordless-sessions-of:${store.prefix}${createHash('sha256').update(userId).digest('base64url')}`;
  return {
    how: 'redis',
    async candidates(userId) {
      const key = keyOf(userId);
      const found = new Map<string, StoredSession>();
      const gone: string[] = [];
      for (const sid of await client.sMembers(key)) {
        const session = await storeCall<StoredSession | null | undefined>((done) => store.get(sid, done));
        if (session) found.set(sid, session);
        else gone.push(sid);
      }
      if (gone.length > 0) await client.sRem(key, gone);
      return found;
    },
    async end(userId, sid) {
      await storeCall<void>((done) => store.destroy(sid, done));
      await client.sRem(keyOf(userId), [sid]);
    },
    async index(userId, sid, session) {
      const key = keyOf(userId);
      const seconds = secondsLeft(store, session) + 120;
      await client.sAdd(key, sid);
      // NX sets a lifetime on a new set, GT only ever lengthens it: a short session never cuts a long one's entry short.
      await client.expire(key, seconds, 'NX');
      await client.expire(key, seconds, 'GT');
    },
  };
}

/**
 * How one user's sessions are found in the host's store, chosen once at start-up: the store's own
 * `sessionsOf(userId)` (an index: the cost of one user's sessions), else connect-redis's client (a
 * per-user set the middleware keeps: the same), else express-session's `all()` (every session of
 * the store read on each list or end: fine for MemoryStore in development, slow for a large
 * store). A store with none of these cannot list sessions: one error says what is missing.
 */
export function sessionDirectory(store: unknown): SessionDirectory {
  const candidate = store as Partial<SessionStoreLike> | null | undefined;
  if (!candidate || typeof candidate.get !== 'function' || typeof candidate.destroy !== 'function') {
    throw new PasswordlessSettingsError('sessionStore', "must be the express-session store the host passes to session({ store }) (with get() and destroy()): express-session's MemoryStore is `new session.MemoryStore()`, given to both.");
  }
  const usable = candidate as SessionStoreLike;
  if (typeof usable.sessionsOf === 'function') {
    return {
      how: 'sessionsOf',
      candidates: async (userId) => listed(await storeCall<SessionList>((done) => usable.sessionsOf!(userId, done))),
      end: (_userId, sid) => storeCall<void>((done) => usable.destroy(sid, done)),
    };
  }
  if (isRedisStore(usable)) return redisDirectory(usable);
  if (typeof usable.all === 'function') {
    return {
      how: 'all',
      candidates: async () => listed(await storeCall<SessionList>((done) => usable.all!(done))),
      end: (_userId, sid) => storeCall<void>((done) => usable.destroy(sid, done)),
    };
  }
  throw new PasswordlessSettingsError(
    'sessionStore',
    'cannot list a user\'s sessions: it has no sessionsOf(userId, callback) and no all(callback). Use a store that has one (express-session\'s MemoryStore, connect-redis\'s RedisStore, the example\'s SQLite store), add sessionsOf to yours (docs/api.md, "Where a user is signed in"), or pass sessions: false.',
  );
}
