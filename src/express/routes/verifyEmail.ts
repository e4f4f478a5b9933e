import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { VerifiedUser } from '../apiTypes';
import { HostProblem } from '../errorCodes';
import { isServiceRefusal } from '../errors';
import { asyncHandler, parseBody, sendJson } from '../http';
import { holdSignUp } from '../pendingSignUp';
import { registerRequest } from '../registerRequest';
import { openSignUpClaim } from '../signUpLink';
import { signUpSchema, visitorAliases } from './register';
import { isVerifyTokenShaped } from '../tokenShape';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/**
 * `GET /passwordless-verify-email?signup=…&token=…`: where the mailed link points. It changes
 * nothing (mail scanners fetch links): it sends the browser on to the host's page with both values
 * in the URL fragment, which no server, log or Referer sees; the page posts them back.
 */
export function verifyEmailLinkRoute<U extends LocalUser>(ctx: RouteContext<U>, page: string): RequestHandler {
  return (req, res) => {
    const signup = typeof req.query.signup === 'string' ? req.query.signup : '';
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    const fragment = new URLSearchParams({ 'passwordless-signup': signup, token }).toString();
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.redirect(303, `${page}#${fragment}`);
  };
}

const verifyEmailSchema = z.object({
  signup: z.string({ message: 'must be a string' }).min(1, 'is required').max(2048, 'must be at most 2048 characters'),
  token: z.string({ message: 'must be a string' }).min(1, 'is required'),
  // The profile is the one the person who opened the link confirms, whoever asked for the link.
  username: signUpSchema.shape.username,
  displayName: signUpSchema.shape.displayName,
  aliases: signUpSchema.shape.aliases,
});

/**
 * `POST /passwordless-verify-email {signup, token, username, displayName?, aliases?}`: the link was
 * opened. The sign-up must be one this site signed and not expired, and the service's magic-link
 * token must prove the mail reached that address (for that sign-up's userId). The sign-up then
 * becomes this session's pending one, with the username and display name (and aliases, where the
 * host allows them) sent here, by the browser that opened the link, which its page shows the
 * owner to confirm or change: the sign-up's request, which anybody can make for any address, can
 * cause a mail and decides nothing of the account. The answer is `{token, email}` for its passkey
 * ceremony, as a sign-up without verification.
 */
export function verifyEmailRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const input = parseBody(verifyEmailSchema, req.body);
    const claim = openSignUpClaim(input.signup, ctx.settings.apiSecret, ctx.now());
    if (!claim || !isVerifyTokenShaped(input.token)) throw new HostProblem('invalid_link');
    let verified: VerifiedUser;
    try {
      verified = await ctx.client.verifyToken(input.token);
    } catch (error) {
      if (isServiceRefusal(error)) {
        throw new HostProblem('invalid_link', error.errorCode === 'expired_token' ? 'The link has expired: sign up again.' : undefined);
      }
      throw error;
    }
    if (!verified.success || verified.type !== 'magic_link' || verified.userId !== claim.userId) throw new HostProblem('invalid_link');
    if (await ctx.findUser(claim.userId)) throw new HostProblem('invalid_link', 'This sign-up was completed already: sign in instead.');
    const profile = { username: input.username, displayName: input.displayName || input.username, aliases: visitorAliases(ctx, claim.email, input.aliases) };
    holdSignUp(req, { userId: claim.userId, email: claim.email, ...profile, expiresAt: ctx.now() + ctx.settings.register.expirationSeconds * 1000 });
    const { token } = await ctx.client.createRegisterToken(
      registerRequest(ctx.settings.register, { userId: claim.userId, username: profile.username, displayName: profile.displayName, aliases: [] }),
    );
    sendJson(res, 200, { token, email: claim.email });
  });
}
