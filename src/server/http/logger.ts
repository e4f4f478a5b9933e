import pino, { type Logger } from 'pino';
import { boundedLogSink, type LogSink } from './logSink';

/**
 * Credential-carrying fields, censored wherever a logged object holds them. No log line is built
 * from request headers; this is the second line of defence for error objects that carry some.
 */
export const REDACTED_PATHS = [
  '*.headers.apisecret',
  '*.headers.apikey',
  '*.headers.managementkey',
  '*.headers.authorization',
  '*.headers.cookie',
  '*.headers["set-cookie"]',
];

let stdoutSink: LogSink | undefined;

/** The one sink of this process's stdout, shared by every logger so drops are counted once. */
export function stdoutLogSink(): LogSink {
  stdoutSink ??= boundedLogSink(process.stdout, { exitReportTo: process.stderr });
  return stdoutSink;
}

/** JSON lines without pid and hostname (the process manager knows both), through a bounded, non-blocking sink. */
export function createLogger(level: string, sink: Pick<LogSink, 'write'> = stdoutLogSink()): Logger {
  return pino({ level, base: undefined, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } }, sink);
}
