import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One span as OTLP/JSON carries it, with its resource's service name and its attributes flattened. */
export interface ReceivedSpan {
  service: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string }[];
}

/**
 * A real OTLP/HTTP receiver of our own on 127.0.0.1 (a port of the OS's choosing): decodes the
 * OTLP/JSON export requests (`OTEL_EXPORTER_OTLP_PROTOCOL=http/json`) that arrive at `/v1/traces`,
 * keeps every body as it came (to search it for secrets) and the spans in it, and answers 200.
 * `spansWhere` waits, up to a deadline, until the spans it was sent satisfy a condition.
 */
export interface OtlpReceiver {
  url: string;
  spans: ReceivedSpan[];
  /** Every request body, raw, whatever its path. */
  bodies: string[];
  /** Resolves with the spans once `enough(spans)` holds; rejects at the deadline, saying what did arrive. */
  spansWhere(enough: (spans: ReceivedSpan[]) => boolean, deadlineMs?: number): Promise<ReceivedSpan[]>;
  close(): Promise<void>;
}

type OtlpValue = { stringValue?: string; intValue?: string | number; boolValue?: boolean; doubleValue?: number; arrayValue?: { values?: OtlpValue[] } };
type OtlpAttribute = { key: string; value: OtlpValue };

const valueOf = (value: OtlpValue | undefined): unknown => {
  if (!value) return undefined;
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(valueOf);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
};
const attributesOf = (list: OtlpAttribute[] | undefined) => Object.fromEntries((list ?? []).map((a) => [a.key, valueOf(a.value)]));

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const bodies: string[] = [];
  const waiters = new Set<() => void>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      bodies.push(body);
      if (req.url === '/v1/traces') {
        const message = JSON.parse(body) as {
          resourceSpans?: { resource?: { attributes?: OtlpAttribute[] }; scopeSpans?: { spans?: Record<string, unknown>[] }[] }[];
        };
        for (const resourceSpans of message.resourceSpans ?? []) {
          const service = String(attributesOf(resourceSpans.resource?.attributes)['service.name'] ?? '');
          for (const scope of resourceSpans.scopeSpans ?? []) {
            for (const span of scope.spans ?? []) {
              spans.push({
                service,
                traceId: String(span.traceId),
                spanId: String(span.spanId),
                parentSpanId: String(span.parentSpanId ?? ''),
                name: String(span.name),
                kind: Number(span.kind ?? 0),
                attributes: attributesOf(span.attributes as OtlpAttribute[] | undefined),
                links: ((span.links as { traceId: string; spanId: string }[] | undefined) ?? []).map((l) => ({ traceId: l.traceId, spanId: l.spanId })),
              });
            }
          }
        }
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      for (const wake of [...waiters]) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans,
    bodies,
    spansWhere(enough, deadlineMs = 20_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!enough(spans)) return;
          waiters.delete(check);
          clearTimeout(timer);
          resolve(spans);
        };
        const timer = setTimeout(() => {
          waiters.delete(check);
          reject(new Error(`the expected spans did not arrive within ${deadlineMs} ms; got:\n${spans.map((s) => `${s.service} ${s.name}`).join('\n')}`));
        }, deadlineMs);
        waiters.add(check);
        check();
      });
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** What a service process needs to trace to `receiver`, exporting soon after each span ends. */
export const tracingEnv = (receiver: Pick<OtlpReceiver, 'url'>): Record<string, string> => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
  OTEL_SERVICE_NAME: 'passwordless-test',
  OTEL_BSP_SCHEDULE_DELAY: '20',
});

/** The chain of a span's ancestors among `spans`, nearest first. */
export function ancestorsOf(span: ReceivedSpan, spans: ReceivedSpan[]): ReceivedSpan[] {
  const chain: ReceivedSpan[] = [];
  for (let parent = spans.find((s) => s.spanId === span.parentSpanId); parent; parent = spans.find((s) => s.spanId === parent!.parentSpanId)) chain.push(parent);
  return chain;
}
