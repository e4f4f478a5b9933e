import type { RequestHandler } from 'express';
import { z } from 'zod';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson } from '../http';
import { registerRequest } from '../registerRequest';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

const addCredentialSchema = z.object({
  displayName: z.string({ message: 'must be a string' }).trim().max(256, 'must be at most 256 characters').nullish(),
});

/**
 * `POST /passwordless-add-credential {displayName?}`: a registration token for another passkey of
 * the signed-in user. The aliases are left as they are (an empty list keeps them).
 */
export function addCredentialRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const user = req.isAuthenticated?.() ? (req.user as U | undefined) : undefined;
    const userId = user ? ctx.userIdOf(user) : undefined;
    if (!user || userId === undefined) throw new HostProblem('not_signed_in');
    const input = parseBody(addCredentialSchema, req.body);
    const username = user.username || user.email || userId;
    const { token } = await ctx.client.createRegisterToken(
      registerRequest(ctx.settings.register, { userId, username, displayName: input.displayName || user.displayName || username, aliases: [] }),
    );
    sendJson(res, 200, { token });
  });
}
