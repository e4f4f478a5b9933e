import { createServer, type Server } from 'node:http';
import type { Logger } from 'pino';
import { createApp, type AppSurface } from './app';
import { createMetrics } from './metrics/metrics';
import { boundedWait } from './core/boundedWait';
import { answerClientError } from './http/clientError';
import { gracefulClose } from './http/gracefulClose';
import type { Config } from './core/config';
import { createLogger } from './core/logger';
import { logExportFailuresTo } from './core/telemetry/exportFailureLog';
import { setIncomingTraceTrust } from './core/telemetry/incomingTraceTrust';
import { tracingOn } from './core/telemetry/tracing';
import { perSecondBudget } from './http/perSecondBudget';
import { TRACE_TRUST_LOOKUPS_PER_SECOND, checkSecretKeyBeforeTracing } from './http/secretKeyTraceGate';
import { createServices, type Services } from './services';
import { openStore, TokenKeyRepository } from './store';
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
  /** Where the management API listens when MANAGEMENT_PORT gives it a listener of its own. */
  managementUrl?: string;
  /**
   * Stops accepting, lets in-flight requests finish (cutting what is left after `timeoutMs`,
   * default SHUTDOWN_TIMEOUT_MS), then writes what is buffered and closes the store (and whatever
   * else `services.close()` owns), waiting at most `timeoutMs` for that too.
   */
  close(timeoutMs?: number): Promise<ShutdownResult>;
}

/**
 * With the console off, an older version's console app would keep keys derived from the database:
 * they go at start (console/ensureConsoleApp.ts); a `pwlconsole` the console did not make is reported.
 */
async function retireLegacyConsoleApp(services: Services, logger: Logger): Promise<void> {
  const { retireLegacyConsoleKeys, ConsoleRefusal } = require('./console/ensureConsoleApp') as typeof import('./console/ensureConsoleApp');
  try {
    if ((await retireLegacyConsoleKeys(services)) === 'legacy') logger.info("the console app of an older version had keys derived from the database: they were deleted (the console makes its own when it is turned on)");
  } catch (error) {
    if (error instanceof ConsoleRefusal) logger.warn(error.message);
    else logger.error({ err: error }, 'the console app could not be checked');
  }
}

/** Opens the store, applies pending migrations, and listens. */
export async function startService(config: Config, logger: Logger = createLogger(config.logLevel)): Promise<RunningService> {
  const store = openStore(config.databaseUrl);
  const applied = await store.migrate();
  if (applied.length > 0) logger.info({ migrations: applied }, 'applied database migrations');
  warnLooseFiles(config, logger);
  try {
    await assertTokenKeysReadable(new TokenKeyRepository({ db: store.db }), config.tokenKeyEncryption, logger);
  } catch (error) {
    await store.close();
    throw error;
  }
  const services = createServices(config, store, { logger });
  setIncomingTraceTrust(config.trustIncomingTrace);
  logExportFailuresTo(logger);
  // Which requests may continue a caller's trace is known only once their secret is checked, and
  // must be known before their span starts: only with tracing on, and only for requests with both.
  const gateTraceContext = tracingOn() && config.trustIncomingTrace === 'secret-key';
  const traceTrustLookups = perSecondBudget(TRACE_TRUST_LOOKUPS_PER_SECOND);
  const metrics = createMetrics({ poolStats: store.poolStats });
  const separate = config.managementListener !== undefined;
  // The console's middleware calls this process's own API, on the main listener, through loopback when it listens on every address.
  let ownUrl = '';
  // Loaded only when on: express-session, passport and the middleware are not needed otherwise.
  const consoleRoutes = config.console.enabled
    ? (require('./console/consoleRouter') as typeof import('./console/consoleRouter')).consoleHandler(services, { serviceUrl: () => ownUrl, logger })
    : undefined;
  const listen = async (surface: AppSurface, port: number, host: string) => {
    const app = createApp(services, logger, { surface, metrics, console: consoleRoutes });
    const server = await new Promise<Server>((resolve, reject) => {
      const s = createServer(app);
      if (gateTraceContext) checkSecretKeyBeforeTracing(s, (value) => services.keys.isSecretKey(value, traceTrustLookups));
      s.once('error', reject);
      s.listen(port, host, () => resolve(s));
    });
    // At once, so that it sees every request.
    const closeHttp = gracefulClose(server);
    server.on('clientError', answerClientError);
    server.keepAliveTimeout = 65_000;
    server.requestTimeout = 30_000;
    return { server, closeHttp };
  };
  const listening: Awaited<ReturnType<typeof listen>>[] = [];
  try {
    listening.push(await listen(separate ? 'public' : 'all', config.port, config.host));
    if (config.managementListener) listening.push(await listen('management', config.managementListener.port, config.managementListener.host));
  } catch (error) {
    await Promise.all(listening.map(({ closeHttp }) => closeHttp(0)));
    await services.close(); // e.g. the port is taken: do not leave the store open
    throw error;
  }
  const servers = listening.map((l) => l.server);
  const closers = listening.map((l) => l.closeHttp);
  const urlOf = (s: Server, host: string, fallbackPort: number) => {
    const address = s.address();
    const port = typeof address === 'object' && address ? address.port : fallbackPort;
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  };
  const [server, managementServer] = servers;
  const url = urlOf(server, config.host, config.port);
  ownUrl = urlOf(server, config.host === '0.0.0.0' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host, config.port);
  if (consoleRoutes) {
    logger.info({ console: `${config.publicUrl}/console` }, 'operator console on (CONSOLE=off turns it off)');
    if (config.trustProxy !== false && config.trustProxy !== 0) {
      logger.warn('the operator console is on behind a proxy (TRUST_PROXY is set): it answers whoever the proxy forwards /console for; limit /console at the proxy, or set CONSOLE=off');
    }
    await consoleRoutes.startIfPresent();
  } else {
    await retireLegacyConsoleApp(services, logger);
  }
  const managementUrl = managementServer && config.managementListener ? urlOf(managementServer, config.managementListener.host, config.managementListener.port) : undefined;
  logger.info({ url, storage: store.provider, ...(managementUrl ? { managementUrl } : {}) }, 'passwordless service listening');
  return {
    server,
    services,
    url,
    ...(managementUrl ? { managementUrl } : {}),
    async close(timeoutMs = config.shutdownTimeoutMs) {
      const forced = (await Promise.all(closers.map((closeHttp) => closeHttp(timeoutMs)))).some((r) => r.forced);
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
