import type { ApiKeyAuthenticator } from './apiKeys';
import type { AppFeaturesCache } from './appFeaturesCache';
import type { AppIncarnations } from './incarnations';
import type { TokenService } from '../tokens/tokenService';
import type { AppChangeFeedOpener, WebhookOutbox } from '../../store/repositories';

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
 * replicas through the store's change feed (`openFeed`: PostgreSQL's LISTEN/NOTIFY; none on
 * SQLite, whose single process has no one to tell, nor in tests of what holds without it).
 */
export function appCaches(caches: AppCachesOf, openFeed: AppChangeFeedOpener | undefined): AppCaches {
  const forget = (appId: string) => {
    caches.keys.forgetApp(appId);
    caches.features.invalidate();
    caches.tokens.forget(appId);
    caches.incarnations.forget(appId);
    caches.webhooks.forget(appId);
  };
  const feed = openFeed?.({
    changed: forget,
    // Notifications may have been missed: nothing cached can be trusted.
    missed: () => {
      caches.keys.invalidate();
      caches.features.invalidate();
      caches.tokens.forgetAll();
      caches.incarnations.clear();
      caches.webhooks.forgetAll();
    },
  });
  return {
    changed(appId) {
      forget(appId);
      feed?.publish(appId);
    },
    close: async () => feed?.close(),
  };
}
