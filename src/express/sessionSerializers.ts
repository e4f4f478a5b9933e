import type { LocalUser, UserStore } from './userStore';

type Done<T> = (error: unknown, value?: T) => void;

/**
 * Passport's session hooks, through the user store: the session holds only the user's id in the
 * store (whatever UserIdClaimType says the service knows them by), and every request reads the
 * user afresh (a removed user is signed out).
 */
export function sessionSerializers<U extends LocalUser>(users: UserStore<U>) {
  return {
    serializeUser(user: unknown, done: Done<string>): void {
      const id = (user as { id?: unknown } | null)?.id;
      if ((typeof id !== 'string' && typeof id !== 'number') || id === '') done(new Error('The signed-in user has no id.'));
      else done(null, String(id));
    },
    deserializeUser(id: unknown, done: Done<U | false>): void {
      if (typeof id !== 'string') {
        done(null, false);
        return;
      }
      users.findById(id).then((user) => done(null, user ?? false), done);
    },
  };
}
