import type { RequestHandler } from 'express';
import { isDoctorProof } from '../doctor/isDoctorProof';
import type { HostOrigins } from '../hostOrigins';

/**
 * `GET /passwordless-doctor`: how a request reaches this host, for `passwordless-selfhost doctor
 * --url`: the scheme Express sees, the X-Forwarded-Proto it was sent (http or https only), whether
 * `trust proxy` is set, and the configured Origins. Only to a caller that proves it holds the
 * ApiSecret (an HMAC of the time, within 5 minutes); anyone else gets the host's own 404, as if
 * it were not mounted. It costs one HMAC, changes nothing, and reads no Host header.
 */
export function doctorRoute(apiSecret: string, site: HostOrigins, now: () => number): RequestHandler {
  return (req, res, next) => {
    if (!isDoctorProof(req.get('passwordless-doctor'), apiSecret, now())) {
      next();
      return;
    }
    const forwarded = req.get('x-forwarded-proto')?.split(',')[0].trim().toLowerCase();
    res.setHeader('Cache-Control', 'no-store');
    res.json({
      protocol: req.protocol,
      forwardedProto: forwarded === 'http' || forwarded === 'https' ? forwarded : null,
      trustProxy: Boolean(req.app.get('trust proxy')),
      origins: site.origins(req),
    });
  };
}
