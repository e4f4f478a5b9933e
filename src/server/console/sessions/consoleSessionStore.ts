import type { SessionData, Store } from 'express-session';
import type { EndingStore } from '../../../express/sessions/endedSessions';
import type { RedisConnection } from '../../redis/connection';
import { MemoryConsoleSessionStore } from './memoryConsoleSessionStore';
import { RedisConsoleSessionStore } from './redisConsoleSessionStore';

/** One user's sessions, sid to session, as the middleware's session directory reads them. */
export type SessionsOfCallback = (error: unknown, sessions?: Record<string, SessionData>) => void;

export interface ConsoleSessionStoreOptions {
  /** The service's Redis connection (when REDIS_URL is set): sessions are shared by every replica. Without it, they live in this process. */
  redis?: RedisConnection;
  /** Put before every Redis key (the service's REDIS_KEY_PREFIX, `passwordless:` by default); unused in memory. */
  keyPrefix: string;
  /** A session ends this long after its last write (set or touch), or at its cookie's expiry if sooner. */
  idleMs: number;
  /** In memory only: at most this many sessions; a new one then evicts the one closest to expiry. Default 10 000. */
  maxSessions?: number;
  /** The clock (epoch ms); tests inject one. */
  now?: () => number;
}

/**
 * An express-session store for the operator console, with the per-user lookup the middleware's
 * session list uses (`sessionsOf`, see src/express/sessions/sessionDirectory.ts). `touch` moves
 * the idle expiry on, for `rolling: true`. A destroyed session stays destroyed (EndingStore).
 */
export interface ConsoleSessionStore extends Store, EndingStore {
  touch(sid: string, session: SessionData, callback?: (error?: unknown) => void): void;
  /** The live sessions whose `passwordlessSession.userId` is `userId`, from the store's per-user index. */
  sessionsOf(userId: string, callback: SessionsOfCallback): void;
}

export const DEFAULT_MAX_SESSIONS = 10_000;

/**
 * The console's session store: on Redis when the service has a connection (sessions as JSON under
 * `${keyPrefix}console:sess:<sid>` with a PX expiry, a per-user set `${keyPrefix}console:user:<userId>`),
 * else in memory, bounded by `maxSessions`.
 */
export function consoleSessionStore(options: ConsoleSessionStoreOptions): ConsoleSessionStore {
  const { idleMs, maxSessions = DEFAULT_MAX_SESSIONS, now = Date.now } = options;
  if (!Number.isSafeInteger(idleMs) || idleMs <= 0) throw new Error(`consoleSessionStore: idleMs must be a positive whole number of milliseconds (got ${idleMs}).`);
  if (!Number.isSafeInteger(maxSessions) || maxSessions <= 0) throw new Error(`consoleSessionStore: maxSessions must be a positive whole number (got ${maxSessions}).`);
  if (options.redis) return new RedisConsoleSessionStore({ redis: options.redis, keyPrefix: options.keyPrefix, idleMs, now });
  return new MemoryConsoleSessionStore({ idleMs, maxSessions, now });
}
