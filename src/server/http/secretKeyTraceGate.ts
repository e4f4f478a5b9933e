import type { IncomingHttpHeaders, IncomingMessage, Server } from 'node:http';
import { trustTraceContextOf } from '../core/telemetry/incomingTraceTrust';

/**
 * Key lookups (keys not in the authenticator's cache) this check may cause per second and process:
 * it runs before the rate limits, so a flood of made-up secrets costs at most these reads (and
 * cache entries); past it a request is not known to hold a secret and starts a trace of its own.
 * A host's key stays cached 5 seconds, so this serves hundreds of hosts.
 */
export const TRACE_TRUST_LOOKUPS_PER_SECOND = 100;

/** The headers a propagator reads (W3C trace context and baggage). */
const TRACE_HEADERS = ['traceparent', 'tracestate', 'baggage'] as const;

/** The `ApiSecret` a request carries along with trace headers: the only requests whose trace context may be continued. */
export function secretBesideTraceHeaders(headers: IncomingHttpHeaders): string | undefined {
  const secret = headers.apisecret;
  if (typeof secret !== 'string' || secret.trim() === '') return undefined;
  return TRACE_HEADERS.some((name) => headers[name] !== undefined) ? secret.trim() : undefined;
}

/**
 * Makes `server` check a request's `ApiSecret` before the request is handed on (to the HTTP
 * instrumentation, which starts its span and extracts its trace context, then to the app): a
 * request holding a valid secret key of an app is marked as one whose trace context may be
 * continued (`trustTraceContextOf`). The check is the route's own, cached key check
 * (`isSecretKey`), which the route then meets in the cache. Only requests with both a secret and
 * trace headers wait for it; a check that fails leaves the request untrusted, never unanswered.
 * Installed only with tracing on and TRUST_INCOMING_TRACE=secret-key: the emit of 'request'
 * is the first place a request exists, and the instrumentation's wrapper of it the next.
 */
export function checkSecretKeyBeforeTracing(server: Server, isSecretKey: (value: string) => Promise<boolean>): void {
  const emit = server.emit;
  server.emit = function emitAfterKeyCheck(this: Server, event: string | symbol, ...args: unknown[]): boolean {
    const req = args[0] as IncomingMessage | undefined;
    const secret = event === 'request' && req ? secretBesideTraceHeaders(req.headers) : undefined;
    if (secret === undefined) return Reflect.apply(emit, this, [event, ...args]) as boolean;
    isSecretKey(secret)
      .catch(() => false)
      .then((valid) => {
        if (valid) trustTraceContextOf(req!.headers);
        Reflect.apply(emit, this, [event, ...args]);
      });
    return true;
  } as Server['emit'];
}
