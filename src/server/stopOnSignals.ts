import { constants } from 'node:os';
import type { Logger } from 'pino';
import type { RunningService } from './server';
import { boundedWait } from './core/boundedWait';
import { stopTracing } from './telemetry/startTracing';

/**
 * SIGTERM or SIGINT closes the service gracefully (see RunningService.close) and exits 0, or 1 if
 * buffered writes could not be completed; a second signal exits at once with 128 + its number.
 * Exiting never waits for the log reader: lines it has not taken are lost, and the count of
 * dropped lines goes to stderr when stdout is still behind.
 */
export function stopOnSignals(service: RunningService, logger: Logger, timeoutMs: number): void {
  let stopping = false;
  // The log sink hands over its last lines and the drop count on 'exit', without waiting.
  const exit = (code: number) => process.exit(code);
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting at once');
      exit(128 + (constants.signals[signal] ?? 0));
      return;
    }
    stopping = true;
    const closing = service.close(timeoutMs);
    // Logged once the listener is closed: whoever reads it can rely on new connections being refused.
    logger.info({ signal, timeoutMs }, 'shutting down');
    closing.then(
      async (result) => {
        logger.info(result, 'stopped');
        // The last spans (OpenTelemetry, when on) go out before the process does, within the same deadline.
        await boundedWait(stopTracing(), timeoutMs);
        exit(result.clean ? 0 : 1);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed');
        exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}
