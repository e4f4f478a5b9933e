/**
 * Where the OTLP trace exporter sends spans, as OpenTelemetry's variables say, for the log line
 * that reports failed exports: scheme, host, port and path only (a URL's user, password and query
 * may hold a credential, and the headers of OTEL_EXPORTER_OTLP_HEADERS are never read here).
 */
export function collectorAddress(env: NodeJS.ProcessEnv): string {
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL?.trim() || env.OTEL_EXPORTER_OTLP_PROTOCOL?.trim() || 'http/protobuf').toLowerCase();
  const grpc = protocol === 'grpc';
  const signal = env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim();
  const base = env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim();
  const endpoint = signal || (base ? (grpc ? base : `${base.replace(/\/+$/, '')}/v1/traces`) : grpc ? 'http://localhost:4317' : 'http://localhost:4318/v1/traces');
  try {
    const url = new URL(endpoint);
    return `${url.protocol}//${url.host}${grpc && url.pathname === '/' ? '' : url.pathname}`;
  } catch {
    return 'an endpoint that is not a URL';
  }
}
