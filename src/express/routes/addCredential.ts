import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { freshAccountSession, notePasskeyAddedAfterRecovery } from '../accountSession';
import { accountRegisterToken } from '../accountToken';
import { credentialIdOf } from '../credentialIdOf';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson } from '../http';
import { forgetPasswordProof, freshPasswordProof } from '../passwordSignIn';
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
 * What the user is asked for when the session holds no proof: a step-up when they have a passkey
 * to make one with, else a fresh sign-in (a password sign-in the host notes, or a recovery link).
 */
async function proofRequired<U extends LocalUser>(ctx: RouteContext<U>, userId: string): Promise<HostProblem> {
  if ((await ctx.client.listCredentials(userId)).length > 0) {
    return new HostProblem('step_up_required', `Confirm it is you with a passkey (purpose '${ACCOUNT_STEP_UP_PURPOSE}') first.`, { purpose: ACCOUNT_STEP_UP_PURPOSE });
  }
  const minutes = Math.max(1, Math.floor(ctx.freshSessionSeconds / 60));
  return new HostProblem('fresh_sign_in_required', `Adding a passkey needs a fresh proof that it is you: sign in again, then add it within ${minutes} minutes.`);
}

/** Whether the session proved the user in a way that is not spent by use: a recent step-up, or a sign-up or recovery minutes ago. */
function provenForAWhile<U extends LocalUser>(ctx: RouteContext<U>, req: Request, userId: string, now: number): boolean {
  return freshAccountSession(req, userId, ctx.freshSessionSeconds, now) || steppedUp(req, ACCOUNT_STEP_UP_PURPOSE, userId, ctx.stepUpMaxAge, now);
}

/**
 * `POST /passwordless-add-credential {displayName?}`: a registration token for another passkey of
 * the signed-in user, only with a proof that it is them: a step-up with one of their passkeys
 * within `stepUpMaxAge`, a sign-up or a recovery that opened this session within
 * `freshSessionSeconds`, or a password sign-in the host noted (`notePasswordSignIn`) within
 * `freshSessionSeconds`, which the token spends at the service (one proof, one token). Without one,
 * 401 `step_up_required` (a user with a passkey) or `fresh_sign_in_required`: a session cookie
 * alone, however it was opened and whether or not the user has a passkey, makes no passkey. The
 * aliases are left as they are; the host hears of the passkey however it ends (newPasskeys.ts).
 */
export function addCredentialRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { user, userId } = signedInUser<U>(req, ctx.userIdOf);
    const input = parseBody(addCredentialSchema, req.body);
    const now = ctx.now();
    const proven = provenForAWhile(ctx, req, userId, now);
    const proofId = proven ? undefined : freshPasswordProof(req, userId, ctx.freshSessionSeconds, now);
    if (!proven && proofId === undefined) throw await proofRequired(ctx, userId);
    const token = await accountRegisterToken(ctx, { user, userId, displayName: input.displayName, proofId });
    if (proofId !== undefined) forgetPasswordProof(req);
    // The password proof was spent by a racing request, which got the token.
    if (token === undefined) throw await proofRequired(ctx, userId);
    sendJson(res, 200, { token });
  });
}

/**
 * `POST /passwordless-add-credential/complete {token}`: the browser made the passkey; its
 * `register()` result tells the host, which tells the user (`onPasskeyAdded`, e.g. a mail), at
 * once. The token must be a registration of the signed-in user's, made on the host's origins; it
 * is redeemed, and the passkey is told of once, whichever of this report and the middleware's own
 * look at the service comes first. Answers the new passkey's id and name.
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
    await ctx.newPasskeys.announce({ user, userId, passkey, via: 'add' });
    sendJson(res, 200, { id: passkey.id, name: passkey.name });
  });
}
