import { request } from 'node:http';
import { trace, context, propagation } from '@opentelemetry/api';
import { node, resources, tracing, core } from '@opentelemetry/sdk-node';
import { JsonTraceSerializer } from '@opentelemetry/otlp-transformer';

/**
 * An OTLP/HTTP JSON span exporter for jest's process: the OTLP exporter's own serializer, posted
 * with node:http. (@opentelemetry/exporter-trace-otlp-http loads node:http with a dynamic
 * `import()`, which jest refuses without --experimental-vm-modules; the service process, outside
 * jest, uses the real exporter.)
 */
class JsonOtlpExporter implements tracing.SpanExporter {
  constructor(private readonly url: string) {}

  export(spans: tracing.ReadableSpan[], done: (result: core.ExportResult) => void): void {
    const body = Buffer.from(JsonTraceSerializer.serializeRequest(spans) ?? new Uint8Array());
    const req = request(this.url, { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': body.length } }, (res) => {
      res.resume();
      res.on('end', () => done({ code: res.statusCode === 200 ? core.ExportResultCode.SUCCESS : core.ExportResultCode.FAILED }));
    });
    req.on('error', (error) => done({ code: core.ExportResultCode.FAILED, error }));
    req.end(body);
  }

  async shutdown(): Promise<void> {}
}

/**
 * OpenTelemetry in the test process, as a host would set it up: a tracer provider registered
 * globally (context manager, W3C propagator), exporting each span as it ends to `receiverUrl` in
 * OTLP/JSON under the service name `serviceName`. `stop()` flushes it and unregisters it.
 */
export function traceHost(receiverUrl: string, serviceName = 'host'): { stop(): Promise<void> } {
  const provider = new node.NodeTracerProvider({
    resource: resources.resourceFromAttributes({ 'service.name': serviceName }),
    spanProcessors: [new tracing.SimpleSpanProcessor(new JsonOtlpExporter(`${receiverUrl}/v1/traces`))],
  });
  provider.register();
  return {
    async stop() {
      await provider.forceFlush();
      await provider.shutdown();
      trace.disable();
      context.disable();
      propagation.disable();
    },
  };
}
