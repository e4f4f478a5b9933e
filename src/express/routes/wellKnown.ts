import type { Request, RequestHandler } from 'express';
import { requestOrigin } from '../requestOrigin';

/** Where a password manager sends its user to make or manage a passkey on this site: the host's pages. */
export interface PasskeyEndpoints {
  enroll?: string;
  manage?: string;
}

const absolute = (req: Request, url: string) => new URL(url, requestOrigin(req) ?? 'http://localhost').toString();

/** `GET /.well-known/passkey-endpoints` (W3C Passkey Endpoints): `{enroll, manage}` as absolute URLs. */
export function passkeyEndpointsRoute(endpoints: PasskeyEndpoints): RequestHandler {
  return (req, res) => {
    const body: Record<string, string> = {};
    if (endpoints.enroll) body.enroll = absolute(req, endpoints.enroll);
    if (endpoints.manage) body.manage = absolute(req, endpoints.manage);
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
