import type { RequestHandler } from 'express';
import { z } from 'zod';
import type { VerifiedUser } from '../apiTypes';
import { recordSignIn } from '../accountSession';
import { HostProblem } from '../errorCodes';
import { isServiceRefusal } from '../errors';
import { gateOpens, releaseMail, takeBudget } from '../hostMail';
import { asyncHandler, parseBody, sendJson } from '../http';
import { mailRecoveryLink, RECOVERY_PURPOSE } from '../mailedLinks';
import { isVerifyTokenShaped } from '../tokenShape';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

export { RECOVERY_PURPOSE };

/** Account recovery by email: what `recovery` sets. */
export interface Recovery {
  /** How long a recovery link works, in seconds. */
  linkLifetimeSeconds: number;
  /** The host page the link lands on (its values travel in the fragment); it shows the confirm button. */
  page: string;
  /** The path of the link's route. */
  path: string;
  findByEmail(email: string): Promise<unknown>;
}

const recoverSchema = z.object({
  email: z
    .string({ message: 'must be a string' })
    .trim()
    .toLowerCase()
    .pipe(z.email({ message: 'must be an email address' }).max(254, 'must be at most 254 characters')),
});

/** Mails a recovery link to `email` if a user has it and the host's mail budget allows; else nothing, quietly. */
async function recoverByMail<U extends LocalUser>(ctx: RouteContext<U>, recovery: Recovery, base: string, email: string): Promise<void> {
  const user = await recovery.findByEmail(email);
  const userId = user ? ctx.userIdOf(user) : undefined;
  if (userId === undefined) return;
  const budget = await takeBudget(ctx.mail, 'recovery');
  if (!budget.allowed) {
    await releaseMail(ctx.mail, 'recovery', email, false);
    (ctx.logger.warn ?? ctx.logger.error).call(ctx.logger, { retryAfterSeconds: budget.retryAfterSeconds }, 'passwordless: a recovery link was not sent: the host-wide mail budget is spent');
    return;
  }
  try {
    await mailRecoveryLink(ctx.client, { base, path: recovery.path, linkLifetimeSeconds: recovery.linkLifetimeSeconds }, userId, email);
  } catch (error) {
    await releaseMail(ctx.mail, 'recovery', email, true).catch(() => undefined);
    throw error;
  }
}

/**
 * `POST /passwordless-recover {email}`: 202 every time, answered before anything is looked up or
 * mailed, so neither the answer nor its timing tells who has an account, and nobody can make the
 * owner's own request fail. One link per address in a few minutes (repeats are absorbed); floods
 * are refused per client address (429, before this route).
 */
export function recoverRoute<U extends LocalUser>(ctx: RouteContext<U>, recovery: Recovery): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { email } = parseBody(recoverSchema, req.body);
    const base = ctx.site.linkBase(req);
    const open = await gateOpens(ctx.mail, 'recovery', email);
    sendJson(res, 202, { recoverySent: true });
    if (!open) return;
    await recoverByMail(ctx, recovery, base, email).catch((error: unknown) => {
      ctx.logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message } }, 'passwordless: a recovery link could not be sent');
    });
  });
}

/**
 * `GET /passwordless-recover?recovery=…&token=…`: where the mailed link points. It changes nothing
 * and uses nothing up (mail scanners fetch links): it sends the browser to the host's page with
 * both values in the fragment, where a button confirms the recovery.
 */
export function recoveryLinkRoute(recovery: Recovery): RequestHandler {
  return (req, res) => {
    const once = typeof req.query.recovery === 'string' ? req.query.recovery : '';
    const token = typeof req.query.token === 'string' ? req.query.token : '';
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    res.redirect(303, `${recovery.page}#${new URLSearchParams({ 'passwordless-recovery': once, token }).toString()}`);
  };
}

const confirmSchema = z.object({
  recovery: z.string({ message: 'must be a string' }).min(1, 'is required').max(4096, 'must be at most 4096 characters'),
  token: z.string({ message: 'must be a string' }).min(1, 'is required').max(4096, 'must be at most 4096 characters'),
});

/** What the service says of `token`, or an `invalid_link` problem for a token it refuses. */
async function verifiedOrInvalid<U extends LocalUser>(ctx: RouteContext<U>, token: string): Promise<VerifiedUser> {
  if (!isVerifyTokenShaped(token)) throw new HostProblem('invalid_link');
  try {
    return await ctx.client.verifyToken(token);
  } catch (error) {
    if (!isServiceRefusal(error)) throw error;
    const used = error.errorCode === 'token_already_used';
    throw new HostProblem('invalid_link', used ? 'This link was used already.' : error.errorCode === 'expired_token' ? 'The link has expired: ask for a new one.' : undefined);
  }
}

/**
 * `POST /passwordless-recover/confirm {recovery, token}`: the button on the link's page. The
 * magic-link token must be this app's for the same user, and the recovery token is redeemed at the
 * service: a second use of the link is refused. The user is then signed in under a new session id;
 * the page offers to add a passkey (which, for a few minutes, needs no step-up).
 */
export function confirmRecoveryRoute<U extends LocalUser>(ctx: RouteContext<U>): RequestHandler {
  return asyncHandler(async (req, res) => {
    const input = parseBody(confirmSchema, req.body);
    const mailed = await verifiedOrInvalid(ctx, input.token);
    if (!mailed.success || mailed.type !== 'magic_link') throw new HostProblem('invalid_link');
    const once = await verifiedOrInvalid(ctx, input.recovery);
    if (!once.success || once.type !== 'generated_signin' || once.purpose !== RECOVERY_PURPOSE || once.userId !== mailed.userId) throw new HostProblem('invalid_link');
    const user = await ctx.findUser(once.userId);
    if (!user) throw new HostProblem('unknown_user');
    await new Promise<void>((resolve, reject) => req.logIn(user, (error) => (error ? reject(error) : resolve())));
    recordSignIn(req, { userId: once.userId, credentialId: null }, 'recovery', ctx.now());
    sendJson(res, 200, { ...ctx.publicUser(user), recovered: true });
  });
}
