import type { RequestHandler } from 'express';
import { HostProblem } from './errorCodes';

/** The media type of a Content-Type header, lowercased, without parameters. */
function mediaTypeOf(header: string | undefined): string | undefined {
  return header?.split(';')[0].trim().toLowerCase() || undefined;
}

/**
 * Every state-changing route of the middleware takes JSON, with or without a body. A form or a
 * `<img>` on another page cannot send `Content-Type: application/json` without a CORS preflight,
 * which this host never grants; so a body-less cross- or same-site form post is refused as well.
 */
export const requireJsonRequest: RequestHandler = (req, _res, next) => {
  next(mediaTypeOf(req.headers['content-type']) === 'application/json' ? undefined : new HostProblem('unsupported_media_type'));
};

/**
 * A browser says where a request comes from (`Sec-Fetch-Site`). These routes change who is
 * signed in, so a request that another site made is refused, and one from a sibling subdomain
 * (`same-site`, e.g. a user-content host under the same domain) too unless the host allows it.
 * Non-browser clients send no such header and are unaffected.
 */
export function refuseOtherSites(allowSameSite: boolean): RequestHandler {
  return (req, _res, next) => {
    const site = req.headers['sec-fetch-site'];
    if (site === 'cross-site') next(new HostProblem('cross_site_request'));
    else if (site === 'same-site' && !allowSameSite) next(new HostProblem('cross_site_request', 'Requests from another site under the same domain are not accepted here.'));
    else next();
  };
}
