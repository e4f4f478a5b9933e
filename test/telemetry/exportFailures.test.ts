/**
 * A dead trace collector is not silent: a real service process exports to a collector that drops
 * every connection (a TCP listener of the test's own, counting them); the service's log says so at
 * warn, in its own JSON format, with the collector's address and never its credentials, once
 * however many exports fail within the minute. (The minute itself is the clock-driven unit test's,
 * src/server/core/telemetry/exportFailureLog.test.ts.)
 */
import { createServer, type Server, type Socket } from 'node:net';
import { eventually } from '../support/eventually';
import { ensureBuilt, startServiceProcess, type ServiceProcess } from '../support/serviceProcess';

jest.setTimeout(60_000);

const COLLECTOR_CREDENTIAL = 'collector-credential-5f1c9a';

let collector: Server;
let connections = 0;
const sockets = new Set<Socket>();
let service: ServiceProcess | undefined;

// A build (when a source is newer than dist/) can take a minute on a loaded machine: not the service's start.
beforeAll(() => ensureBuilt(), 180_000);

beforeAll(async () => {
  collector = createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    // Read nothing, answer nothing: the exporter's request fails (ECONNRESET).
    socket.resetAndDestroy();
  });
  await new Promise<void>((resolve) => collector.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  await service?.stop();
  for (const socket of sockets) socket.destroy();
  await new Promise((resolve) => collector.close(resolve));
});

const warnLines = (output: string) =>
  output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line.level === 40 && typeof line.msg === 'string' && line.msg.startsWith('spans could not be exported'));

describe('a trace collector that is down', () => {
  it('is said once at warn, with its address and no credential, however many exports fail within the minute', async () => {
    const port = (collector.address() as { port: number }).port;
    service = await startServiceProcess({
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${port}`,
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_HEADERS: `Authorization=Bearer ${COLLECTOR_CREDENTIAL}`,
      // Below the exporter's first retry (about a second): each export is one attempt, failed at once.
      OTEL_EXPORTER_OTLP_TIMEOUT: '300',
      OTEL_BSP_SCHEDULE_DELAY: '20',
      LOG_LEVEL: 'info',
    });
    const svc = service;

    // The first failed export is logged.
    await svc.http.get('/no-such-route');
    const [first] = await eventually('the first warn line', () => {
      const lines = warnLines(svc.output());
      return lines.length > 0 ? lines : undefined;
    });
    expect(first).toEqual({
      level: 40,
      time: expect.any(Number),
      collector: `http://127.0.0.1:${port}/v1/traces`,
      error: 'ECONNRESET',
      failedExports: expect.any(Number),
      msg: expect.stringContaining('dropped'),
    });

    // Four more exports fail after it, one request's spans at a time.
    const before = connections;
    for (let i = 1; i <= 4; i++) {
      await svc.http.get('/no-such-route');
      await eventually(`export attempt ${i} after the first line`, () => (connections >= before + i ? true : undefined));
    }
    // Stopping flushes the exporter: every failure so far has been heard by then.
    await svc.stop();
    service = undefined;

    expect(connections).toBeGreaterThanOrEqual(before + 4);
    expect(warnLines(svc.output())).toHaveLength(1);
    expect(svc.output()).not.toContain(COLLECTOR_CREDENTIAL);
  });
});
