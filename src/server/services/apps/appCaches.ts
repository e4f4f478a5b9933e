import type { Logger } from 'pino';
import { listenForAppChanges } from '../../store/appChangeFeed';
import type { ApiKeyAuthenticator } from './apiKeys';
import type { AppFeaturesCache } from './appFeaturesCache';
import type { AppIncarnations } from './incarnations';
import type { TokenService } from '../tokens/tokenService';
import type { WebhookOutbox } from '../../store/repositories/webhookOutbox';

/** What a process caches about apps: key checks, features, token keys and incarnations. */
export interface AppCachesOf {
  keys: ApiKeyAuthenticator;
  features: AppFeaturesCache;
  tokens: TokenService;
  incarnations: AppIncarnations;
  /** The apps' webhook subscriptions. */
  webhooks: WebhookOutbox;
}

export interface AppCaches {
  /** An app changed here: drop what is cached of it, and tell the other replicas. */
  changed(appId: string): void;
  close(): Promise<void>;
}

/**
 * How a change to an app reaches every cache of it: in this process at once, and on other
 * replicas of one PostgreSQL database through its change feed (LISTEN/NOTIFY). A single SQLite
 * process has no one to tell. `notify: false` leaves the feed out (tests of what holds without it).
 */
export function appCaches(caches: AppCachesOf, feedOf: { databaseUrl: string; notify: boolean } | undefined, logger: Logger): AppCaches {
  const forget = (appId: string) => {
    caches.keys.forgetApp(appId);
    caches.features.invalidate();
    caches.tokens.forget(appId);
    caches.incarnations.forget(appId);
    caches.webhooks.forget(appId);
  };
  const feed =
    feedOf?.notify
      ? listenForAppChanges(
          feedOf.databaseUrl,
          {
            changed: forget,
            // Notifications may have been missed: nothing cached can be trusted.
            missed: () => {
              caches.keys.invalidate();
              caches.features.invalidate();
              caches.tokens.forgetAll();
              caches.incarnations.clear();
              caches.webhooks.forgetAll();
            },
          },
          logger,
        )
      : undefined;
  return {
    changed(appId) {
      forget(appId);
      feed?.publish(appId);
    },
    close: async () => feed?.close(),
  };
}
