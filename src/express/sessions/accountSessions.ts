import type { Request, RequestHandler, Response } from 'express';
import type { PasswordlessClient } from '../client';
import type { HostLogger } from '../routes/context';
import { sessionValuesOf } from '../sessionValues';
import { sessionIdOf } from './sessionIdOf';
import { noteSession, type SessionRecord } from './noteSession';
import type { EndedSessions } from './endedSessions';
import type { SessionDirectory, StoredSession } from './sessionDirectory';
import { sessionHandles } from './sessionHandle';

/** One of the signed-in user's sessions, as `GET /passwordless-sessions` lists it. */
export interface SessionView {
  /** An opaque handle (not the session id: it cannot be used as a cookie), for `POST /passwordless-sessions/end`. */
  id: string;
  /** From the User-Agent at sign-in: `iPhone`, `Android`, `Windows`, `macOS`, `Linux`... or `Other`. */
  device: string;
  /** `Chrome`, `Safari`, `Firefox`, `Edge`... or `Other`. */
  browser: string;
  /** The passkey that opened it (its name, else its provider's); null when none did (a password or a recovery link) or it is deleted. */
  passkeyName: string | null;
  /** That passkey's credential id (base64url), or null. */
  passkeyId: string | null;
  createdAt: string;
  /** Updated at most once a minute. */
  lastSeenAt: string;
  /** The session of this request. */
  current: boolean;
}

export interface AccountSessionsOptions {
  directory: SessionDirectory;
  /** The sessions ended meanwhile, which a store's listing may still hold (written back by a request in flight). */
  ended: EndedSessions;
  client: PasswordlessClient;
  /** The key of the handles (the ApiSecret). */
  secret: string;
  /** Deleting a passkey ends the sessions it opened. */
  endOnPasskeyDelete: boolean;
  userIdOf(user: unknown): string | undefined;
  logger: HostLogger;
  now(): number;
}

interface Found {
  sid: string;
  record: SessionRecord;
  credentialId: string | undefined;
}

/** The sessions of one user, what a list shows and what ending them takes. */
export type AccountSessions = ReturnType<typeof accountSessions>;

/**
 * The user-facing session features over the host's store: which sessions a user has, where and
 * since when, ending one, all but this one, those a deleted passkey opened, or all of them. A
 * session is the user's when its own record says so (sessions/noteSession.ts): a directory may
 * hand back others (a store's `all()`), and they are skipped.
 */
