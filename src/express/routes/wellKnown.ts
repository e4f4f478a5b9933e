import type { Request, RequestHandler } from 'express';
import type { HostOrigins } from '../hostOrigins';

/** Where a password manager sends its user to make or manage a passkey on this site: the host's pages. */
export interface PasskeyEndpoints {
  enroll?: string;
  manage?: string;
}

/** `url` on the host's configured base: a path is the site's own, an absolute URL stays as given. */
const absolute = (site: HostOrigins, req: Request, url: string) => new URL(url, `${site.linkBase(req)}/`).toString();

/**
 * `GET /.well-known/passkey-endpoints` (W3C Passkey Endpoints): `{enroll, manage}` as absolute URLs
 * on the host's configured base, never on a request's Host header: the answer is publicly cacheable.
 */
export function passkeyEndpointsRoute(endpoints: PasskeyEndpoints, site: HostOrigins): RequestHandler {
  return (req, res) => {
    const body: Record<string, string> = {};
    if (endpoints.enroll) body.enroll = absolute(site, req, endpoints.enroll);
    if (endpoints.manage) body.manage = absolute(site, req, endpoints.manage);
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json(body);
  };
}

/** `GET /.well-known/webauthn`: `{origins}`, the other origins that may use this site's RP ID (Related Origin Requests). */
export function relatedOriginsRoute(origins: readonly string[]): RequestHandler {
  return (_req, res) => {
    res.setHeader('Cache-Control', 'public, max-age=3600');
    res.json({ origins });
  };
}
