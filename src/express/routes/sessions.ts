import type { Request, RequestHandler, Response } from 'express';
import { z } from 'zod';
import { HostProblem } from '../errorCodes';
import { asyncHandler, parseBody, sendJson, sessionOf } from '../http';
import type { AccountSessions } from '../sessions/accountSessions';
import { signedInUser } from '../signedInUser';
import { steppedUp } from '../stepUp';
import type { LocalUser } from '../userStore';
import type { RouteContext } from './context';

const endSchema = z
  .object({
    id: z.string({ message: 'must be a string' }).min(1, 'is required').max(100, 'must be at most 100 characters').optional(),
    allButThis: z.literal(true, { message: 'must be true' }).optional(),
  })
  .superRefine((input, check) => {
    if ((input.id === undefined) === (input.allButThis === undefined)) check.addIssue({ code: 'custom', path: ['id'], message: 'give either id or allButThis: true' });
  });

/**
 * `GET /passwordless-sessions`: where the signed-in user is signed in: each session's handle,
 * device and browser, the passkey that opened it, created and last seen, and which is this one.
 */
export function listSessionsRoute<U extends LocalUser>(ctx: RouteContext<U>, sessions: AccountSessions): RequestHandler {
  return asyncHandler(async (req, res) => {
    const { userId } = signedInUser<U>(req, ctx.userIdOf);
    sendJson(res, 200, { sessions: await sessions.list(userId, req) });
  });
}

/** Signs this session out as the logout route does: passport's logout, then the session and its cookie go. */
async function signOutHere<U extends LocalUser>(req: Request, res: Response, ctx: RouteContext<U>): Promise<void> {
  if (typeof req.logout === 'function') await new Promise<void>((resolve, reject) => req.logout((error) => (error ? reject(error) : resolve())));
  const session = sessionOf(req);
  if (session) await new Promise<void>((resolve, reject) => session.destroy((error) => (error ? reject(error) : resolve())));
  res.clearCookie(ctx.sessionCookieName, ctx.sessionCookieOptions);
}

/**
 * `POST /passwordless-sessions/end {id} | {allButThis: true}`: ends one of the signed-in user's
 * sessions (signed out at its next request), or every one but this. This session ends at once,
 * like a sign-out. Ending another needs a recent step-up with a passkey (401 `step_up_required`,
 * as deleting a passkey does): else a stolen session could sign its owner out, everywhere, again
 * and again, while the owner, who has the passkey, can always end the thief's. Another user's
 * session is never found (404 `unknown_session`, as for a handle that never was).
 */
export function endSessionRoute<U extends LocalUser>(ctx: RouteContext<U>, sessions: AccountSessions): RequestHandler {
  const requireStepUp = (req: Request, userId: string) => {
    if (!steppedUp(req, 'step-up', userId, ctx.stepUpMaxAge, ctx.now())) throw new HostProblem('step_up_required', "Confirm it is you with a passkey (purpose 'step-up') to end your other sessions.", { purpose: 'step-up' });
  };
  return asyncHandler(async (req, res) => {
    const { userId } = signedInUser<U>(req, ctx.userIdOf);
    const input = parseBody(endSchema, req.body);
    if (input.allButThis) {
      const others = await sessions.others(userId, req);
      if (others.count > 0) requireStepUp(req, userId);
      sendJson(res, 200, { ended: await others.end() });
      return;
    }
    const session = await sessions.byHandle(userId, input.id!, req);
    if (!session) throw new HostProblem('unknown_session');
    if (session.current) {
      await signOutHere(req, res, ctx);
      sendJson(res, 200, { ended: 1, signedOut: true });
      return;
    }
    requireStepUp(req, userId);
    sendJson(res, 200, { ended: await session.end() });
  });
}
