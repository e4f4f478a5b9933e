import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app';
import { boundedWait } from './core/boundedWait';
import { answerClientError } from './http/clientError';
import { gracefulClose } from './http/gracefulClose';
import type { Config } from './core/config';
import { createLogger } from './core/logger';
import { createServices, type Services } from './services';
import { openStore } from './store';
import { warnLooseFiles } from './warnLooseFiles';
import { assertTokenKeysReadable } from './services/tokens/assertTokenKeysReadable';

export interface ShutdownResult {
  /** Connections still busy at the deadline were cut. */
  forced: boolean;
  /** Buffered writes were flushed and the store closed, in time and without error. */
  clean: boolean;
}

export interface RunningService {
  server: Server;
  services: Services;
  url: string;
  /**
   * Stops accepting, lets in-flight requests finish (cutting what is left after `timeoutMs`,
   * default SHUTDOWN_TIMEOUT_MS), then writes what is buffered and closes the store (and whatever
   * else `services.close()` owns), waiting at most `timeoutMs` for that too.
   */
  close(timeoutMs?: number): Promise<ShutdownResult>;
}

/** Opens the store, applies pending migrations, and listens. */
export async function startService(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<RunningService> {
  const store = openStore(config.databaseUrl);
  const applied = await store.migrate();
  if (applied.length > 0) logger.info({ migrations: applied }, 'applied database migrations');
  warnLooseFiles(config, logger);
  try {
    await assertTokenKeysReadable(store.db, config.tokenKeyEncryption, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
  const services = createServices(config, store, { logger });
  const app = createApp(services, logger);
  let server: Server;
  try {
    server = await new Promise<Server>((resolve, reject) => {
      const s = app.listen(config.port, config.host, () => resolve(s));
      s.once('error', reject);
    });
  } catch (error) {
    await services.close(); // e.g. the port is taken: do not leave the store open
    throw error;
  }
  const closeHttp = gracefulClose(server);
  server.on('clientError', answerClientError);
  server.keepAliveTimeout = 65_000;
  server.requestTimeout = 30_000;
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`;
  logger.info({ url, storage: store.provider }, 'passwordless service listening');
  return {
    server,
    services,
    url,
    async close(timeoutMs = config.shutdownTimeoutMs) {
      const { forced } = await closeHttp(timeoutMs);
      if (forced) logger.warn({ timeoutMs }, 'shutdown deadline reached: open connections were cut');
      let failed = false;
      const closing = services.close().catch((error: unknown) => {
        failed = true;
        logger.error({ err: error }, 'writing buffered data or closing the store failed');
      });
      const inTime = await boundedWait(closing, timeoutMs);
      if (!inTime) logger.error({ timeoutMs }, 'buffered writes and the store did not finish closing in time');
      return { forced, clean: inTime && !failed };
    },
  };
}
