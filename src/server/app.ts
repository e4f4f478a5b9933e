import express, { type ErrorRequestHandler, type Express, type Request, type RequestHandler } from 'express';
import type { Logger } from 'pino';
import { accessLog } from './http/middleware/accessLog';
import { chain } from './http/routing/chain';
import { jsonBody, requestProblem } from './http/middleware/body';
import { publicCors } from './http/middleware/cors';
import { methodNotAllowed } from './http/routing/methodNotAllowed';
import { rateLimits } from './http/middleware/rateLimits';
import { createMetrics, type Metrics } from './metrics/metrics';
import { metricsRoutes } from './routes/metrics';
import { securityHeaders } from './http/middleware/securityHeaders';
import { staticRoutes } from './http/routing/staticRoutes';
import { ApiError } from './core/apiError';
import { sendProblem } from './http/sendProblem';
import { problemTraceIdOf, requestIdOf } from './http/middleware/requestId';
import { storeProblem } from './core/storeProblem';
import { adminRoutes } from './routes/admin';
import { appDeletionRoutes } from './routes/appDeletion';
import { aliasRoutes } from './routes/alias';
import { appFeatureRoutes } from './routes/appFeatures';
import { authConfigRoutes } from './routes/authConfigs';
import { authenticatorRoutes } from './routes/authenticators';
import { credentialRoutes } from './routes/credentials';
import { eventRoutes } from './routes/events';
import { healthRoutes } from './routes/health';
import { legacyApi } from './routes/legacy';
import { magicLinkRoutes } from './routes/magicLinks';
import { mdsRoutes } from './routes/mds';
import { openApiRoutes } from './openapi/serveDocument';
import { registerRoutes } from './routes/register';
import { reportingRoutes } from './routes/reporting';
import { signinRoutes } from './routes/signin';
import { userRoutes } from './routes/users';
import { adminWebhookRoutes, webhookRoutes } from './routes/webhooks';
import { adminWebhookDeliveryRoutes, webhookDeliveryRoutes } from './routes/webhookDeliveries';
import type { Services } from './services';

/** `//register/begin` (a client apiUrl with a trailing slash) is the same route as `/register/begin`. */
const collapseSlashes: RequestHandler = (req, _res, next) => {
  // Nearly every request has no '//' at all: nothing to split then.
  if (req.url.includes('//')) {
    const [path, query] = splitOnce(req.url, '?');
    if (path.includes('//')) req.url = path.replace(/\/{2,}/g, '/') + (query === undefined ? '' : `?${query}`);
  }
  next();
};

function splitOnce(value: string, separator: string): [string, string | undefined] {
  const at = value.indexOf(separator);
  return at < 0 ? [value, undefined] : [value.slice(0, at), value.slice(at + 1)];
}

/**
 * What one listener serves: everything (the default), everything but the management API (the
 * main listener when MANAGEMENT_PORT gives the management API a listener of its own), or the
 * management API alone (that listener).
 */
export type AppSurface = 'all' | 'public' | 'management';

export interface AppOptions {
  surface?: AppSurface;
  /** Shared by the listeners of one process, so that /metrics counts both. */
  metrics?: Metrics;
  /** The operator console (`/console`, console/consoleRouter.ts), when CONSOLE is on; never on the management listener. */
  console?: RequestHandler;
}

/** Every router of the current API (or of the surface); each answers at `/` and under `/api`. */
function apiRouter(services: Services, metrics: Metrics, surface: AppSurface): express.Router {
  const router = express.Router();
  if (surface === 'management') {
    router.use(adminRoutes(services));
    router.use(adminWebhookRoutes(services));
    router.use(adminWebhookDeliveryRoutes(services));
    return router;
  }
  router.use(healthRoutes(services));
  router.use(metricsRoutes(services, metrics));
  if (surface === 'all') router.use(adminRoutes(services));
  if (surface === 'all') router.use(adminWebhookRoutes(services));
  if (surface === 'all') router.use(adminWebhookDeliveryRoutes(services));
  if (surface === 'all') router.use(mdsRoutes(services));
  router.use(registerRoutes(services));
  router.use(signinRoutes(services));
  router.use(aliasRoutes(services));
  router.use(credentialRoutes(services));
  router.use(userRoutes(services));
  router.use(magicLinkRoutes(services));
  router.use(authConfigRoutes(services));
  router.use(eventRoutes(services));
  router.use(authenticatorRoutes(services));
  router.use(reportingRoutes(services));
  router.use(appFeatureRoutes(services));
  router.use(appDeletionRoutes(services));
  router.use(webhookRoutes(services));
  router.use(webhookDeliveryRoutes(services));
  router.use(openApiRoutes(services));
  return router;
}

const notFound: RequestHandler = (req, _res, next) => {
  next(new ApiError('not_found', { detail: `There is no ${req.method} ${req.path.slice(0, 200)}.` }));
};

function sendError(res: express.Response, error: ApiError): void {
  sendProblem(res, { ...error.toProblem(), traceId: problemTraceIdOf(res) }, error.headers);
}

function errorHandler(logger: Logger): ErrorRequestHandler {
  return (error, req: Request, res, _next) => {
    const problem = error instanceof ApiError ? error : (requestProblem(error) ?? storeProblem(error));
    if (problem) {
      if (problem.logged) logger.warn({ method: req.method, path: req.path, requestId: requestIdOf(res), ...problem.logged }, 'request refused');
      sendError(res, problem);
      return;
    }
    // Unexpected: log it (without request headers, which may hold keys) and answer without internals.
    logger.error({ err: error, method: req.method, path: req.path, requestId: requestIdOf(res) }, 'unhandled error');
    if (res.headersSent) {
      res.end();
      return;
    }
    sendError(res, new ApiError('internal_error'));
  };
}

export function createApp(services: Services, logger: Logger, options: AppOptions = {}): Express {
  const surface = options.surface ?? 'all';
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.set('trust proxy', services.config.trustProxy);
  const metrics = options.metrics ?? createMetrics({ poolStats: services.store.poolStats });
  services.webhookWorker.onOutcome(metrics.webhookOutcome);
  services.webhookOutbox.onNotQueued(metrics.webhookNotQueued);
  const api = apiRouter(services, metrics, surface);
  // What every request passes, then the fixed-path routes, as one layer of the app's router.
  app.use(
    chain(
      accessLog(logger, metrics.observe),
      collapseSlashes,
      // The console's pages have their own headers, sessions and body parsing; the API's never see them.
      ...(options.console && surface !== 'management' ? [options.console] : []),
      securityHeaders,
      // CORS before rate limits, body parsing and authentication, so every answer to the browser client is readable.
      publicCors,
      rateLimits({
        limits: services.config.rateLimits,
        redis: services.redis,
        redisKeyPrefix: services.config.redisKeyPrefix,
        logger,
        trustProxy: services.config.trustProxy,
        onRefused: metrics.rateLimited,
      }),
      jsonBody,
      // No fixed path of the table is under /v3, so the older generation's layer needs to see only what the table passes on.
      staticRoutes(api),
    ),
  );
  if (surface !== 'management') app.use(['/v3', '/api/v3'], legacyApi(services, api));
  app.use('/api', api);
  app.use(api);
  const wrongMethod = methodNotAllowed(api);
  app.use('/api', wrongMethod);
  app.use(wrongMethod);
  app.use(notFound);
  app.use(errorHandler(logger));
  return app;
}
