import { Store, type SessionData } from 'express-session';
import type { RedisConnection } from '../../redis/connection';
import type { ConsoleSessionStore, SessionsOfCallback } from './consoleSessionStore';
import { sessionExpiresAt } from './sessionExpiresAt';
import { sessionOwner } from './sessionOwner';

/**
 * The user's set (KEYS[3]) lives at least as long as the session just written: PTTL answers -1
 * for a set that has no expiry yet, and a shorter session never cuts a longer one's entry short.
 */
const LENGTHEN_OWNER_SET = `
  redis.call('SADD', KEYS[3], ARGV[2])
  if redis.call('PTTL', KEYS[3]) < tonumber(ARGV[1]) then redis.call('PEXPIRE', KEYS[3], ARGV[1]) end`;

/**
 * KEYS: the session, its tombstone, [its user's set]. ARGV: ms to live, sid, JSON. One round
 * trip, atomic: a session destroyed meanwhile (its tombstone is there) is not written back.
 */
const SET_SCRIPT = `
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
redis.call('SET', KEYS[1], ARGV[3], 'PX', ARGV[1])
if #KEYS > 2 then ${LENGTHEN_OWNER_SET}
end
return 1`;

/** KEYS: the session, its tombstone, [its user's set]. ARGV: ms to live, sid. A session already gone stays gone (and is not listed again). */
const TOUCH_SCRIPT = `
if redis.call('PEXPIRE', KEYS[1], ARGV[1]) == 1 and #KEYS > 2 then ${LENGTHEN_OWNER_SET}
end
return 1`;

/** KEYS: the session, its tombstone. ARGV: ms the tombstone lives. */
const DESTROY_SCRIPT = `
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '1', 'PX', ARGV[1])
return 1`;

type Done = (error?: unknown) => void;

/** A stored value as a session, or null when it is not one (a value this store did not write). */
function parsed(value: unknown): SessionData | null {
  if (typeof value !== 'string') return null;
  try {
    const session = JSON.parse(value) as unknown;
    return session && typeof session === 'object' ? (session as SessionData) : null;
  } catch {
    return null;
  }
}

/** Runs a command chain and hands its outcome to an express-session callback, if there is one. */
function answer<T>(work: Promise<T>, callback: ((error: unknown, value?: T) => void) | undefined): void {
  work.then(
    (value) => callback?.(null, value),
    (error: unknown) => callback?.(error),
  );
}

/**
 * The console's sessions on Redis, shared by every replica: one key per session with a PX expiry
 * (Redis drops it when idle), and one set of sids per user for `sessionsOf`. A request costs one
 * round trip to read the session and one to write or touch it. A destroyed or expired session's
 * sid stays in its user's set until `sessionsOf` reads the set and drops it. Destroying leaves a
 * tombstone for as long as a console session can live, and a `set` checks it in the same script:
 * a request that loaded the session before it was ended, on any replica, cannot write it back.
 */
export class RedisConsoleSessionStore extends Store implements ConsoleSessionStore {
  readonly endedStaysEnded = true;
  private readonly redis: RedisConnection;
  private readonly keyPrefix: string;
  private readonly idleMs: number;
  private readonly now: () => number;

  constructor(options: { redis: RedisConnection; keyPrefix: string; idleMs: number; now: () => number }) {
    super();
    this.redis = options.redis;
    this.keyPrefix = options.keyPrefix;
    this.idleMs = options.idleMs;
    this.now = options.now;
  }

  /** The key of one session. */
  sessionKey(sid: string): string {
    return `${this.keyPrefix}console:sess:${sid}`;
  }

  /** The key of one ended session's tombstone. */
  tombstoneKey(sid: string): string {
    return `${this.keyPrefix}console:ended:${sid}`;
  }

  /** The key of one user's set of sids. */
  ownerKey(userId: string): string {
    return `${this.keyPrefix}console:user:${userId}`;
  }

  get(sid: string, callback: (error: unknown, session?: SessionData | null) => void): void {
    answer(this.redis.sendCommand(['GET', this.sessionKey(sid)]).then(parsed), callback);
  }

  set(sid: string, session: SessionData, callback?: Done): void {
    answer(this.write(sid, session, (ms, keys) => ['EVAL', SET_SCRIPT, String(keys.length), ...keys, ms, sid, JSON.stringify(session)]), callback);
  }

  touch(sid: string, session: SessionData, callback?: Done): void {
    answer(this.write(sid, session, (ms, keys) => ['EVAL', TOUCH_SCRIPT, String(keys.length), ...keys, ms, sid]), callback);
  }

  destroy(sid: string, callback?: Done): void {
    answer(this.redis.sendCommand(['EVAL', DESTROY_SCRIPT, '2', this.sessionKey(sid), this.tombstoneKey(sid), String(this.idleMs)]), callback);
  }

  sessionsOf(userId: string, callback: SessionsOfCallback): void {
    answer(this.readOwnerSet(userId), callback);
  }

  /** Sets or touches: a session whose expiry has already come (its cookie's) is deleted instead. */
  private async write(sid: string, session: SessionData, command: (ms: string, keys: string[]) => string[]): Promise<void> {
    const now = this.now();
    const ms = sessionExpiresAt(session, now, this.idleMs) - now;
    if (ms <= 0) {
      await this.redis.sendCommand(['DEL', this.sessionKey(sid)]);
      return;
    }
    const owner = sessionOwner(session);
    const keys = [this.sessionKey(sid), this.tombstoneKey(sid), ...(owner === undefined ? [] : [this.ownerKey(owner)])];
    await this.redis.sendCommand(command(String(ms), keys));
  }

  /** Reads the user's set and their sessions (two round trips), and drops the sids that are no longer theirs (a third, only then). */
  private async readOwnerSet(userId: string): Promise<Record<string, SessionData>> {
    const setKey = this.ownerKey(userId);
    const sids = (await this.redis.sendCommand(['SMEMBERS', setKey])) as string[];
    const found: Record<string, SessionData> = {};
    if (sids.length === 0) return found;
    const values = (await this.redis.sendCommand(['MGET', ...sids.map((sid) => this.sessionKey(sid))])) as unknown[];
    const gone: string[] = [];
    sids.forEach((sid, i) => {
      const session = parsed(values[i]);
      // Gone (destroyed, expired), or signed in to by someone else since.
      if (session && sessionOwner(session) === userId) found[sid] = session;
      else gone.push(sid);
    });
    if (gone.length > 0) await this.redis.sendCommand(['SREM', setKey, ...gone]);
    return found;
  }
}
