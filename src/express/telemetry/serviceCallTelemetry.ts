import { channel } from 'node:diagnostics_channel';
import { SpanKind, SpanStatusCode, context, propagation, trace, type Span } from '@opentelemetry/api';
import { hostMetrics } from './hostMetrics';
import { mailKindOf } from './mailKindOf';

const tracer = trace.getTracer('passwordless-selfhost/express');

/** Where undici announces each request: the undici instrumentation listens here, and then propagates the trace itself. */
const undiciRequests = channel('undici:request:create');

/** What became of a call: 'ok', the HTTP status the service refused it with, or 'unreachable'. */
export type CallOutcome = 'ok' | number | 'unreachable';

export interface ServiceCall {
  /** Puts the call's trace context (W3C `traceparent`) on its headers. */
  headers: Record<string, string>;
  end(outcome: CallOutcome): void;
}

/**
 * One call of the middleware to the service's private API: a client span `passwordless <METHOD>
 * <operation>` (a no-op without an OpenTelemetry SDK in the host), its `traceparent` on the
 * request (unless the undici instrumentation is there to add its own: two would void each other),
 * and its time in the service-call histogram. `operation` is the API path (a fixed set), never
 * with its query; no header, body or key goes on the span.
 */
export function startServiceCall(method: string, operation: string, headers: Record<string, string>, body?: unknown): ServiceCall {
  const started = performance.now();
  const span: Span = tracer.startSpan(`passwordless ${method} ${operation}`, { kind: SpanKind.CLIENT });
  if (span.isRecording()) span.setAttributes({ 'http.request.method': method, 'passwordless.operation': operation });
  if (!undiciRequests.hasSubscribers) propagation.inject(trace.setSpan(context.active(), span), headers);
  return {
    headers,
    end(outcome) {
      const metrics = hostMetrics();
      if (metrics) {
        metrics.serviceCalls.observe({ operation, outcome: String(outcome) }, (performance.now() - started) / 1000);
        if (outcome === 'ok' && operation === 'magic-links/send') {
          const template = (body as { urlTemplate?: unknown } | undefined)?.urlTemplate;
          metrics.mailsSent.inc({ kind: mailKindOf(typeof template === 'string' ? template : '') });
        }
      }
      if (span.isRecording()) {
        if (typeof outcome === 'number') span.setAttribute('http.response.status_code', outcome);
        if (outcome !== 'ok') span.setStatus({ code: SpanStatusCode.ERROR, message: String(outcome) });
      }
      span.end();
    },
  };
}
