// The bench's OpenTelemetry collector stand-in (`--otel`): a node:http server on loopback, in the
// bench's own process, that takes each OTLP/HTTP export (protobuf, the exporter's default) and
// answers 200 without decoding it, counting requests and bytes. The service then pays for
// recording, batching, encoding and sending every span, as it would to a real collector.
import { createServer } from 'node:http';

export function startOtlpReceiver() {
  let requests = 0;
  let bytes = 0;
  const server = createServer((req, res) => {
    req.on('data', (chunk) => (bytes += chunk.length));
    req.on('end', () => {
      requests++;
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end();
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const url = `http://127.0.0.1:${server.address().port}`;
      resolve({
        url,
        /** The service's variables: tracing on, every trace sampled, exported here. */
        env: { OTEL_EXPORTER_OTLP_ENDPOINT: url, OTEL_TRACES_SAMPLER: 'always_on', OTEL_SERVICE_NAME: 'passwordless-bench' },
        stats: () => ({ requests, bytes }),
        close: () => new Promise((done) => server.close(done)),
      });
    });
  });
}
