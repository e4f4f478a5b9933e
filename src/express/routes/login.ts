import type { RequestHandler } from 'express';
import { recordSignIn } from '../accountSession';
import { credentialIdOf } from '../credentialIdOf';
import { HostProblem } from '../errorCodes';
import { sendJson, sendProblem, sessionOf } from '../http';
import type { PasswordlessFailure, PasswordlessSuccessInfo } from '../strategy';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/**
 * `POST /passwordless-login {token}`: the Passport strategy verifies the token and finds the user;
 * `req.logIn` then opens the session under a new session id (passport regenerates it, so a session
 * id fixed before sign-in is worthless), noting when and how it was opened (a sign-up's token ends
 * the sign-up, and the host hears of its first passkey). Answers the user's public fields. A token
 * the service refuses answers the service's own status and problem; an unknown user is 401.
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
      const { verified } = info as PasswordlessSuccessInfo;
      const signedUp = verified.type === 'passkey_register';
      req.logIn(user, (loginError) => {
        if (loginError) {
          next(loginError);
          return;
        }
        recordSignIn(req, verified, signedUp ? 'sign-up' : 'sign-in', ctx.now());
        const id = credentialIdOf(verified);
        const told =
          signedUp && id !== undefined
            ? ctx.newPasskeys.announce({ user, userId: verified.userId, passkey: { id, name: verified.nickname ?? '', device: verified.device ?? '' }, via: 'sign-up' })
            : Promise.resolve(false);
        void told.then(() => sendJson(res, 200, ctx.publicUser(user)));
      });
    });
    authenticate(req, res, next);
  };
}
