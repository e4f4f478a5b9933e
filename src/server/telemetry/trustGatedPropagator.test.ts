import { ROOT_CONTEXT, defaultTextMapGetter, trace } from '@opentelemetry/api';
import { core } from '@opentelemetry/sdk-node';
import { trustGatedPropagator } from './trustGatedPropagator';

describe('trustGatedPropagator', () => {
  const w3c = new core.W3CTraceContextPropagator();
  const headers = (flags: string) => ({ traceparent: `00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-${flags}` });

  it('continues the trace context of a carrier it trusts, flags included', () => {
    const trusted = headers('00');
    const gate = trustGatedPropagator(w3c, (carrier) => carrier === trusted);
    expect(trace.getSpanContext(gate.extract(ROOT_CONTEXT, trusted, defaultTextMapGetter))).toMatchObject({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', traceFlags: 0, isRemote: true });
  });

  it('reads nothing from any other carrier, so the request starts a trace of its own', () => {
    const gate = trustGatedPropagator(w3c, () => false);
    const extracted = gate.extract(ROOT_CONTEXT, headers('00'), defaultTextMapGetter);
    expect(extracted).toBe(ROOT_CONTEXT);
    expect(trace.getSpanContext(extracted)).toBeUndefined();
  });

  it('injects and names its fields as the propagator it wraps', () => {
    const gate = trustGatedPropagator(w3c, () => false);
    expect(gate.fields()).toEqual(w3c.fields());
    const carrier: Record<string, string> = {};
    const spanContext = { traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId: '00f067aa0ba902b7', traceFlags: 1 };
    gate.inject(trace.setSpanContext(ROOT_CONTEXT, spanContext), carrier, { set: (c, k, v) => ((c as Record<string, string>)[k] = v) });
    expect(carrier).toEqual({ traceparent: '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01' });
  });
});
