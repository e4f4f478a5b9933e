import { createClient, type RedisClientType } from 'redis';
import type { Logger } from 'pino';

/** A command Redis has not answered within this is a failure: the limiter then serves without it. */
const COMMAND_TIMEOUT_MS = 500;
const MAX_RECONNECT_DELAY_MS = 2000;

export interface RedisConnection {
  /** Sends one raw command (what rate-limit-redis needs); rejects at once while Redis is unreachable. */
  sendCommand(args: string[]): Promise<unknown>;
  /** Whether the connection is up now. */
  isAvailable(): boolean;
  /** One round trip, for the health check. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The service's one Redis client. It never blocks a request on Redis: commands fail at once while
 * disconnected (no offline queue) and time out when Redis stalls, and the client reconnects on its
 * own. An outage is logged once when it starts and once when it ends, never per request, and
 * without the URL (it may hold a password). The socket is unref'd: Redis never keeps a closed
 * service alive.
 */
export function connectRedis(url: string, logger: Logger): RedisConnection {
  const client: RedisClientType = createClient({
    url,
    disableOfflineQueue: true,
    commandOptions: { timeout: COMMAND_TIMEOUT_MS },
    socket: { connectTimeout: 2000, reconnectStrategy: (retries) => Math.min(50 * 2 ** retries, MAX_RECONNECT_DELAY_MS) },
  });
  let down = false;
  let closed = false;
  const wentDown = (error: unknown) => {
    if (down || closed) return;
    down = true;
    const { name, code } = (error ?? {}) as { name?: string; code?: unknown };
    logger.warn({ err: { name, code: typeof code === 'string' ? code : undefined } }, 'redis unreachable: rate limits are not enforced until it is back');
  };
  client.on('error', wentDown);
  client.on('ready', () => {
    if (down) logger.info('redis reachable again: rate limits are enforced');
    down = false;
  });
  client.connect().then(
    () => client.unref(),
    (error: unknown) => wentDown(error),
  );
  client.unref();
  return {
    async sendCommand(args) {
      try {
        return await client.sendCommand(args);
      } catch (error) {
        // A stalled connection answers nothing, so it raises no socket error: count a timeout as an outage too.
        if ((error as Error).name === 'TimeoutError') wentDown(error);
        throw error;
      }
    },
    isAvailable: () => client.isReady,
    async ping() {
      await client.ping();
    },
    async close() {
      closed = true;
      if (client.isOpen) client.destroy();
    },
  };
}
