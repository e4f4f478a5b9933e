import { createServer, connect, type Server, type Socket } from 'node:net';
import { boundedLogSink } from './logSink';

// A real stream whose reader can stop and resume: a loopback TCP connection, read by this process.
let server: Server;
let writer: Socket;
let reader: Socket;
let received = '';

beforeEach(async () => {
  received = '';
  server = createServer();
  const accepted = new Promise<Socket>((resolve) => server.once('connection', resolve));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  writer = connect(port, '127.0.0.1');
  await new Promise((resolve) => writer.once('connect', resolve));
  reader = await accepted;
  reader.setEncoding('utf8');
  reader.on('data', (chunk: string) => (received += chunk));
  reader.pause(); // nobody reads
});

afterEach(async () => {
  writer.destroy();
  reader.destroy();
  await new Promise((resolve) => server.close(resolve));
});

const LINE = `${JSON.stringify({ level: 30, msg: 'request', path: `/${'x'.repeat(400)}` })}\n`;

const turn = () => new Promise((resolve) => setImmediate(resolve));

/** Writes lines, a hundred per event-loop turn, until the sink starts dropping; bounded by `max` lines. */
async function fillUntilDropping(sink: ReturnType<typeof boundedLogSink>, max = 100_000): Promise<number> {
  let written = 0;
  while (sink.dropped === 0 && written < max) {
    for (let i = 0; i < 100 && sink.dropped === 0; i += 1) {
      sink.write(LINE);
      written += 1;
    }
    await turn();
  }
  return written;
}

describe('boundedLogSink', () => {
  it('never queues more than its bound for a reader that stopped, counts the dropped lines, and reports them once the reader catches up', async () => {
    const bound = 64 * 1024;
    const sink = boundedLogSink(writer, { maxBufferedBytes: bound });
    const written = await fillUntilDropping(sink);
    expect(sink.dropped).toBe(1);
    // The stream itself is behind (not just this turn's batch), so the count waits for its drain.
    expect(writer.writableLength).toBeGreaterThan(0);
    for (let i = 0; i < 99; i += 1) sink.write(LINE);
    expect(sink.dropped).toBe(100);
    await turn();
    expect(writer.writableLength).toBeLessThanOrEqual(bound);
    expect(sink.dropped).toBe(100);

    const reported = new Promise<string>((resolve) => {
      reader.on('data', () => {
        const line = received.split('\n').find((l) => l.includes('log lines dropped'));
        if (line) resolve(line);
      });
    });
    reader.resume();
    const report = JSON.parse(await reported) as { level: number; dropped: number; msg: string };
    expect(report).toMatchObject({ level: 40, dropped: 100 });
    expect(sink.dropped).toBe(0);
    // Every line that was not dropped arrived whole and in order before the report.
    const lines = received.split('\n');
    const reportAt = lines.findIndex((l) => l.includes('log lines dropped'));
    expect(reportAt).toBe(written - 1);
    expect(lines.slice(0, reportAt).every((l) => `${l}\n` === LINE)).toBe(true);
  });

  it('at exit, reports drops to the other stream while the reader is still behind', async () => {
    const stderrLike: string[] = [];
    const other = { write: (chunk: string) => stderrLike.push(chunk) > 0, writableLength: 0, writable: true, once: () => other, on: () => other };
    const sink = boundedLogSink(writer, { maxBufferedBytes: 32 * 1024, exitReportTo: other });
    await fillUntilDropping(sink);
    sink.write(LINE);
    sink.flushAtExit();
    expect(stderrLike).toHaveLength(1);
    expect(JSON.parse(stderrLike[0])).toMatchObject({ dropped: 2, msg: expect.stringContaining('dropped') });
  });

  it('writes the lines of one event-loop turn in one write, in order', async () => {
    const sink = boundedLogSink(writer);
    const writes: string[] = [];
    const write = writer.write.bind(writer);
    writer.write = ((chunk: string) => (writes.push(chunk), write(chunk))) as typeof writer.write;
    for (let i = 0; i < 50; i += 1) sink.write(`{"n":${i}}\n`);
    await turn();
    expect(writes).toEqual([Array.from({ length: 50 }, (_, i) => `{"n":${i}}\n`).join('')]);
  });

  it('stops writing, without throwing, once the reader is gone', async () => {
    const sink = boundedLogSink(writer);
    const failed = new Promise((resolve) => writer.once('error', resolve));
    reader.resetAndDestroy();
    // Writes continue until the broken connection is noticed; none of them throws.
    for (let i = 0; i < 10_000 && !writer.destroyed; i += 1) {
      sink.write(LINE);
      if (i % 100 === 99) await new Promise((resolve) => setImmediate(resolve));
    }
    await failed;
    const before = sink.dropped;
    sink.write(LINE);
    expect(sink.dropped).toBe(before + 1);
  });
});
