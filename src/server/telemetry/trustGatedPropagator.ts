import type { Context, TextMapGetter, TextMapPropagator, TextMapSetter } from '@opentelemetry/api';

/**
 * A propagator that reads an incoming trace context (`traceparent`, `tracestate`, `baggage`) only
 * from carriers `mayContinue` accepts, and otherwise leaves the context as it is: the HTTP
 * instrumentation then starts the request's span as the root of a trace of the service's own,
 * sampled by the service's sampler (a browser's flags `00` cannot keep it out). What it injects
 * into the service's own outgoing calls is unchanged.
 */
export function trustGatedPropagator(inner: TextMapPropagator, mayContinue: (carrier: unknown) => boolean): TextMapPropagator {
  return {
    inject(context: Context, carrier: unknown, setter: TextMapSetter) {
      inner.inject(context, carrier, setter);
    },
    extract(context: Context, carrier: unknown, getter: TextMapGetter) {
      return mayContinue(carrier) ? inner.extract(context, carrier, getter) : context;
    },
    fields() {
      return inner.fields();
    },
  };
}
