import { detachedFromTrace } from './tracing';

/** What an export failure is said to be in the log: its code or kind, never its message (an HTTP failure's carries the collector's answer). */
export function exportFailureKind(error: unknown): string {
  const { code, name, message } = (error ?? {}) as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,40}$/.test(code)) return code;
  if (typeof code === 'number' && Number.isInteger(code)) return `HTTP ${code}`;
  if (message === 'Timeout' || message === 'Request timed out') return 'timeout';
  return typeof name === 'string' && /^\w{1,60}$/.test(name) ? name : 'Error';
}

export interface ExportFailureLogOptions {
  /** Where spans go (collectorAddress): named in each line. */
  collector: string;
  /** At most one line per this long; default a minute. */
  intervalMs?: number;
  now?: () => number;
}

type Warn = (fields: Record<string, unknown>, message: string) => void;

/**
 * Says in the service's log that spans are being dropped, without flooding it while a collector is
 * down: the first failure at once (at warn), then at most one line per interval, each with the
 * number of failed exports since the line before. Until the service hands it its logger, failures
 * are only counted.
 */
export class ExportFailureLog {
  private warn: Warn | undefined;
  private failures = 0;
  private lastLineAt: number | undefined;
  private readonly intervalMs: number;
  private readonly now: () => number;

  constructor(private readonly options: ExportFailureLogOptions) {
    this.intervalMs = options.intervalMs ?? 60_000;
    this.now = options.now ?? Date.now;
  }

  /** The service's logger (its format, its sink), once it has one. */
  logTo(warn: Warn): void {
    this.warn = warn;
  }

  note(error: unknown): void {
    this.failures++;
    const now = this.now();
    if (!this.warn || (this.lastLineAt !== undefined && now - this.lastLineAt < this.intervalMs)) return;
    this.warn(
      { collector: this.options.collector, error: exportFailureKind(error), failedExports: this.failures },
      'spans could not be exported to the trace collector and were dropped (said at most once a minute while it lasts)',
    );
    this.failures = 0;
    this.lastLineAt = now;
  }
}

let current: ExportFailureLog | undefined;

/** Set by the tracing start-up, which hears of the failures. */
export function setExportFailureLog(log: ExportFailureLog | undefined): void {
  current = log;
}

/**
 * Hands the service's logger to the export failure log, when tracing is on (nothing otherwise).
 * The line is outside any trace: the export that failed carried many requests' spans, and the
 * request whose span happened to start the batch is none of its business.
 */
export function logExportFailuresTo(logger: { warn(fields: Record<string, unknown>, message: string): void }): void {
  current?.logTo((fields, message) => detachedFromTrace(() => logger.warn(fields, message)));
}
