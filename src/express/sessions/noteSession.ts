import type { Request } from 'express';
import { sessionValuesOf } from '../sessionValues';
import { userAgentSummary } from './userAgentSummary';

/**
 * What a signed-in session records of itself, for the session list: kept in the session, so that
 * it costs no storage of its own and goes when the session goes. `userId` is also what a store's
 * `sessionsOf(userId)` looks sessions up by. Times are epoch ms.
 */
export interface SessionRecord {
  userId: string;
  createdAt: number;
  lastSeenAt: number;
  device: string;
  browser: string;
}

/** Last seen is written at most this often: once a minute, not a session write per request. */
export const LAST_SEEN_GRANULARITY_MS = 60_000;

/**
 * Notes that the session of `req` belongs to `userId` and was seen now: a new record when it has
 * none, or one of another user, or when `opened` (a sign-in just opened it); otherwise last seen
 * moves on, at most once a minute. Returns whether the record changed (the session will be saved).
 */
export function noteSession(req: Request, userId: string, now: number, opened = false): boolean {
  const session = sessionValuesOf(req);
  if (!session) return false;
  const record = session.passwordlessSession;
  if (opened || !record || record.userId !== userId) {
    session.passwordlessSession = { userId, createdAt: now, lastSeenAt: now, ...userAgentSummary(req.headers['user-agent']) };
    return true;
  }
  if (now - record.lastSeenAt < LAST_SEEN_GRANULARITY_MS) return false;
  record.lastSeenAt = now;
  return true;
}