export function accountSessions(options: AccountSessionsOptions) {
  const { directory, client } = options;
  const handleOf = sessionHandles(options.secret);

  /** The user's sessions; the current one (`req`) from memory, where it is newer than the store's copy. */
  async function sessionsOf(userId: string, req?: Request): Promise<Found[]> {
    const found: Found[] = [];
    const candidates = await directory.candidates(userId);
    const current = req && sessionValuesOf(req);
    const currentSid = req && sessionIdOf(req);
    if (currentSid && current?.passwordlessSession?.userId === userId) candidates.set(currentSid, current as StoredSession);
    for (const [sid, session] of candidates) {
      if (options.ended.isEnded(sid)) continue;
      const record = session.passwordlessSession;
      // Only a record this middleware wrote counts (a host's own session values could collide in name).
      if (!record || record.userId !== userId || !Number.isFinite(record.createdAt) || !Number.isFinite(record.lastSeenAt)) continue;
      const signIn = session.passwordlessSignIn;
      found.push({ sid, record, credentialId: signIn?.userId === userId ? signIn.credentialId : undefined });
    }
    return found;
  }

  async function end(userId: string, sessions: Found[]): Promise<number> {
    for (const session of sessions) await directory.end(userId, session.sid);
    return sessions.length;
  }

  return {
    how: directory.how,

    /** The list of `GET /passwordless-sessions`: this session first, then the last seen first. */
    async list(userId: string, req: Request): Promise<SessionView[]> {
      const [sessions, credentials] = await Promise.all([sessionsOf(userId, req), client.listCredentials(userId)]);
      const names = new Map(credentials.map((c) => [c.descriptor.id, c.nickname || c.authenticatorName || c.device || 'Passkey']));
      return sessions
        .map(({ sid, record, credentialId }) => ({
          id: handleOf(sid),
          device: record.device,
          browser: record.browser,
          passkeyName: (credentialId && names.get(credentialId)) || null,
          passkeyId: credentialId && names.has(credentialId) ? credentialId : null,
          createdAt: new Date(record.createdAt).toISOString(),
          lastSeenAt: new Date(record.lastSeenAt).toISOString(),
          current: sid === sessionIdOf(req),
        }))
        .sort((a, b) => Number(b.current) - Number(a.current) || Date.parse(b.lastSeenAt) - Date.parse(a.lastSeenAt));
    },

    /** The session of the user's with this handle, if any: `current` when it is the request's own. */
    async byHandle(userId: string, handle: string, req: Request): Promise<{ current: boolean; end(): Promise<number> } | undefined> {
      const session = (await sessionsOf(userId, req)).find((s) => handleOf(s.sid) === handle);
      return session && { current: session.sid === sessionIdOf(req), end: () => end(userId, [session]) };
    },

    /** The user's other sessions than the request's: how many, and ending them. */
    async others(userId: string, req: Request): Promise<{ count: number; end(): Promise<number> }> {
      const sessions = (await sessionsOf(userId, req)).filter((s) => s.sid !== sessionIdOf(req));
      return { count: sessions.length, end: () => end(userId, sessions) };
    },

    /** After a passkey is deleted: ends the sessions it opened, but the request's own (its user is right here). */
    async passkeyDeleted(userId: string, credentialId: string, req: Request): Promise<number> {
      if (!options.endOnPasskeyDelete) return 0;
      return end(userId, (await sessionsOf(userId, req)).filter((s) => s.credentialId === credentialId && s.sid !== sessionIdOf(req)));
    },

    /** Ends every session of the user (`revokeUser`). */
    async endAll(userId: string): Promise<number> {
      return end(userId, await sessionsOf(userId));
    },

    /**
     * Mounted before the routes: a signed-in session records itself at its first request (a host's
     * own password sign-in included) and its last seen, once a minute. Where the directory keeps an
     * index, a new or refreshed record is indexed after the session is saved and before the answer
     * goes: once a sign-in has answered, the session is listed (and `revokeUser` finds it).
     */
    track: ((req, res, next) => {
      const session = sessionValuesOf(req);
      if (!session) {
        next();
        return;
      }
      const before = { sid: sessionIdOf(req), seen: session.passwordlessSession?.lastSeenAt };
      const userId = req.isAuthenticated?.() ? options.userIdOf(req.user) : undefined;
      if (userId !== undefined) noteSession(req, userId, options.now());
      else if (session.passwordlessSession) delete session.passwordlessSession;
      if (directory.index) indexBeforeAnswer(req, res, before, directory.index, options.logger);
      next();
    }) as RequestHandler,
  };
}

type Index = NonNullable<SessionDirectory['index']>;

/** Defers the answer's end until a changed record is saved (express-session then sees it saved) and indexed. */
function indexBeforeAnswer(req: Request, res: Response, before: { sid: string | undefined; seen: number | undefined }, index: Index, logger: HostLogger): void {
  const end = res.end;
  res.end = function (this: Response, ...args: unknown[]) {
    res.end = end;
    const session = (req as Request & { session?: StoredSession & { save?(done: (error: unknown) => void): void } }).session;
    const record = session?.passwordlessSession;
    if (!session || !record || typeof session.save !== 'function' || (sessionIdOf(req) === before.sid && record.lastSeenAt === before.seen)) {
      return (end as (...a: unknown[]) => Response).apply(this, args);
    }
    const finish = (error?: unknown) => {
      if (error) logger.error({ err: error instanceof Error ? { name: error.name, message: error.message } : String(error) }, 'passwordless: a session could not be indexed for the session list');
      (end as (...a: unknown[]) => Response).apply(this, args);
    };
    session.save((error) => (error ? finish(error) : index(record.userId, sessionIdOf(req)!, session).then(() => finish(), finish)));
    return this;
  } as Response['end'];
}
