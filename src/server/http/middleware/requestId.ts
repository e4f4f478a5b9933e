import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { Response } from 'express';

const SANE_ID = /^[A-Za-z0-9._:-]{1,64}$/;

/** The caller's `X-Request-Id` when it is a sane token, else a fresh UUID. */
export function requestIdFor(req: IncomingMessage): string {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && SANE_ID.test(given) ? given : randomUUID();
}

/** The id `accessLog` gave this request: echoed back, logged, and the traceId of its problems. */
export function requestIdOf(res: Response): string {
  return String(res.locals.requestId ?? '');
}

/** The `traceId` of this request's problems: its OpenTelemetry trace id when tracing is on, else its request id. */
export function problemTraceIdOf(res: Response): string {
  return typeof res.locals.traceId === 'string' ? res.locals.traceId : requestIdOf(res);
}
