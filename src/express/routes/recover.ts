import type { Request, RequestHandler } from 'express';
import { z } from 'zod';
import type { VerifiedUser } from '../apiTypes';
import { HostProblem } from '../errorCodes';
import { isServiceRefusal } from '../errors';
import { asyncHandler, parseBody, sendJson } from '../http';
import { requestOrigin } from '../requestOrigin';
import { isVerifyTokenShaped } from '../tokenShape';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

/** The purpose of the single-use token a recovery link carries. */
export const RECOVERY_PURPOSE = 'recovery';

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

/**
 * Mails a recovery link to `email` if a user has it. The link carries two tokens of the service:
 * the magic link's (`$TOKEN`, proving the mailbox was reached) and a generated sign-in token of
 * purpose `recovery`, which the service redeems once: so the link signs in once, although
 * magic-link tokens stay valid until they expire.
 */
async function mailRecoveryLink<U extends LocalUser>(ctx: RouteContext<U>, recovery: Recovery, req: Request, email: string): Promise<void> {
  const user = await recovery.findByEmail(email);
  const userId = user ? ctx.userIdOf(user) : undefined;
  if (userId === undefined) return;
  const origin = ctx.expectedOrigins(req)[0] ?? requestOrigin(req);
  if (origin === undefined) return;
  const { token: once } = await ctx.client.generateAuthenticationToken({ userId, timeToLive: recovery.linkLifetimeSeconds, purpose: RECOVERY_PURPOSE });
  await ctx.client.sendMagicLink({
    emailAddress: email,
    urlTemplate: `${origin}${recovery.path}?recovery=${once}&token=$TOKEN`,
    userId,
    timeToLive: recovery.linkLifetimeSeconds,
  });
}

/**
 * `POST /passwordless-recover {email}`: 202 whether or not the address has an account, answered
 * before anything is looked up or mailed, so neither the answer nor its timing tells who has one.
 * Throttled per client address and per email address.
 */
export function recoverRoute<U extends LocalUser>(ctx: RouteContext<U>, recovery: Recovery): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { email } = parseBody(recoverSchema, req.body);
    sendJson(res, 202, { recoverySent: true });
    await mailRecoveryLink(ctx, recovery, req, email).catch((error: unknown) => {
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
 * the page offers to add a passkey.
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
    sendJson(res, 200, { ...ctx.publicUser(user), recovered: true });
  });
}
