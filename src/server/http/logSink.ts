/** Bytes waiting for a slow reader before further lines are dropped. */
export const MAX_BUFFERED_LOG_BYTES = 1024 * 1024;

/** What the sink needs of process.stdout (a libuv stream: asynchronous for pipes on POSIX). */
export interface LogStream {
  write(chunk: string): boolean;
  readonly writableLength: number;
  readonly writable: boolean;
  once(event: 'drain', listener: () => void): unknown;
  on(event: 'error', listener: (error: Error) => void): unknown;
}

/** A pino destination that never blocks and never grows without bound. */
export interface LogSink {
  write(line: string): void;
  /** Lines dropped since the last report. */
  readonly dropped: number;
  /** Reports the drop count (best effort, never blocking); called at exit. */
  reportDrops(): void;
}

function dropReport(dropped: number): string {
  return `${JSON.stringify({ level: 40, time: Date.now(), dropped, msg: 'log lines dropped: the log reader was not keeping up' })}\n`;
}

/**
 * Writes log lines to `stream` asynchronously. A reader that stops reading (a full pipe, a stuck
 * container log driver) must not stop the service: once `maxBufferedBytes` wait, new lines are
 * dropped and counted, and the count is written as one line when the stream drains again. There is
 * no synchronous flush anywhere, so nothing here can hold up a request or the process's exit.
 */
export function boundedLogSink(stream: LogStream, options: { maxBufferedBytes?: number; exitReportTo?: LogStream } = {}): LogSink {
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_LOG_BYTES;
  let dropped = 0;
  let waitingForDrain = false;
  let broken = false;
  // EPIPE when the reader is gone: logging stops; the service carries on.
  stream.on('error', () => {
    broken = true;
  });
  const onDrain = () => {
    waitingForDrain = false;
    if (dropped > 0 && !broken) {
      const count = dropped;
      dropped = 0;
      stream.write(dropReport(count));
    }
  };
  return {
    write(line) {
      if (broken || !stream.writable) {
        dropped += 1;
        return;
      }
      if (stream.writableLength + line.length > maxBufferedBytes) {
        dropped += 1;
        if (!waitingForDrain) {
          waitingForDrain = true;
          stream.once('drain', onDrain);
        }
        return;
      }
      stream.write(line);
    },
    get dropped() {
      return dropped;
    },
    reportDrops() {
      if (dropped === 0) return;
      // A stream that is still behind would never deliver it: then the other one (stderr) gets it.
      const target = broken || !stream.writable || stream.writableLength > 0 ? options.exitReportTo : stream;
      if (!target?.writable) return;
      target.write(dropReport(dropped));
      dropped = 0;
    },
  };
}
