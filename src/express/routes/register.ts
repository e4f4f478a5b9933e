import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { MAX_ALIAS_LENGTH, MAX_ALIASES } from '../../shared/vocabulary';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson } from '../http';
import { holdSignUp } from '../pendingSignUp';
import { registerRequest } from '../registerRequest';
import { requestOrigin } from '../requestOrigin';
import { signSignUpClaim } from '../signUpLink';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/** What a visitor signs up with; the email address is normalised as it is stored and mailed. */
export const signUpSchema = z.object({
  email: z
    .string({ message: 'must be a string' })
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'must be an email address' }).max(254, 'must be at most 254 characters')),
  username: z.string({ message: 'must be a string' }).trim().min(1, 'is required').max(256, 'must be at most 256 characters'),
  displayName: z.string({ message: 'must be a string' }).trim().max(256, 'must be at most 256 characters').nullish(),
  aliases: z
    .array(z.string({ message: 'must contain strings' }).min(1, 'must not contain empty aliases').max(MAX_ALIAS_LENGTH, `must contain aliases of at most ${MAX_ALIAS_LENGTH} characters`))
    .max(MAX_ALIASES, `must contain at most ${MAX_ALIASES} aliases`)
    .nullish(),
});

function visitorAliases<U extends LocalUser>(ctx: RouteContext<U>, email: string, given: string[] | null | undefined): string[] {
  if (!given || given.length === 0) return [];
  // Aliases sign in to the account: a visitor could name another person's address.
  if (!ctx.allowVisitorAliases) {
    throw new HostProblem('validation_failed', 'This site does not accept aliases at sign-up.', { errors: { aliases: ['The aliases field is not accepted here.'] } });
  }
  const all = [...new Set([...(ctx.emailAsAlias ? [email] : []), ...given])];
  if (all.length > MAX_ALIASES) {
    throw new HostProblem('validation_failed', `At most ${MAX_ALIASES} aliases, the email address included.`, {
      errors: { aliases: [`The aliases field must contain at most ${MAX_ALIASES - (ctx.emailAsAlias ? 1 : 0)} aliases besides the email address.`] },
    });
  }
  return given;
}

/**
 * `POST /passwordless-register {email, username, displayName}`: starts a sign-up. Nothing is
 * written to the user store: the sign-up is pending (in the session) until its passkey exists and
 * its token comes back at login. With `verifyEmail`, it first mails a link (202, the same answer
 * for any address); otherwise it answers `{token}`, a registration token for a random userId.
 */
export function registerRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const input = parseBody(signUpSchema, req.body);
    const aliases = visitorAliases(ctx, input.email, input.aliases);
    const displayName = input.displayName || input.username;
    const userId = randomUUID();
    if (ctx.verifyEmail) {
      const { linkLifetimeSeconds } = ctx.verifyEmail;
      const signUp = signSignUpClaim(
        { userId, email: input.email, username: input.username, displayName, aliases, expiresAt: ctx.now() + linkLifetimeSeconds * 1000 },
        ctx.settings.apiSecret,
      );
      const origin = ctx.expectedOrigins(req)[0] ?? requestOrigin(req);
      if (origin === undefined) throw new HostProblem('validation_failed', 'The request has no Host header to build the verification link from.');
      await ctx.client.sendMagicLink({
        emailAddress: input.email,
        urlTemplate: `${origin}${ctx.verifyEmailPath}?signup=${signUp}&token=$TOKEN`,
        userId,
        timeToLive: linkLifetimeSeconds,
      });
      sendJson(res, 202, { verificationSent: true });
      return;
    }
    holdSignUp(req, { userId, email: input.email, username: input.username, displayName, aliases, expiresAt: ctx.now() + ctx.settings.register.expirationSeconds * 1000 });
    const { token } = await ctx.client.createRegisterToken(registerRequest(ctx.settings.register, { userId, username: input.username, displayName, aliases: [] }));
    sendJson(res, 200, { token });
  });
}
