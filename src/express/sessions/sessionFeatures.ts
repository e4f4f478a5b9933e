import type { PasswordlessClient } from '../client';
import { PasswordlessSettingsError } from '../errors';
import type { HostLogger } from '../routes/context';
import { accountSessions, type AccountSessions } from './accountSessions';
import { keepEndedSessionsEnded } from './endedSessions';
import { sessionDirectory, type SessionStoreLike } from './sessionDirectory';

export interface SessionFeatureOptions {
  /**
   * The host's express-session store, the same object it gives to `session({ store })`: with it,
   * a signed-in user can list where they are signed in and end those sessions, deleting a passkey
   * ends the sessions it opened, and `revokeUser` ends a user's sessions. The store must be able
   * to find a user's sessions: its own `sessionsOf(userId, callback)`, connect-redis's
   * `RedisStore`, or express-session's `all()` (every session read: see docs/api.md); another
   * store is refused at start-up.
   */
  sessionStore?: object;
  /** The session list and ending sessions. Default: on when `sessionStore` is given. */
  sessions?: boolean;
  /** Deleting a passkey ends the sessions it opened (but the one deleting it). Default true. */
  endSessionsOnPasskeyDelete?: boolean;
}

/** What `revokeUser` did: the passkeys deleted at the service and the sessions ended. */
export interface UserRevocation {
  passkeys: number;
  sessions: number;
}

interface Needs {
  client: PasswordlessClient;
  secret: string;
  userIdOf(user: unknown): string | undefined;
  logger: HostLogger;
  now(): number;
}

const isStore = (store: unknown): store is SessionStoreLike =>
  !!store && typeof (store as Partial<SessionStoreLike>).get === 'function' && typeof (store as Partial<SessionStoreLike>).destroy === 'function';

/** The session features as the options ask, checked at start-up; off without `sessionStore`. */
export function sessionFeatures(options: SessionFeatureOptions, needs: Needs) {
  const on = options.sessions ?? options.sessionStore !== undefined;
  if (on && options.sessionStore === undefined) {
    throw new PasswordlessSettingsError('sessions', 'needs sessionStore: the store the host gives to express-session (session({ store })), so that sessions can be listed and ended.');
  }
  const directory = on ? sessionDirectory(options.sessionStore) : undefined;
  // Whatever ends a session (this kit, a sign-out, a regenerate), a request in flight cannot bring it back.
  const ended = isStore(options.sessionStore) ? keepEndedSessionsEnded(options.sessionStore) : undefined;
  const sessions: AccountSessions | undefined = directory
    ? accountSessions({ ...needs, directory, ended: ended!, endOnPasskeyDelete: options.endSessionsOnPasskeyDelete !== false })
    : undefined;

  return {
    accountSessions: sessions,

    /** The session routes, where they are mounted (null when the features are off). */
    mounted(paths: { sessions: string | null; endSession: string | null }) {
      return { sessions: sessions ? paths.sessions : null, endSession: sessions ? paths.endSession : null };
    },

    /** Deletes the user's passkeys at the service first (no new sign-in), then ends their sessions. */
    async revokeUser(userId: string): Promise<UserRevocation> {
      if (typeof userId !== 'string' || userId === '') throw new TypeError('revokeUser(userId) takes the user\'s service userId, a non-empty string.');
      if (!sessions) throw new PasswordlessSettingsError('sessionStore', "is needed by revokeUser(userId), which ends the user's sessions: give passwordless() the store given to express-session.");
      const credentials = await needs.client.listCredentials(userId);
      for (const credential of credentials) await needs.client.deleteCredential(credential.descriptor.id);
      return { passkeys: credentials.length, sessions: await sessions.endAll(userId) };
    },
  };
}
