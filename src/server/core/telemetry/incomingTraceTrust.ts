/**
 * Whose trace context (`traceparent`, `tracestate`, `baggage`) a request may continue, as
 * TRUST_INCOMING_TRACE says:
 * - `secret-key` (the default): only a request that carries a valid secret key of an app (a host
 *   calling the private API, the console's own calls), so that a host's sign-in and the service's
 *   verify stay one trace; a browser, an unauthenticated route, the console's pages and health
 *   checks start traces of their own;
 * - `all`: every request (behind a gateway that already decides what reaches the service);
 * - `none`: no request.
 */
export type IncomingTraceTrust = 'secret-key' | 'all' | 'none';

export const INCOMING_TRACE_TRUST_VALUES: readonly IncomingTraceTrust[] = ['secret-key', 'all', 'none'];

let policy: IncomingTraceTrust = 'secret-key';

/** Request headers objects (the carrier the HTTP instrumentation extracts from) of requests found to hold a secret key. */
const trustedCarriers = new WeakSet<object>();

/** Set once by the service at start-up, from its configuration. */
export function setIncomingTraceTrust(value: IncomingTraceTrust): void {
  policy = value;
}

export function incomingTraceTrust(): IncomingTraceTrust {
  return policy;
}

/** Marks a request's headers as a secret-key holder's: its trace context will be continued. */
export function trustTraceContextOf(headers: object): void {
  trustedCarriers.add(headers);
}

/** Whether the propagator may read a trace context from `carrier` (a request's headers). */
export function mayContinueTrace(carrier: unknown): boolean {
  if (policy === 'all') return true;
  return policy === 'secret-key' && typeof carrier === 'object' && carrier !== null && trustedCarriers.has(carrier);
}
