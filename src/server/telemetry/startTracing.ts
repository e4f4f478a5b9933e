import type { NodeSDK } from '@opentelemetry/sdk-node';
import { setTracingOn } from '../core/telemetry/tracing';
import { tracingWanted } from './tracingWanted';
import { withoutQueries } from './withoutQueries';

let sdk: NodeSDK | undefined;

/** What an instrumentation hook's span holds so far (the SDK's span; the API's type hides it). */
const attributesOf = (span: unknown) => (span as { attributes?: Record<string, unknown> }).attributes;

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
  const stripQueries = (span: { setAttributes(attributes: Record<string, string>): unknown }) => span.setAttributes(withoutQueries(attributesOf(span)));
  sdk = new loaded.sdkNode.NodeSDK({
    ...(env.OTEL_SERVICE_NAME ? {} : { serviceName: 'passwordless-selfhost' }),
    instrumentations: [
      new loaded.http.HttpInstrumentation({ requestHook: stripQueries }),
      // Route handlers only: a span per middleware layer would cost more than it tells.
      new loaded.express.ExpressInstrumentation({ ignoreLayersType: [loaded.express.ExpressLayerType.MIDDLEWARE] }),
      new loaded.undici.UndiciInstrumentation({ requestHook: stripQueries }),
      new loaded.pg.PgInstrumentation({ requireParentSpan: true }),
    ],
  });
  sdk.start();
  setTracingOn(true);
  return true;
}

/** Exports what is buffered and stops the SDK (a stopping service calls it last); nothing without it. */
export async function stopTracing(): Promise<void> {
  const started = sdk;
  sdk = undefined;
  setTracingOn(false);
  await started?.shutdown().catch(() => undefined);
}
