import { parseTraceparent } from './traceparent';
import { ROOT_CONTEXT, SpanStatusCode, context, trace, type Attributes, type Link, type Span, type SpanContext } from '@opentelemetry/api';

/**
 * The service's spans, through @opentelemetry/api only. The SDK is loaded by the CLI when the
 * OTEL_* variables ask for it (src/server/telemetry/startTracing.ts), which then turns this on.
 * Off (the default), `inSpan` only calls its function: no span, no context, no attribute object.
 */
let on = false;

/** Called once the SDK is registered (or, in tests, once a provider is). */
export function setTracingOn(value: boolean): void {
  on = value;
}

export function tracingOn(): boolean {
  return on;
}

const tracer = trace.getTracer('passwordless-selfhost');

export interface SpanOptions {
  /** Built only when tracing is on. Names, kinds and counts only: never a key, token, alias, address or challenge. */
  attributes?: () => Attributes;
  /** Spans this one follows from without being their child (a webhook delivery and the change that queued it). */
  links?: () => Link[];
  /** Only as the child of an active span: a background job's polling (the webhook worker's claims) makes no root spans of its own. */
  requireParent?: boolean;
}

/**
 * Runs `work` inside a span named `name`, a child of the active one, and ends the span when the
 * promise settles. A rejection marks it as an error with the error's code or name only (a
 * message may quote a value).
 */
export function inSpan<T>(name: string, work: () => Promise<T>, options?: SpanOptions): Promise<T> {
  if (!on || (options?.requireParent && !trace.getActiveSpan())) return work();
  const attributes = options?.attributes?.();
  return tracer.startActiveSpan(name, { attributes, links: options?.links?.() }, (span) =>
    work().then(
      (value) => {
        span.end();
        return value;
      },
      (error: unknown) => {
        markFailed(span, error);
        span.end();
        throw error;
      },
    ),
  );
}

/** Marks a span as failed with what kind of error it was, never its message. */
export function markFailed(span: Span, error: unknown): void {
  const { code, name } = (error ?? {}) as { code?: unknown; name?: unknown };
  const kind = typeof code === 'string' ? code : typeof name === 'string' ? name : 'Error';
  span.setAttribute('error.type', kind);
  span.setStatus({ code: SpanStatusCode.ERROR, message: kind });
}

/** Adds attributes to the active span, when tracing is on (the function is called only then). */
export function annotateSpan(attributes: () => Attributes): void {
  if (!on) return;
  trace.getActiveSpan()?.setAttributes(attributes());
}

/** The active span's context, when tracing is on and there is a valid one. */
export function activeSpanContext(): SpanContext | undefined {
  if (!on) return undefined;
  const spanContext = trace.getSpanContext(context.active());
  return spanContext && trace.isSpanContextValid(spanContext) ? spanContext : undefined;
}

/** `trace_id` and `span_id` of the active span, for a log line; empty without one. */
export function logTraceFields(): { trace_id?: string; span_id?: string } {
  const spanContext = activeSpanContext();
  return spanContext ? { trace_id: spanContext.traceId, span_id: spanContext.spanId } : {};
}

/** A link to the span a stored `traceparent` names; none for anything else. */
export function linksTo(traceparent: string | undefined): Link[] {
  const spanContext = parseTraceparent(traceparent);
  return spanContext ? [{ context: spanContext }] : [];
}

/**
 * Runs `work` outside any trace: background work a request only wakes (the webhook worker's
 * claims and sends) is not part of that request's trace; a delivery links to it instead.
 */
export function detachedFromTrace<T>(work: () => T): T {
  return on ? context.with(ROOT_CONTEXT, work) : work();
}
