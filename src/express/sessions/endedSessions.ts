import type { SessionStoreLike, StoredSession } from './sessionDirectory';

/**
 * A store that keeps what it destroys destroyed by itself, atomically: once `destroy(sid)` has
 * answered, a later `set` or `touch` of that sid writes nothing (the console's stores, the example
 * hosts' SQLite store). The middleware then leaves it as it is.
 */
export interface EndingStore {
  readonly endedStaysEnded: true;
}

/** A tombstone outlives the longest session this process has seen, and a day at least, by this much. */
const MARGIN_MS = 10 * 60_000;
const DAY_MS = 24 * 3600_000;
/** At most this many tombstones in this process; past it, the oldest go first. */
export const MAX_TOMBSTONES = 100_000;

type Callback<T> = (error: unknown, value?: T) => void;
type Method = (...args: unknown[]) => unknown;

/** node-redis's client as connect-redis holds it: what the shared tombstones need. */
interface RedisCommandClient {
  sendCommand(args: string[]): Promise<unknown>;
}
type RedisStoreLike = SessionStoreLike & { client: RedisCommandClient; prefix: string; ttl?: unknown };

/** What a guarded store tells the session list: a sid this process ended (a store's listing may still hold a copy written back meanwhile). */
export interface EndedSessions {
  isEnded(sid: string): boolean;
}

const GUARDED = Symbol.for('passwordless-selfhost.endedSessionsGuarded');

/**
 * The sids this process ended, each until the session could no longer live. Insertion order is
 * expiry order but for a lifetime that grew, so pruning from the front is enough.
 */
export class Tombstones {
  private readonly until = new Map<string, number>();
  constructor(
    private readonly now: () => number,
    private readonly max = MAX_TOMBSTONES,
  ) {}

  add(sid: string, lifetimeMs: number): void {
    this.until.delete(sid);
    this.until.set(sid, this.now() + lifetimeMs);
    this.prune();
    while (this.until.size > this.max) this.until.delete(this.until.keys().next().value!);
  }

  has(sid: string): boolean {
    const until = this.until.get(sid);
    if (until === undefined) return false;
    if (until > this.now()) return true;
    this.until.delete(sid);
    return false;
  }

  get size(): number {
    return this.until.size;
  }

  private prune(): void {
    const now = this.now();
    for (const [sid, until] of this.until) {
      if (until > now) break;
      this.until.delete(sid);
    }
  }
}

function isRedisStore(store: SessionStoreLike): store is RedisStoreLike {
  const client = (store as { client?: Partial<RedisCommandClient> }).client;
  return typeof (store as { prefix?: unknown }).prefix === 'string' && typeof client?.sendCommand === 'function';
}

/** The most a session's cookie said it may live (`originalMaxAge`), or 0. */
function maxAgeOf(session: unknown): number {
  const maxAge = (session as StoredSession | null | undefined)?.cookie as { originalMaxAge?: unknown } | undefined;
  const value = maxAge?.originalMaxAge;
  return typeof value === 'number' && Number.isFinite(value) && value > 0 ? value : 0;
}

/** Answers a store call both ways callers use: the callback if given, else the returned promise. */
function answer<T>(work: Promise<T>, done: Callback<T> | undefined): Promise<T> | undefined {
  if (!done) return work;
  work.then(
    (value) => done(null, value),
    (error: unknown) => done(error),
  );
  return undefined;
}

/** Calls one of the store's own methods (callback or promise style) and resolves with its answer. */
function call<T>(method: Method, store: object, args: unknown[]): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const done: Callback<T> = (error, value) => {
      if (settled) return;
      settled = true;
      if (error) reject(error);
      else resolve(value as T);
    };
    let returned: unknown;
    try {
      returned = method.apply(store, [...args, done]);
    } catch (error) {
      done(error);
      return;
    }
    if (returned && typeof (returned as Promise<T>).then === 'function') {
      (returned as Promise<T>).then(
        (value) => value !== undefined && done(null, value),
        (error: unknown) => done(error),
      );
    }
  });
}

