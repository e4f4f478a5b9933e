import type { Config } from '../config';
import type { Store } from '../store';
import { AliasService } from './aliases';
import { ApiKeyAuthenticator } from './apiKeys';
import { AppSettingsCache } from './appSettings';
import { AppsService } from './apps';
import { ChallengeStore } from './challenges';
import { CredentialService } from './credentials';
import { RegistrationService } from './registration';
import { SigninService } from './signin';
import { TokenService } from './tokens';
import { UserService } from './users';
import { VerificationService } from './verification';

const SWEEP_INTERVAL_MS = 60_000;

/** Every domain service, wired once per process. Routes receive this and nothing from Express leaks in. */
export interface Services {
  config: Config;
  store: Store;
  keys: ApiKeyAuthenticator;
  apps: AppsService;
  settings: AppSettingsCache;
  tokens: TokenService;
  challenges: ChallengeStore;
  aliases: AliasService;
  registration: RegistrationService;
  signin: SigninService;
  verification: VerificationService;
  credentials: CredentialService;
  users: UserService;
  /** Stops background work and closes the store. */
  close(): Promise<void>;
}

export function createServices(config: Config, store: Store): Services {
  const { db } = store;
  const keys = new ApiKeyAuthenticator(db);
  const tokens = new TokenService(db);
  let settings: AppSettingsCache | undefined;
  const apps = new AppsService(db, { sdkCompatibleLists: config.sdkCompatibleLists }, (appId) => {
    keys.invalidate();
    settings?.invalidate();
    tokens.forget(appId);
  });
  settings = new AppSettingsCache(apps);
  const challenges = new ChallengeStore(db);
  const aliases = new AliasService(db);

  // Expired challenges and redeemed-token ids are dropped in the background, never on a request.
  const sweeper = setInterval(() => {
    challenges.sweep().catch(() => undefined);
  }, SWEEP_INTERVAL_MS);
  sweeper.unref();

  return {
    config,
    store,
    keys,
    apps,
    settings,
    tokens,
    challenges,
    aliases,
    registration: new RegistrationService(db, tokens, challenges, aliases, settings),
    signin: new SigninService(db, tokens, challenges, aliases, settings),
    verification: new VerificationService(db, tokens, settings),
    credentials: new CredentialService(db),
    users: new UserService(db),
    async close() {
      clearInterval(sweeper);
      await store.close();
    },
  };
}
