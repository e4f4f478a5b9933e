import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { ApiError } from '../http/problem';
import type { Metrics } from '../metrics/metrics';

/** `GET /metrics` answers the Prometheus text exposition format (text/plain; version=0.0.4). */
export const METRICS_PATHS = ['/metrics'] as const;

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/** With METRICS_TOKEN set, `Authorization: Bearer <token>`, compared in constant time; unset, open. */
function requireMetricsToken(token: string | undefined): RequestHandler {
  const expected = token === undefined ? undefined : sha256(token);
  return (req, _res, next) => {
    if (!expected) return next();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!match || !timingSafeEqual(sha256(match[1]), expected)) {
      throw new ApiError('metrics_token', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
    }
    next();
  };
}

export function metricsRoutes(metrics: Metrics, token: string | undefined): Router {
  const router = Router();
  router.get('/metrics', requireMetricsToken(token), async (_req, res) => {
    const body = await metrics.registry.metrics();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  });
  return router;
}
