import { performance } from 'node:perf_hooks';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';
import type { AuthenticatedKey } from '../../services/apps/apiKeys';
import { recordedConsolePath } from '../../core/consolePath';
import { activeSpanContext } from '../../core/telemetry/tracing';
import { requestIdFor } from './requestId';

/** Longer paths are cut: a line stays one short line whatever the caller sends. */
const MAX_LOGGED_PATH = 200;

interface AccessLogLocals {
  requestId: string;
  startedAt: number;
  auth?: AuthenticatedKey;
  /** The request's OpenTelemetry trace and span, when tracing is on (the 'close' hook runs outside its context). */
  traceId?: string;
  spanId?: string;
}

/**
 * The path without its query string (which may carry a token); for the console, the template of
 * the route that answered, since its pages' paths hold user ids (recordedConsolePath).
 */
function loggedPath(originalUrl: string, route: { path?: unknown } | undefined): string {
  const query = originalUrl.indexOf('?');
  const path = query < 0 ? originalUrl : originalUrl.slice(0, query);
  const recorded = recordedConsolePath(path, route?.path) ?? path;
  return recorded.length > MAX_LOGGED_PATH ? `${recorded.slice(0, MAX_LOGGED_PATH)}...` : recorded;
}

/**
 * One compact line per request, written when the response is done: method, path (a console
 * page's by its route), status, ms, request id, and the app id once a key was accepted. Never
 * headers, bodies or query strings, so no key, token or alias can reach it. Health probes are
 * logged at debug only. `onAnswered` (the metrics) hears of each request answered in full, from
 * the same hook.
 */
export function accessLog(logger: Logger, onAnswered?: (req: Request, res: Response, seconds: number) => void): RequestHandler {
  // One listener shared by every request (`this` is the response): no closure per request.
  function logResponse(this: Response): void {
    const req = this.req as Request;
    const locals = this.locals as unknown as AccessLogLocals;
    const path = loggedPath(req.originalUrl, req.route as { path?: unknown } | undefined);
    const ms = performance.now() - locals.startedAt;
    // Metrics count what was answered in full, so the same close hook serves both.
    if (this.writableFinished) onAnswered?.(req, this, ms / 1000);
    const line = {
      method: req.method,
      path,
      // No status when nothing was answered (the connection went first).
      status: this.headersSent ? this.statusCode : undefined,
      ms: Math.round(ms * 10) / 10,
      requestId: locals.requestId,
      appId: locals.auth?.appId,
      // The client went away before the answer was complete.
      aborted: this.writableFinished ? undefined : true,
      trace_id: locals.traceId,
      span_id: locals.spanId,
    };
    if (path.includes('/health/')) logger.debug(line, 'request');
    else logger.info(line, 'request');
  }
  return (req, res, next) => {
    const locals = res.locals as unknown as AccessLogLocals;
    locals.startedAt = performance.now();
    locals.requestId = requestIdFor(req);
    res.setHeader('X-Request-Id', locals.requestId);
    const span = activeSpanContext();
    if (span) {
      locals.traceId = span.traceId;
      locals.spanId = span.spanId;
    }
    // 'close' comes once per response: `on` spares the wrapper `once` allocates.
    res.on('close', logResponse);
    next();
  };
}
