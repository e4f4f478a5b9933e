/** Bytes waiting for a slow reader before further lines are dropped. */
const MAX_BUFFERED_LOG_BYTES = 1024 * 1024;

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
  /** Lines dropped and not yet reported. */
  readonly dropped: number;
  /** At exit: hands what is batched to the stream and reports drops, without waiting for either. */
  flushAtExit(): void;
}

function dropReport(dropped: number): string {
  return `${JSON.stringify({ level: 40, time: Date.now(), dropped, msg: 'log lines dropped: the log reader was not keeping up' })}\n`;
}

/**
 * Writes log lines to `stream` asynchronously, batched: the lines of one event-loop turn go out in
 * one write (a write per line was a system call per request, most of the logging cost). A reader
 * that stops reading (a full pipe, a stuck container log driver) must not stop the service: once
 * `maxBufferedBytes` wait, new lines are dropped and counted, and the count is written as one line
 * when the stream drains again. There is no synchronous flush anywhere, so nothing here can hold
 * up a request or the process's exit.
 */
export function boundedLogSink(stream: LogStream, options: { maxBufferedBytes?: number; exitReportTo?: LogStream } = {}): LogSink {
  const maxBufferedBytes = options.maxBufferedBytes ?? MAX_BUFFERED_LOG_BYTES;
  let batch: string[] = [];
  let batchBytes = 0;
  let scheduled = false;
  let dropped = 0;
  let waitingForDrain = false;
  let broken = false;
  // EPIPE when the reader is gone: logging stops; the service carries on.
  stream.on('error', () => {
    broken = true;
  });
  const usable = () => !broken && stream.writable;

  const flush = () => {
    scheduled = false;
    let chunk = batch.join('');
    batch = [];
    batchBytes = 0;
    // Drops that happened while the stream itself had room (the batch was full) are reported now.
    if (dropped > 0 && !waitingForDrain) {
      chunk += dropReport(dropped);
      dropped = 0;
    }
    if (chunk.length > 0 && usable()) stream.write(chunk);
  };
  const onDrain = () => {
    waitingForDrain = false;
    if (dropped > 0 && !scheduled) {
      scheduled = true;
      setImmediate(flush);
    }
  };

  return {
    write(line) {
      if (!usable()) {
        dropped += 1;
        return;
      }
      if (stream.writableLength + batchBytes + line.length > maxBufferedBytes) {
        dropped += 1;
        if (!waitingForDrain && stream.writableLength > 0) {
          waitingForDrain = true;
          stream.once('drain', onDrain);
        }
        return;
      }
      batch.push(line);
      batchBytes += line.length;
      if (!scheduled) {
        scheduled = true;
        setImmediate(flush);
      }
    },
    get dropped() {
      return dropped;
    },
    flushAtExit() {
      if (batch.length > 0 && usable()) stream.write(batch.join(''));
      batch = [];
      batchBytes = 0;
      if (dropped === 0) return;
      // A stream that is still behind would never deliver the count: then the other one (stderr) gets it.
      const target = usable() && stream.writableLength === 0 ? stream : options.exitReportTo;
      if (target?.writable) target.write(dropReport(dropped));
      dropped = 0;
    },
  };
}
