import { randomBytes, timingSafeEqual } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { ApiError } from '../core/apiError';

interface CsrfSession {
  consoleCsrf?: string;
}

/** The session's form token, made on first use: every form of the console carries it as `_csrf`. */
export function csrfTokenOf(req: Request): string {
  const session = (req as Request & { session?: CsrfSession }).session;
  if (!session) throw new Error('the console needs its session before a form is rendered');
  session.consoleCsrf ??= randomBytes(24).toString('base64url');
  return session.consoleCsrf;
}

function sameText(a: string, b: string): boolean {
  const left = Buffer.from(a);
  const right = Buffer.from(b);
  return left.length === right.length && timingSafeEqual(left, right);
}

/**
 * Every state-changing request of the console's own routes: the browser must say it comes from
 * this origin (`Sec-Fetch-Site`, else `Origin`), and a form must carry the session's token (a
 * JSON request sends it as `X-Console-Csrf`). A cross-site form post fails both.
 */
export function requireSameOriginForm(origin: string): RequestHandler {
  return (req, _res, next) => {
    const site = req.headers['sec-fetch-site'];
    const from = req.headers.origin;
    const sameOrigin = site !== undefined ? site === 'same-origin' : from === undefined || from === origin;
    const session = (req as Request & { session?: CsrfSession }).session;
    const sent = typeof req.body?._csrf === 'string' ? req.body._csrf : req.headers['x-console-csrf'];
    const expected = session?.consoleCsrf;
    if (sameOrigin && typeof sent === 'string' && expected !== undefined && sameText(sent, expected)) next();
    else next(new ApiError('console_form_refused'));
  };
}
