import type { RequestHandler } from 'express';
import { z } from 'zod';
import { sessionProof } from '../accountSession';
import { credentialIdOf } from '../credentialIdOf';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody } from '../http';
import { passkeyMayStepUp } from '../passkeyMayStepUp';
import { signedInUser } from '../signedInUser';
import { recordStepUp } from '../stepUp';
import { acceptedToken } from '../strategy';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

const stepUpSchema = z.object({
  token: z.unknown(),
  purpose: z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(255, 'must be at most 255 characters').default('step-up'),
});

/**
 * `POST /passwordless-step-up {token, purpose?}`: the signed-in user confirmed it is them with a
 * passkey (the published client's `stepup({signinMethod, purpose})` makes the token). The token
 * must be a passkey sign-in of that purpose (default `step-up`), made on the host's origins, by
 * the signed-in user's own passkey, and that passkey must be at least
 * `newPasskeyStepUpDelaySeconds` old, in whatever session (see passkeyMayStepUp.ts), except in the
 * session of the sign-up or the recovery that made it: a passkey made with a stolen session or a
 * phished password confirms nothing, not even from a session it signs in itself. The time and the
 * passkey are kept in the session, which keeps its id: a step-up is not a new sign-in.
 */
export function stepUpRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { userId } = signedInUser<U>(req, ctx.userIdOf);
    const input = parseBody(stepUpSchema, req.body);
    const checked = await acceptedToken(ctx.client, input.token, { ...ctx.tokenAcceptance, types: new Set(['passkey_signin']), purposes: [input.purpose] }, req);
    if ('failure' in checked) throw new HostProblem(checked.failure.problem);
    const { verified } = checked;
    if (verified.userId !== userId) throw new HostProblem('token_not_accepted', "The token proves another user's passkey, not the signed-in user's.");
    const credentialId = credentialIdOf(verified);
    const passkey = (await ctx.client.listCredentials(userId)).find((c) => c.descriptor.id === credentialId);
    if (!passkey) throw new HostProblem('token_not_accepted', 'The passkey of this token is no longer one of yours.');
    const stepUpAt = Date.parse(verified.timestamp);
    if (!passkeyMayStepUp({ id: passkey.descriptor.id, createdAt: Date.parse(passkey.createdAt) }, sessionProof(req, userId), ctx.newPasskeyStepUpDelaySeconds, stepUpAt)) {
      const minutes = Math.ceil(ctx.newPasskeyStepUpDelaySeconds / 60);
      throw new HostProblem('passkey_too_new', `Use an older passkey: a passkey confirms it is you once it is ${minutes} minutes old.`);
    }
    recordStepUp(req, input.purpose, userId, passkey.descriptor.id, ctx.now());
    res.status(204).end();
  });
}
