// PLACEHOLDER until branch csess lands: express-session's MemoryStore.
import session from 'express-session';
import type { RedisConnection } from '../../redis/connection';

export function consoleSessionStore(_options: { redis?: RedisConnection; keyPrefix: string; idleMs: number; maxSessions?: number; now?: () => number }): session.Store {
  return new session.MemoryStore();
}
