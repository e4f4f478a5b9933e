import type { TextMapPropagator } from '@opentelemetry/api';
import type { NodeSDK } from '@opentelemetry/sdk-node';
import { ExportFailureLog, setExportFailureLog } from '../core/telemetry/exportFailureLog';
import { mayContinueTrace } from '../core/telemetry/incomingTraceTrust';
import { setTracingOn } from '../core/telemetry/tracing';
import { collectorAddress } from './collectorAddress';
import { serverSpanRoute, type RoutedRequest } from './serverSpanRoute';
import { spanLimitsFrom } from './spanLimits';
import { trustGatedPropagator } from './trustGatedPropagator';
import { tracingWanted } from './tracingWanted';
import { withoutQueries } from './withoutQueries';

let sdk: NodeSDK | undefined;

/** What an instrumentation hook's span holds so far (the SDK's span; the API's type hides it). */
const attributesOf = (span: unknown) => (span as { attributes?: Record<string, unknown> }).attributes;

/**
 * The propagators OTEL_PROPAGATORS names, of those the service supports: W3C `tracecontext` and
 * `baggage` (both by default, as OpenTelemetry's), or `none`. Whatever they read from a request
 * is then gated by TRUST_INCOMING_TRACE (trustGatedPropagator).
 */
function propagatorFrom(env: NodeJS.ProcessEnv, core: typeof import('@opentelemetry/sdk-node').core, warn: (message: string) => void): TextMapPropagator {
  const names = (env.OTEL_PROPAGATORS ?? '')
    .split(',')
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== '');
  const wanted = names.length === 0 ? ['tracecontext', 'baggage'] : names;
  const propagators: TextMapPropagator[] = [];
  for (const name of new Set(wanted)) {
    if (name === 'tracecontext') propagators.push(new core.W3CTraceContextPropagator());
    else if (name === 'baggage') propagators.push(new core.W3CBaggagePropagator());
    else if (name !== 'none') warn(`OTEL_PROPAGATORS: '${name}' is not supported by this service (tracecontext, baggage or none); it is ignored.`);
  }
  return new core.CompositePropagator({ propagators: wanted.includes('none') ? [] : propagators });
}

/**
 * Starts OpenTelemetry's Node SDK when the standard variables ask for traces (`tracingWanted`),
 * with the http, express, undici and pg instrumentations: before anything loads the modules they
 * patch, so the CLI calls it first. The SDK and the instrumentations are optional peer
 * dependencies, loaded here only; without the variables nothing is loaded. Answers whether
 * tracing is on. Metrics and logs stay with Prometheus and stdout unless OTEL_METRICS_EXPORTER /
 * OTEL_LOGS_EXPORTER say otherwise.
 */
export function startTracing(env: NodeJS.ProcessEnv = process.env, warn: (message: string) => void = (message) => process.stderr.write(`${message}\n`)): boolean {
  if (sdk || !tracingWanted(env)) return Boolean(sdk);
  let loaded: {
    sdkNode: typeof import('@opentelemetry/sdk-node');
    http: typeof import('@opentelemetry/instrumentation-http');
    express: typeof import('@opentelemetry/instrumentation-express');
    undici: typeof import('@opentelemetry/instrumentation-undici');
    pg: typeof import('@opentelemetry/instrumentation-pg');
  };
  try {
    /* eslint-disable @typescript-eslint/no-require-imports */
    loaded = {
      sdkNode: require('@opentelemetry/sdk-node'),
      http: require('@opentelemetry/instrumentation-http'),
      express: require('@opentelemetry/instrumentation-express'),
      undici: require('@opentelemetry/instrumentation-undici'),
      pg: require('@opentelemetry/instrumentation-pg'),
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
  } catch {
    warn(
      'OpenTelemetry variables are set but its packages are not installed; tracing stays off. Add them with: npm install @opentelemetry/sdk-node @opentelemetry/exporter-trace-otlp-http @opentelemetry/instrumentation-http @opentelemetry/instrumentation-express @opentelemetry/instrumentation-undici @opentelemetry/instrumentation-pg',
    );
    return false;
  }
  env.OTEL_METRICS_EXPORTER ??= 'none';
  env.OTEL_LOGS_EXPORTER ??= 'none';
  const { core } = loaded.sdkNode;
  const stripQueries = (span: { setAttributes(attributes: Record<string, string>): unknown }) => span.setAttributes(withoutQueries(attributesOf(span)));
  sdk = new loaded.sdkNode.NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'passwordless-selfhost' }),
    // A request's trace context is read only when TRUST_INCOMING_TRACE trusts its sender (server.ts decides before the span starts).
    textMapPropagator: trustGatedPropagator(propagatorFrom(env, core, warn), mayContinueTrace),
    spanLimits: spanLimitsFrom(env),
    instrumentations: [
      new loaded.http.HttpInstrumentation({
        requestHook: stripQueries,
        // Once answered: `METHOD /route` from the matched declaration, and a console path's ids left out.
        applyCustomAttributesOnSpan(span, request) {
          const named = serverSpanRoute(request as RoutedRequest, attributesOf(span));
          span.setAttributes(named.attributes);
          if (named.name) span.updateName(named.name);
        },
      }),
      // Route handlers only: a span per middleware layer, or per router a request passes (22 for
      // an unknown path), would cost more than it tells.
      new loaded.express.ExpressInstrumentation({ ignoreLayersType: [loaded.express.ExpressLayerType.MIDDLEWARE, loaded.express.ExpressLayerType.ROUTER] }),
      new loaded.undici.UndiciInstrumentation({ requestHook: stripQueries }),
      new loaded.pg.PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  // A failed export (a collector down, refusing, too slow) reaches OpenTelemetry's global error
  // handler, which would say nothing: the service's log says it, once a minute at most.
  const failures = new ExportFailureLog({ collector: collectorAddress(env) });
  setExportFailureLog(failures);
  core.setGlobalErrorHandler((error) => failures.note(error));
  sdk.start();
  setTracingOn(true);
  return true;
}

/** Exports what is buffered and stops the SDK (a stopping service calls it last); nothing without it. */
export async function stopTracing(): Promise<void> {
  const started = sdk;
  sdk = undefined;
  setTracingOn(false);
  setExportFailureLog(undefined);
  await started?.shutdown().catch(() => undefined);
}
