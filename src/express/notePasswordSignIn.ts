import type { Request } from 'express';
import { recordPasswordSignIn } from './passwordSignIn';
import { noteSession } from './sessions/noteSession';

/**
 * The middleware's `notePasswordSignIn(req)`: for the host's own password login, after
 * `req.logIn`. It also opens the session's record for the session list at once, whether or not
 * the route runs behind the middleware's router. A request without a signed-in user is the host's mistake (called before
 * `req.logIn`, or after a failed login), so it throws rather than note nothing.
 */
export function notePasswordSignInFor(userIdOf: (user: unknown) => string | undefined, now: () => number): (req: Request) => void {
  return (req) => {
    const userId = req.isAuthenticated?.() ? userIdOf(req.user) : undefined;
    if (userId === undefined) throw new Error('notePasswordSignIn(req) needs the signed-in user: call it after req.logIn succeeded.');
    const at = now();
    recordPasswordSignIn(req, userId, at);
    noteSession(req, userId, at, true);
  };
}
