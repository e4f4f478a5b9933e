import { Client } from 'pg';
import type { Logger } from 'pino';

const CHANNEL = 'passwordless_app_changed';
const RECONNECT_DELAY_MS = 1000;

export interface AppChangeHandlers {
  /** Another replica (or this one) changed, deleted or created this app. */
  changed(appId: string): void;
  /** The feed was down: notifications may have been missed, so nothing cached can be trusted. */
  missed(): void;
}

export interface AppChangeFeed {
  /** Tells every replica (this one included) that the app changed; best effort. */
  publish(appId: string): void;
  close(): Promise<void>;
}

/**
 * PostgreSQL LISTEN/NOTIFY between replicas, so that a deleted, re-created, locked or frozen app
 * leaves the caches of every replica within milliseconds rather than their lifetimes. One
 * dedicated connection; after it drops it reconnects on its own and then drops every cache.
 */
export function listenForAppChanges(databaseUrl: string, handlers: AppChangeHandlers, logger: Logger): AppChangeFeed {
  let client: Client | undefined;
  let closed = false;
  let lost = false;
  let timer: NodeJS.Timeout | undefined;

  const reconnectLater = () => {
    if (closed || timer) return;
    timer = setTimeout(() => {
      timer = undefined;
      void connect();
    }, RECONNECT_DELAY_MS);
    timer.unref();
  };

  const dropped = (error?: unknown) => {
    if (closed) return;
    if (!lost) logger.warn({ err: { name: (error as Error | undefined)?.name, code: (error as { code?: string } | undefined)?.code } }, 'app change notifications interrupted: caches expire on their own until they are back');
    lost = true;
    const old = client;
    client = undefined;
    old?.removeAllListeners();
    old?.on('error', () => undefined);
    old?.end().catch(() => undefined);
    reconnectLater();
  };

  async function connect(): Promise<void> {
    const next = new Client({ connectionString: databaseUrl });
    next.on('error', dropped);
    next.on('end', () => dropped());
    try {
      await next.connect();
      await next.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      next.removeAllListeners();
      next.on('error', () => undefined);
      next.end().catch(() => undefined);
      dropped(error);
      return;
    }
    if (closed) {
      await next.end().catch(() => undefined);
      return;
    }
    next.on('notification', (message) => {
      if (message.channel === CHANNEL && message.payload) handlers.changed(message.payload);
    });
    client = next;
    if (lost) {
      lost = false;
      logger.info('app change notifications back');
      handlers.missed();
    }
  }
  void connect();

  // One query at a time on the connection (pg queues a second one only under a deprecation and
  // will refuse it in pg 9): what is published while one is on the wire goes out together next.
  const unsent = new Set<string>();
  let sending = false;
  const sendUnsent = async () => {
    sending = true;
    try {
      while (unsent.size > 0 && client) {
        const appIds = [...unsent];
        unsent.clear();
        await client.query('SELECT pg_notify($1, app_id) FROM unnest($2::text[]) AS app_id', [CHANNEL, appIds]);
      }
    } catch (error) {
      dropped(error);
    } finally {
      sending = false;
      // With the connection down, the other replicas learn nothing either way: their caches expire.
      unsent.clear();
    }
  };

  return {
    publish(appId) {
      if (!client) return;
      unsent.add(appId);
      if (!sending) void sendUnsent();
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      const last = client;
      client = undefined;
      await last?.end().catch(() => undefined);
    },
  };
}
