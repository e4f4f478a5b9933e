import type { RequestHandler } from 'express';
import { sessionOf } from '../http';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/** `POST /passwordless-logout`: signs out and ends the session (204), signed in or not. */
export function logoutRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return (req, res, next) => {
    const endSession = () => {
      // passport's logout regenerated the session: this is the fresh one, destroyed with its cookie.
      const session = sessionOf(req);
      if (!session) {
        res.status(204).end();
        return;
      }
      session.destroy((error: unknown) => {
        if (error) {
          next(error);
          return;
        }
        res.clearCookie(ctx.sessionCookieName, ctx.sessionCookieOptions);
        res.status(204).end();
      });
    };
    if (typeof req.logout === 'function' && sessionOf(req)) req.logout((error) => (error ? next(error) : endSession()));
    else endSession();
  };
}
