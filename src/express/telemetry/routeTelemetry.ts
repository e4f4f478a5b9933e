import { SpanStatusCode, context, trace } from '@opentelemetry/api';
import type { Request, RequestHandler, Response } from 'express';
import { sessionValuesOf } from '../sessionValues';
import { hostMetrics } from './hostMetrics';

const tracer = trace.getTracer('passwordless-selfhost/express');

/** Where `sendProblem` notes the errorCode of the problem it answered, for the refusal metric and the span. */
export const ERROR_CODE_LOCAL = 'passwordlessErrorCode';

/** The routes whose success ends a sign-in of some way (the session notes which: sign-in, sign-up, recovery). */
const SIGN_IN_ROUTES = new Set(['login', 'verifyEmail', 'confirmRecovery']);

/**
 * The middleware's own observation of its routes, first in its router: a span `passwordless
 * <route>` (e.g. `passwordless login`) around each, which the service calls made while answering
 * are children of (a no-op without an OpenTelemetry SDK in the host); and, with prom-client, the
 * sign-ins, sign-ups, recoveries and step-ups that succeeded, the refusals by errorCode and the
 * throttled requests, counted when the answer is finished. `paths` names each route (null: not
 * mounted). Nothing of the request goes on the span but its route, method, status and errorCode.
 */
export function routeTelemetry(paths: Record<string, string | null | undefined>): RequestHandler {
  const routes = new Map<string, string>();
  for (const [name, path] of Object.entries(paths)) if (typeof path === 'string' && !routes.has(path)) routes.set(path, name);

  return (req, res, next) => {
    const route = routes.get(req.path);
    if (route === undefined) {
      next();
      return;
    }
    const span = tracer.startSpan(`passwordless ${route}`);
    if (span.isRecording()) span.setAttributes({ 'http.request.method': req.method, 'passwordless.route': route });
    const signInBefore = sessionValuesOf(req)?.passwordlessSignIn;
    res.once('finish', () => {
      const errorCode = res.locals[ERROR_CODE_LOCAL] as string | undefined;
      count(route, req, res, errorCode, signInBefore);
      if (span.isRecording()) {
        span.setAttribute('http.response.status_code', res.statusCode);
        if (errorCode) span.setAttribute('passwordless.error_code', errorCode);
        if (res.statusCode >= 500) span.setStatus({ code: SpanStatusCode.ERROR, message: errorCode ?? String(res.statusCode) });
      }
      span.end();
    });
    // The rest of the chain, body parsing included, runs in the span's context.
    const active = trace.setSpan(context.active(), span);
    context.bind(active, req);
    context.bind(active, res);
    context.with(active, next);
  };
}

function count(route: string, req: Request, res: Response, errorCode: string | undefined, signInBefore: unknown): void {
  const metrics = hostMetrics();
  if (!metrics) return;
  const status = res.statusCode;
  if (status === 429) {
    metrics.throttled.inc({ route });
    return;
  }
  if (status >= 400 && status < 500) {
    metrics.refusals.inc({ route, reason: errorCode ?? String(status) });
    return;
  }
  if (status >= 300) return;
  if (route === 'stepUp') {
    metrics.stepUps.inc();
    return;
  }
  if (!SIGN_IN_ROUTES.has(route)) return;
  // A new record means this request opened the session (`req.logIn` regenerates it, recordSignIn writes it).
  const record = sessionValuesOf(req)?.passwordlessSignIn;
  if (!record || record === signInBefore) return;
  if (record.via === 'sign-up') metrics.signUps.inc();
  else if (record.via === 'recovery') metrics.recoveries.inc();
  else metrics.signIns.inc();
}
