import type { RequestHandler } from 'express';
import { HostProblem } from '../errorCodes';
import { asyncHandler, sendJson } from '../http';
import { takeFreshPasswordSignIn } from '../passwordSignIn';
import { registerRequest } from '../registerRequest';
import { signedInUser } from '../signedInUser';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/**
 * `POST /passwordless-upgrade`: right after the host's password sign-in (`notePasswordSignIn`),
 * a registration token for the automatic passkey upgrade, which the browser may begin as a
 * conditional create (no prompt, and possibly no user-present flag). The fresh password proof
 * counts as the step-up this add would otherwise need, and is spent: one proof, one token. Any
 * other session gets 403 `upgrade_not_offered` (a stolen session cookie alone never gets one).
 * The browser reports the passkey it made through add-credential/complete, as for any other.
 */
export function upgradeRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    if (!takeFreshPasswordSignIn(req, userId, ctx.freshSessionSeconds, ctx.now())) {
      throw new HostProblem('upgrade_not_offered', `Sign in with your password (within the last ${ctx.freshSessionSeconds} seconds) first; one upgrade is offered per password sign-in.`);
    }
    const username = user.username || user.email || userId;
    const { token } = await ctx.client.createRegisterToken({
      ...registerRequest(ctx.settings.register, { userId, username, displayName: user.displayName || username, aliases: [] }),
      upgrade: true,
    });
    sendJson(res, 200, { token });
  });
}
