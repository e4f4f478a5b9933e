import type { RequestHandler } from 'express';
import { endpointSet } from '../routing/endpointSet';

/** The endpoints the browser client calls with the public ApiKey. */
const PUBLIC_PATHS = ['/register/begin', '/register/complete', '/signin/begin', '/signin/complete'];

/** Whether a path is one of the public endpoints, in either generation, at `/` or under `/api`. */
export const isPublicPath = endpointSet(PUBLIC_PATHS);

/**
 * CORS for the public (ApiKey) endpoints that the browser client calls from any site. It runs
 * before rate limits and authentication so that error responses carry the headers too; otherwise
 * the browser hides the problem body from the client library. Which origins may complete a
 * ceremony is decided per app by `allowedOrigins`, not here: a preflight carries no key to look up
 * an app.
 */
export const publicCors: RequestHandler = (req, res, next) => {
  if (!isPublicPath(req.path)) {
    next();
    return;
  }
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Retry-After, RateLimit, RateLimit-Policy, WWW-Authenticate, X-Request-Id');
  if (req.method === 'OPTIONS') {
    res.setHeader('Access-Control-Allow-Methods', 'POST, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', 'ApiKey, Content-Type, Client-Version');
    res.setHeader('Access-Control-Max-Age', '86400');
    res.status(204).end();
    return;
  }
  next();
};
