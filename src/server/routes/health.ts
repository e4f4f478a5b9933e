import { Router } from 'express';
import { mountRoute } from '../http/routing/mountRoute';
import { routeAuthenticators } from './routeAuthenticators';
import { defineRoute, type RouteSpec } from '../http/routing/routeSpec';
import { healthReportAnswer } from './responseSchemas';
import { packageVersion } from '../core/packageVersion';
import { withinTimeout } from '../core/withinTimeout';
import type { Services } from '../services';

/** `Degraded`: serving, with something optional missing (Redis: limits not shared); answered with 200, as ASP.NET does. */
type Status = 'Healthy' | 'Degraded' | 'Unhealthy';
interface CheckResult {
  status: Status;
  elapsedMilliseconds: number;
  data: Record<string, unknown>;
}

/** A dependency that does not answer within this is unhealthy (a stalled connection must not hang the check). */
const CHECK_TIMEOUT_MS = 5000;

async function timed(check: () => Promise<Record<string, unknown>>, failed: Status = 'Unhealthy'): Promise<CheckResult> {
  const started = performance.now();
  try {
    const data = await withinTimeout(check(), CHECK_TIMEOUT_MS);
    return { status: 'Healthy', elapsedMilliseconds: performance.now() - started, data };
  } catch (error) {
    // A name or code only: messages can carry connection details.
    const { name, code } = error as { name?: string; code?: unknown };
    return { status: failed, elapsedMilliseconds: performance.now() - started, data: { error: typeof code === 'string' ? code : name } };
  }
}

type Check = () => Promise<Record<string, unknown>>;

async function report(checks: Record<string, Check>, optional: Record<string, Check> = {}) {
  const started = performance.now();
  const results: Record<string, CheckResult> = {};
  for (const [name, check] of Object.entries(checks)) results[name] = await timed(check);
  for (const [name, check] of Object.entries(optional)) results[name] = await timed(check, 'Degraded');
  const statuses = Object.values(results).map((r) => r.status);
  const status: Status = statuses.includes('Unhealthy') ? 'Unhealthy' : statuses.includes('Degraded') ? 'Degraded' : 'Healthy';
  return { status, elapsedMilliseconds: performance.now() - started, results };
}

const HEALTHY = Buffer.from('Healthy');

const httpHealthRoute = defineRoute({
  method: 'all',
  path: '/health/http',
  operationId: 'healthHttp',
  summary: "Plain 'Healthy' while the process serves (any method).",
  tag: 'health',
  responses: { 200: { description: 'Healthy', contentType: 'text/plain' } },
});

const report503 = { description: 'A dependency is unhealthy.', schema: healthReportAnswer };

const storageHealthRoute = defineRoute({
  method: 'get',
  path: '/health/storage',
  operationId: 'healthStorage',
  summary: 'The database answers and every migration is applied.',
  tag: 'health',
  responses: { 200: { description: 'Healthy.', schema: healthReportAnswer }, 503: report503 },
});

const mailHealthRoute = defineRoute({
  method: 'get',
  path: '/health/mail',
  operationId: 'healthMail',
  summary: 'The SMTP server answers (or MAIL_FILE can be written).',
  tag: 'health',
  responses: { 200: { description: 'Healthy.', schema: healthReportAnswer }, 503: report503 },
});
const versionHealthRoute = defineRoute({
  method: 'get',
  path: '/health/version',
  operationId: 'healthVersion',
  summary: "The service's version and its Node.js runtime's, as the `version` result's data.",
  tag: 'health',
  responses: { 200: { description: 'Healthy, with `results.version.data` = `{version, node}`.', schema: healthReportAnswer } },
});
/** The routes this file declares, in the order the OpenAPI document lists them. */
export const healthRouteSpecs: readonly RouteSpec[] = [httpHealthRoute, storageHealthRoute, mailHealthRoute, versionHealthRoute];

/** Anonymous health checks (spec: /api/health/*; also served at /health/*). */
export function healthRoutes(services: Services): Router {
  const router = Router();
  const auth = routeAuthenticators(services);
  const { store, storageHealth, mailer } = services;
  const { redis } = services;
  // Without Redis the service still serves, its rate limits per replica only: degraded, not down.
  const redisCheck: Record<string, Check> = redis
    ? {
        redis: async () => {
          await redis.ping();
          return {};
        },
      }
    : {};

  // Probed every few seconds by load balancers: a fixed answer, nothing computed per request.
  mountRoute(router, auth, httpHealthRoute, (_input, _req, res) => {
    res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.setHeader('Content-Length', HEALTHY.length);
    res.end(HEALTHY);
  });

  mountRoute(router, auth, storageHealthRoute, async (_input, _req, res) => {
    const body = await report({
      [store.provider]: async () => {
        await storageHealth.check();
        return {};
      },
      orm: async () => ({ migrations: await storageHealth.migrations() }),
    }, redisCheck);
    res.status(body.status === 'Unhealthy' ? 503 : 200).json(body);
  });

  mountRoute(router, auth, mailHealthRoute, async (_input, _req, res) => {
    const body = await report({
      [mailer.kind]: async () => {
        await mailer.check();
        return {};
      },
    });
    // The spec's shape without a mail server: empty `results` while MAIL_FILE can be written.
    if (mailer.kind === 'file' && body.status === 'Healthy') body.results = {};
    res.status(body.status === 'Healthy' ? 200 : 503).json(body);
  });

  mountRoute(router, auth, versionHealthRoute, async (_input, _req, res) => {
    res.json(await report({ version: async () => ({ version: packageVersion(), node: process.version }) }));
  });
  return router;
}
