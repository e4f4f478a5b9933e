import { createHash, timingSafeEqual } from 'node:crypto';
import { Router, type RequestHandler } from 'express';
import { mountRoute } from '../http/mountRoute';
import { ApiError } from '../http/problem';
import type { Metrics } from '../metrics/metrics';
import { defineRoute } from '../openapi/routeSpec';
import type { Services } from '../services';


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

export const metricsRoute = defineRoute({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics (text exposition format).',
  description: 'With METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` is required (401 problem `metrics_token` otherwise).',
  tag: 'health',
  responses: { 200: { description: 'Prometheus text format, version 0.0.4.', contentType: 'text/plain' } },
});

export function metricsRoutes(services: Services, metrics: Metrics): Router {
  const router = Router();
  mountRoute(router, services, metricsRoute, async (_input, _req, res) => {
    const body = await metrics.registry.metrics();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  }, { before: [requireMetricsToken(services.config.metricsToken)] });
  return router;
}