/**
 * Makes every session the host's store destroys stay destroyed, whoever destroys it (the session
 * list, `revokeUser`, a deleted passkey, a sign-out, express-session's regenerate), against a
 * request that loaded the session before and writes it back after: express-session saves (`set`)
 * a changed session when its answer goes, which would bring an ended session back.
 *
 * The store object the host gave to express-session is wrapped in place (its `get`, `set`,
 * `touch` and `destroy`), unless it keeps ended sessions ended itself (`endedStaysEnded`). A
 * destroyed sid is kept as a tombstone for as long as the session could live: in this process
 * (a `set` or `touch` of it writes nothing, a `get` finds nothing), and with connect-redis also in
 * Redis beside the store's keys, so that every replica refuses it (its `get` asks Redis in the
 * same round trip as the session itself). A store shared by several processes that is neither
 * should implement `endedStaysEnded` itself (docs/api.md).
 */
export function keepEndedSessionsEnded(store: SessionStoreLike, now: () => number = Date.now): EndedSessions {
  const marked = store as SessionStoreLike & { [GUARDED]?: EndedSessions; endedStaysEnded?: unknown };
  if (marked.endedStaysEnded === true) return { isEnded: () => false };
  if (marked[GUARDED]) return marked[GUARDED];

  const tombstones = new Tombstones(now);
  const guard: EndedSessions = { isEnded: (sid) => tombstones.has(sid) };
  marked[GUARDED] = guard;
  const redis = isRedisStore(store) ? store : undefined;
  const ttlMs = redis && typeof redis.ttl === 'number' && redis.ttl > 0 ? redis.ttl * 1000 : 0;
  let longestMs = Math.max(DAY_MS, ttlMs);
  const lifetime = () => longestMs + MARGIN_MS;
  const seen = (session: unknown) => {
    const maxAge = maxAgeOf(session);
    if (maxAge > longestMs) longestMs = maxAge;
  };
  const sharedKey = (sid: string) => `passwordless-ended:${redis!.prefix}${sid}`;

  const original = { get: store.get, set: (store as { set?: Method }).set, touch: (store as { touch?: Method }).touch, destroy: store.destroy } as Record<string, Method | undefined>;
  const target = store as unknown as Record<string, Method>;

  target.destroy = function (sid: unknown, done?: unknown) {
    const id = String(sid);
    tombstones.add(id, lifetime());
    const shared = redis ? redis.client.sendCommand(['SET', sharedKey(id), '1', 'PX', String(lifetime())]) : Promise.resolve();
    return answer(Promise.all([shared, call<void>(original.destroy!, store, [sid])]).then(() => undefined), done as Callback<void> | undefined);
  };

  target.get = function (sid: unknown, done?: unknown) {
    const id = String(sid);
    // Asked first, so that it travels with the store's own read.
    const endedElsewhere = redis ? redis.client.sendCommand(['EXISTS', sharedKey(id)]).then((n) => n === 1 || n === '1') : Promise.resolve(false);
    const read = call<StoredSession | null | undefined>(original.get!, store, [sid]);
    return answer(
      Promise.all([endedElsewhere, read]).then(async ([ended, session]) => {
        if (!tombstones.has(id) && !ended) {
          seen(session);
          return session ?? null;
        }
        // Written back by a request that was in flight when it ended: it goes again, and counts as none.
        if (session) await call<void>(original.destroy!, store, [sid]);
        return null;
      }),
      done as Callback<StoredSession | null> | undefined,
    );
  };

  for (const name of ['set', 'touch'] as const) {
    const write = original[name];
    if (!write) continue;
    target[name] = function (sid: unknown, session: unknown, done?: unknown) {
      if (tombstones.has(String(sid))) return answer(Promise.resolve(undefined), done as Callback<undefined> | undefined);
      seen(session);
      return answer(call<void>(write, store, [sid, session]), done as Callback<void> | undefined);
    };
  }
  return guard;
}
