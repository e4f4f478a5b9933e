import { Store, type SessionData } from 'express-session';
import { Tombstones } from '../../../express/sessions/endedSessions';
import type { ConsoleSessionStore, SessionsOfCallback } from './consoleSessionStore';
import { ExpiryHeap } from './expiryHeap';
import { sessionExpiresAt } from './sessionExpiresAt';
import { sessionOwner } from './sessionOwner';

/**
 * At most this many expired sessions are dropped per call: a burst of expiries is spread over
 * the following requests instead of landing on one. Each write adds at most one session, so
 * pruning keeps up; `get` and `sessionsOf` check expiry themselves, so one left over never answers.
 */
const PRUNE_PER_CALL = 16;

interface Entry {
  /** Serialised, as express-session's MemoryStore keeps it: a caller's later changes to the object never reach the store. */
  json: string;
  expiresAt: number;
  owner: string | undefined;
}

type Done = (error?: unknown) => void;

/** Answers on a later turn, as express-session's own MemoryStore does (its callers are written for it). */
const later = (fn: () => void) => void setImmediate(fn);

/**
 * The console's sessions in this process: a map by sid, a heap by expiry (pruning and eviction
 * without a scan) and a map of each user's sids (for `sessionsOf`), kept consistent by one
 * `remove`. Every operation is O(log n) in the number of sessions. A destroyed sid is remembered
 * for as long as a console session can live, and a `set` of it writes nothing: a request that
 * loaded the session before it was ended cannot write it back.
 */
export class MemoryConsoleSessionStore extends Store implements ConsoleSessionStore {
  readonly endedStaysEnded = true;
  private readonly sessions = new Map<string, Entry>();
  private readonly ended: Tombstones;
  private readonly expiries = new ExpiryHeap();
  private readonly byOwner = new Map<string, Set<string>>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: { idleMs: number; maxSessions: number; now: () => number }) {
    super();
    this.idleMs = options.idleMs;
    this.maxSessions = options.maxSessions;
    this.now = options.now;
    this.ended = new Tombstones(options.now, options.maxSessions);
  }

  /** How many sessions are held, expired ones not yet pruned included. */
  get size(): number {
    return this.sessions.size;
  }

  /** How many users the per-user index holds (a user with no session left must not stay in it). */
  get indexedUsers(): number {
    return this.byOwner.size;
  }

  get(sid: string, callback: (error: unknown, session?: SessionData | null) => void): void {
    const entry = this.live(sid, this.pruned());
    later(() => callback(null, entry ? (JSON.parse(entry.json) as SessionData) : null));
  }

  set(sid: string, session: SessionData, callback?: Done): void {
    let error: unknown;
    try {
      if (!this.ended.has(sid)) this.write(sid, session);
    } catch (caught) {
      error = caught; // a session JSON cannot represent (a cycle, a BigInt)
    }
    if (callback) later(() => callback(error));
  }

  touch(sid: string, session: SessionData, callback?: Done): void {
    const now = this.pruned();
    const entry = this.live(sid, now);
    if (entry) {
      entry.expiresAt = sessionExpiresAt(session, now, this.idleMs);
      if (entry.expiresAt <= now) this.remove(sid);
      else this.expiries.set(sid, entry.expiresAt);
    }
    if (callback) later(() => callback());
  }

  destroy(sid: string, callback?: Done): void {
    this.ended.add(sid, this.idleMs);
    this.remove(sid);
    if (callback) later(() => callback());
  }

  sessionsOf(userId: string, callback: SessionsOfCallback): void {
    const now = this.pruned();
    const found: Record<string, SessionData> = {};
    // A copy: live() may remove an expired sid from the set being read.
    for (const sid of [...(this.byOwner.get(userId) ?? [])]) {
      const entry = this.live(sid, now);
      if (entry) found[sid] = JSON.parse(entry.json) as SessionData;
    }
    later(() => callback(null, found));
  }

  private write(sid: string, session: SessionData): void {
    const now = this.pruned();
    const expiresAt = sessionExpiresAt(session, now, this.idleMs);
    if (expiresAt <= now) {
      this.remove(sid);
      return;
    }
    const json = JSON.stringify(session);
    const owner = sessionOwner(session);
    const entry = this.sessions.get(sid);
    if (entry) {
      if (entry.owner !== owner) {
        this.unindex(sid, entry.owner);
        this.index(sid, owner);
      }
      Object.assign(entry, { json, expiresAt, owner });
    } else {
      while (this.sessions.size >= this.maxSessions) this.remove(this.expiries.peek()!.key);
      this.sessions.set(sid, { json, expiresAt, owner });
      this.index(sid, owner);
    }
    this.expiries.set(sid, expiresAt);
  }

  /** The session if it has not expired; an expired one is removed on the way. */
  private live(sid: string, now: number): Entry | undefined {
    const entry = this.sessions.get(sid);
    if (entry && entry.expiresAt <= now) {
      this.remove(sid);
      return undefined;
    }
    return entry;
  }

  /** Drops a few of the sessions that have expired, soonest first; returns the time it pruned at. */
  private pruned(): number {
    const now = this.now();
    for (let i = 0; i < PRUNE_PER_CALL; i++) {
      const soonest = this.expiries.peek();
      if (!soonest || soonest.at > now) break;
      this.remove(soonest.key);
    }
    return now;
  }

  private remove(sid: string): void {
    const entry = this.sessions.get(sid);
    if (!entry) return;
    this.sessions.delete(sid);
    this.expiries.delete(sid);
    this.unindex(sid, entry.owner);
  }

  private index(sid: string, owner: string | undefined): void {
    if (owner === undefined) return;
    const sids = this.byOwner.get(owner);
    if (sids) sids.add(sid);
    else this.byOwner.set(owner, new Set([sid]));
  }

  private unindex(sid: string, owner: string | undefined): void {
    if (owner === undefined) return;
    const sids = this.byOwner.get(owner);
    if (!sids) return;
    sids.delete(sid);
    if (sids.size === 0) this.byOwner.delete(owner);
  }
}
