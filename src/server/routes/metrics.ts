import { Router, type RequestHandler } from 'express';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { configuredSecret } from '../core/configuredSecret';
import { ApiError } from '../core/apiError';
import type { Metrics } from '../metrics/metrics';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import type { Services } from '../services';

/** With METRICS_TOKEN set, `Authorization: Bearer <token>`, compared in constant time; unset, open. */
function requireMetricsToken(token: string | undefined): RequestHandler {
  const matches = configuredSecret(token);
  return (req, _res, next) => {
    if (!matches) return next();
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    if (!bearer || !matches(bearer[1])) {
      throw new ApiError('metrics_token', { headers: { 'WWW-Authenticate': 'Bearer realm="metrics"' } });
    }
    next();
  };
}

const metricsRoute = defineRoute({
  method: 'get',
  path: '/metrics',
  operationId: 'metrics',
  summary: 'Prometheus metrics (text exposition format).',
  description: 'With METRICS_TOKEN set, `Authorization: Bearer <METRICS_TOKEN>` is required (401 problem `metrics_token` otherwise).',
  tag: 'health',
  responses: { 200: { description: 'Prometheus text format, version 0.0.4.', contentType: 'text/plain' } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const metricsRouteSpecs: readonly RouteSpec[] = [metricsRoute];

export function metricsRoutes(services: Services, metrics: Metrics): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  mountRoute(router, auth, metricsRoute, async (_input, _req, res) => {
    const body = await metrics.registry.metrics();
    res.setHeader('Content-Type', metrics.registry.contentType);
    res.setHeader('Cache-Control', 'no-store');
    res.end(body);
  }, { before: [requireMetricsToken(services.config.metricsToken)] });
  return router;
}
