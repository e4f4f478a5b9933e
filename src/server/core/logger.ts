import pino, { type Logger } from 'pino';
import { boundedLogSink, type LogSink } from './logSink';
import { logTraceFields, tracingOn } from './telemetry/tracing';

const CREDENTIAL_HEADERS = ['apisecret', 'apikey', 'managementkey', 'authorization', 'cookie', '"set-cookie"'];

/**
 * Credential-carrying headers, censored should a logged request, response or error object hold
 * them. No log line is built from headers (the access log has none); this is the second line of
 * defence. Exact paths only: a wildcard path (`*.headers.x`) made pino's redaction cost about
 * 15 µs per line, ten times the line itself.
 */
const REDACTED_PATHS = ['req', 'res', 'err'].flatMap((owner) => CREDENTIAL_HEADERS.map((name) => `${owner}.headers${name.startsWith('"') ? `[${name}]` : `.${name}`}`));

let stdoutSink: LogSink | undefined;

/** The one sink of this process's stdout, shared by every logger so drops are counted once. */
function stdoutLogSink(): LogSink {
  if (!stdoutSink) {
    const sink = boundedLogSink(process.stdout, { exitReportTo: process.stderr });
    // 'exit' handlers run on process.exit too; this one only hands lines over, it never waits.
    process.once('exit', () => sink.flushAtExit());
    stdoutSink = sink;
  }
  return stdoutSink;
}

/** Where a silent logger's (never produced) lines would go: it has no reason to hold on to stdout. */
const DISCARD: Pick<LogSink, 'write'> = { write() {} };

/**
 * JSON lines without pid and hostname (the process manager knows both), through a bounded,
 * non-blocking sink. With tracing on, each line of a traced request carries its `trace_id` and
 * `span_id` (a field the line sets itself wins); off, there is no mixin to call.
 */
export function createLogger(level: string, sink: Pick<LogSink, 'write'> = level === 'silent' ? DISCARD : stdoutLogSink()): Logger {
  return pino({ level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '[redacted]' }, ...(tracingOn() ? { mixin: logTraceFields } : {}) }, sink);
}
