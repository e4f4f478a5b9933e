import type { RequestHandler } from 'express';
import { z } from 'zod';
import { freshAccountSession, notePasskeyAddedAfterRecovery } from '../accountSession';
import { credentialIdOf } from '../credentialIdOf';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson } from '../http';
import { registerRequest } from '../registerRequest';
import { signedInUser } from '../signedInUser';
import { steppedUp } from '../stepUp';
import { acceptedToken } from '../strategy';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

const addCredentialSchema = z.object({
  displayName: z.string({ message: 'must be a string' }).trim().max(256, 'must be at most 256 characters').nullish(),
});

/** The step-up purpose adding and deleting passkeys ask for. */
export const ACCOUNT_STEP_UP_PURPOSE = 'step-up';

/**
 * `POST /passwordless-add-credential {displayName?}`: a registration token for another passkey of
 * the signed-in user. A user who has a passkey must step up first (401 `step_up_required`), so
 * that a stolen session cannot make itself a permanent credential; a session that a sign-up or a
 * recovery opened a few minutes ago need not. The aliases are left as they are.
 */
export function addCredentialRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    const input = parseBody(addCredentialSchema, req.body);
    const now = ctx.now();
    if (!freshAccountSession(req, userId, ctx.freshSessionSeconds, now) && !steppedUp(req, ACCOUNT_STEP_UP_PURPOSE, userId, ctx.stepUpMaxAge, now)) {
      if ((await ctx.client.listCredentials(userId)).length > 0) {
        throw new HostProblem('step_up_required', `Confirm it is you with a passkey (purpose '${ACCOUNT_STEP_UP_PURPOSE}') first.`, { purpose: ACCOUNT_STEP_UP_PURPOSE });
      }
    }
    const username = user.username || user.email || userId;
    const { token } = await ctx.client.createRegisterToken(
      registerRequest(ctx.settings.register, { userId, username, displayName: input.displayName || user.displayName || username, aliases: [] }),
    );
    sendJson(res, 200, { token });
  });
}

/**
 * `POST /passwordless-add-credential/complete {token}`: the browser made the passkey; its
 * `register()` result tells the host, which tells the user (`onPasskeyAdded`, e.g. a mail). The
 * token must be a registration of the signed-in user's, made on the host's origins; it is redeemed,
 * so it is heard of once. Answers the new passkey's id and name.
 */
export function addCredentialCompleteRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    const checked = await acceptedToken(ctx.client, (req.body as { token?: unknown } | undefined)?.token, { ...ctx.tokenAcceptance, types: new Set(['passkey_register']) }, req);
    if ('failure' in checked) throw new HostProblem(checked.failure.problem);
    const { verified } = checked;
    const id = credentialIdOf(verified);
    if (verified.userId !== userId || id === undefined) throw new HostProblem('token_not_accepted', "The token registered another user's passkey, not the signed-in user's.");
    const passkey = { id, name: verified.nickname ?? '', device: verified.device ?? '' };
    notePasskeyAddedAfterRecovery(req, userId, id);
    await ctx.hooks.passkeyAdded({ user, userId, passkey, via: 'add' });
    sendJson(res, 200, { id: passkey.id, name: passkey.name });
  });
}
