import type { Config } from '../config';
import type { Store } from '../store';
import { ApiKeyAuthenticator } from './apiKeys';
import { AppsService } from './apps';

/** Every domain service, wired once per process. Routes receive this and nothing from Express leaks in. */
export interface Services {
  config: Config;
  store: Store;
  keys: ApiKeyAuthenticator;
  apps: AppsService;
  /** Stops background work and closes the store. */
  close(): Promise<void>;
}

export function createServices(config: Config, store: Store): Services {
  const keys = new ApiKeyAuthenticator(store.db);
  const apps = new AppsService(store.db, { sdkCompatibleLists: config.sdkCompatibleLists }, () => keys.invalidate());
  return { config, store, keys, apps, close: () => store.close() };
}
