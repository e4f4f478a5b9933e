import type { RequestHandler } from 'express';
import { accountRegisterToken } from '../accountToken';
import { HostProblem } from '../errorCodes';
import { asyncHandler, sendJson } from '../http';
import { forgetPasswordProof, freshPasswordProof } from '../passwordSignIn';
import { signedInUser } from '../signedInUser';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/**
 * `POST /passwordless-upgrade`: right after the host's password sign-in (`notePasswordSignIn`),
 * a registration token for the automatic passkey upgrade, which the browser may begin as a
 * conditional create (no prompt, and possibly no user-present flag), or, if the browser declines
 * it, as an ordinary one from a button. The fresh password proof is the proof this add needs, and
 * the token spends it at the service: one proof, one token, however many requests race (an add
 * through add-credential spends the same proof). Any other session gets 403 `upgrade_not_offered`
 * (a stolen session cookie alone never gets one). The host hears of the passkey however it ends.
 */
export function upgradeRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    const notOffered = () =>
      new HostProblem('upgrade_not_offered', `Sign in with your password (within the last ${ctx.freshSessionSeconds} seconds) first; one upgrade is offered per password sign-in.`);
    const proofId = freshPasswordProof(req, userId, ctx.freshSessionSeconds, ctx.now());
    if (proofId === undefined) throw notOffered();
    const token = await accountRegisterToken(ctx, { user, userId, upgrade: true, proofId });
    forgetPasswordProof(req);
    if (token === undefined) throw notOffered();
    sendJson(res, 200, { token });
  });
}
