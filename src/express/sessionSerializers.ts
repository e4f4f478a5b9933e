import type { LocalUser, UserStore } from './userStore';

type Done<T> = (error: unknown, value?: T) => void;

/**
 * Passport's session hooks, through the user store: the session holds only the user's id, and
 * every request reads the user afresh (a removed user is signed out).
 */
export function sessionSerializers<U extends LocalUser>(users: UserStore<U>, userIdOf: (user: unknown) => string | undefined) {
  return {
    serializeUser(user: unknown, done: Done<string>): void {
      const id = userIdOf(user);
      if (id === undefined) done(new Error('The signed-in user has no id: set Passwordless__UserIdClaimType.'));
      else done(null, id);
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
