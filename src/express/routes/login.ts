import type { RequestHandler } from 'express';
import { HostProblem } from '../errorCodes';
import { sendJson, sendProblem, sessionOf } from '../http';
import type { PasswordlessFailure } from '../strategy';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/**
 * `POST /passwordless-login {token}`: the Passport strategy verifies the token and finds the user;
 * `req.logIn` then opens the session under a new session id (passport regenerates it, so a session
 * id fixed before sign-in is worthless). Answers the user's public fields. A token the service
 * refuses answers the service's own status and problem; an unknown user is 401.
 */
export function loginRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return (req, res, next) => {
    if (!sessionOf(req)) {
      next(new Error('express-session (and passport.session()) must be mounted before the passwordless routes.'));
      return;
    }
    const authenticate = ctx.passport.authenticate(ctx.settings.signInScheme, (error: unknown, found: unknown, info: unknown) => {
      const user = found as U | false;
      if (error) {
        next(error);
        return;
      }
      if (!user) {
        sendProblem(res, (info as PasswordlessFailure | undefined)?.problem ?? new HostProblem('sign_in_failed').problem);
        return;
      }
      req.logIn(user, (loginError) => {
        if (loginError) next(loginError);
        else sendJson(res, 200, ctx.publicUser(user));
      });
    });
    authenticate(req, res, next);
  };
}
