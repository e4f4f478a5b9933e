import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import { MAX_ALIAS_LENGTH, MAX_ALIASES } from '../../shared/vocabulary';
import { HostProblem } from '../errorCodes';
import { gateOpens, releaseMail, takeBudget } from '../hostMail';
import { asyncHandler, parseBody, sendJson } from '../http';
import { mailAccountExistsLink, mailRecoveryLink, mailSignUpLink } from '../mailedLinks';
import { holdSignUp } from '../pendingSignUp';
import { registerRequest } from '../registerRequest';
import type { SignUpClaim } from '../signUpLink';
import type { LocalUser } from '../userStore';
import type { EmailVerification, RouteContext } from './context';

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

/** The visitor's aliases, where the host allows them (else a 400 for any), with the email address counted in. */
export function visitorAliases<U extends LocalUser>(ctx: RouteContext<U>, email: string, given: string[] | null | undefined): string[] {
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

/** The host's challenge (a CAPTCHA, proof of work) before a sign-up costs anything; a failing or throwing one refuses it. */
async function passChallenge<U extends LocalUser>(ctx: RouteContext<U>, req: Request): Promise<void> {
  if (!ctx.signUpChallenge) return;
  let passed: boolean;
  try {
    passed = (await ctx.signUpChallenge(req)) === true;
  } catch (error) {
    ctx.logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message } }, 'passwordless: the sign-up challenge failed to run');
    passed = false;
  }
  if (!passed) throw new HostProblem('challenge_failed');
}

/**
 * Mails what a sign-up by email calls for: the verification link for a free address; for one that
 * has an account, nothing is created, and its owner gets a recovery link (with `recovery`) or a
 * note that the account exists. Run after the answer, which is the same either way.
 */
async function mailSignUp<U extends LocalUser>(ctx: RouteContext<U>, verification: EmailVerification, base: string, claim: SignUpClaim): Promise<void> {
  const owner = ctx.users.findByEmail ? await ctx.users.findByEmail(claim.email) : undefined;
  const ownerId = owner ? ctx.userIdOf(owner) : undefined;
  if (ownerId === undefined) {
    await mailSignUpLink(ctx.client, ctx.settings.apiSecret, { base, path: ctx.verifyEmailPath, linkLifetimeSeconds: verification.linkLifetimeSeconds }, claim);
  } else if (ctx.recovery) {
    await mailRecoveryLink(ctx.client, { base, path: ctx.recovery.path, linkLifetimeSeconds: ctx.recovery.linkLifetimeSeconds }, ownerId, claim.email);
  } else {
    await mailAccountExistsLink(ctx.client, { base, page: verification.page, linkLifetimeSeconds: verification.linkLifetimeSeconds }, ownerId, claim.email);
  }
}

/**
 * `POST /passwordless-register {email, username, displayName}`: starts a sign-up. Nothing is
 * written to the user store: the sign-up is pending (in the session) until its passkey exists and
 * its token comes back at login. With `verifyEmail` (the default), it answers 202 at once, the same
 * for any address, and then mails a link (one per address in a few minutes; within the host's mail
 * budget, else 429 `mail_quota_reached`); otherwise it answers `{token}`, a registration token for
 * a random userId.
 */
export function registerRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const input = parseBody(signUpSchema, req.body);
    const aliases = visitorAliases(ctx, input.email, input.aliases);
    await passChallenge(ctx, req);
    const displayName = input.displayName || input.username;
    const userId = randomUUID();
    const verification = ctx.verifyEmail;
    if (verification) {
      const base = ctx.site.linkBase(req);
      if (!(await gateOpens(ctx.mail, 'verification', input.email))) {
        sendJson(res, 202, { verificationSent: true });
        return;
      }
      const budget = await takeBudget(ctx.mail, 'verification');
      if (!budget.allowed) {
        await releaseMail(ctx.mail, 'verification', input.email, false);
        res.setHeader('Retry-After', String(budget.retryAfterSeconds));
        throw new HostProblem('mail_quota_reached', 'Sign-ups are paused until the time in Retry-After; account recovery still works.');
      }
      sendJson(res, 202, { verificationSent: true });
      // The names travel in the link only for its page to show as a suggestion: the profile is the
      // one confirmed there (see verifyEmail.ts), and the aliases are given there too.
      const claim = { userId, email: input.email, username: input.username, displayName, aliases: [], expiresAt: ctx.now() + verification.linkLifetimeSeconds * 1000 };
      await mailSignUp(ctx, verification, base, claim).catch(async (error: unknown) => {
        await releaseMail(ctx.mail, 'verification', input.email, true).catch(() => undefined);
        ctx.logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message } }, 'passwordless: a sign-up mail could not be sent');
      });
      return;
    }
    holdSignUp(req, { userId, email: input.email, username: input.username, displayName, aliases, expiresAt: ctx.now() + ctx.settings.register.expirationSeconds * 1000 });
    const { token } = await ctx.client.createRegisterToken(registerRequest(ctx.settings.register, { userId, username: input.username, displayName, aliases: [] }));
    sendJson(res, 200, { token });
  });
}
