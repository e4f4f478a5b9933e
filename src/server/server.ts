import type { Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp } from './app';
import { answerClientError } from './http/clientError';
import type { Config } from './config';
import { createLogger } from './http/logger';
import { createServices, type Services } from './services';
import { openStore } from './store';

export interface RunningService {
  server: Server;
  services: Services;
  url: string;
  close(): Promise<void>;
}

/** Opens the store, applies pending migrations, and listens. */
export async function startService(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<RunningService> {
  const store = openStore(config.databaseUrl);
  const applied = await store.migrate();
  if (applied.length > 0) logger.info({ migrations: applied }, 'applied database migrations');
  const services = createServices(config, store);
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
    async close() {
      await new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await services.close();
    },
  };
}
