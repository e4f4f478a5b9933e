import type { Logger } from 'pino';
import type { Config } from '../config';
import { createLogger } from '../http/logger';
import type { Store } from '../store';
import { AliasService } from './aliases';
import { ApiKeyAuthenticator } from './apiKeys';
import { AppSettingsCache } from './appSettings';
import { AppsService } from './apps';
import { AuthConfigService } from './authConfigs';
import { ChallengeStore } from './challenges';
import { CredentialService } from './credentials';
import { EventLog } from './events';
import { MagicLinkService } from './magicLinks';
import { createMailer, type Mailer } from './mailer';
import { RegistrationService } from './registration';
import { SigninService } from './signin';
import { StorageHealth } from './storageHealth';
import { TokenService } from './tokens';
import { UserService } from './users';
import { VerificationService } from './verification';

const SWEEP_INTERVAL_MS = 60_000;
const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;

export interface ServiceOptions {
  /** Where background work reports trouble; default: a logger at the configured level. */
  logger?: Logger;
  /** How often buffered writes (events, auth-config last use) go to the database; 0 = only on flush or close. */
  flushIntervalMs?: number;
}

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
  authConfigs: AuthConfigService;
  events: EventLog;
  magicLinks: MagicLinkService;
  mailer: Mailer;
  storageHealth: StorageHealth;
  /** Stops background work, writes what is buffered, and closes the store. */
  close(): Promise<void>;
}

export function createServices(config: Config, store: Store, options: ServiceOptions = {}): Services {
  const { db } = store;
  const logger = options.logger ?? createLogger(config.logLevel);
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  let settings: AppSettingsCache | undefined;
  // Whether an app logs is read when a batch is written, from the cached settings.
  const events = new EventLog(db, async (appId) => (await settings!.get(appId)).eventLoggingIsEnabled, logger, { flushIntervalMs });
  const keys = new ApiKeyAuthenticator(db, events);
  const tokens = new TokenService(db);
  const apps = new AppsService(db, events, { sdkCompatibleLists: config.sdkCompatibleLists, magicLinkMonthlyQuota: config.magicLinkMonthlyQuota }, (appId) => {
    keys.invalidate();
    settings?.invalidate();
    tokens.forget(appId);
  });
  settings = new AppSettingsCache(apps);
  const challenges = new ChallengeStore(db);
  const aliases = new AliasService(db, events);
  const authConfigs = new AuthConfigService(db, events);
  const mailer = createMailer(config);
  const magicLinks = new MagicLinkService(db, tokens, mailer, events, logger, config.magicLinkNewAppPeriodSeconds);

  // Expired rows are dropped in the background, never on a request.
  const warn = (task: string) => (error: unknown) => logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, `${task} failed`);
  const sweeper = setInterval(() => {
    challenges.sweep().catch(warn('challenge sweep'));
  }, SWEEP_INTERVAL_MS);
  const retentionSweeper = setInterval(() => {
    events.sweep().catch(warn('event retention sweep'));
    magicLinks.sweep().catch(warn('magic-link quota sweep'));
  }, RETENTION_SWEEP_INTERVAL_MS);
  const usageWriter = flushIntervalMs > 0 ? setInterval(() => authConfigs.flushUsage().catch(warn('auth-config usage write')), flushIntervalMs) : undefined;
  for (const timer of [sweeper, retentionSweeper, usageWriter]) timer?.unref();

  return {
    config,
    store,
    keys,
    apps,
    settings,
    tokens,
    challenges,
    aliases,
    registration: new RegistrationService(db, tokens, challenges, aliases, settings, events),
    signin: new SigninService(db, tokens, challenges, aliases, settings, authConfigs, events),
    verification: new VerificationService(db, tokens, settings, events),
    credentials: new CredentialService(db, events),
    users: new UserService(db, events),
    authConfigs,
    events,
    magicLinks,
    mailer,
    storageHealth: new StorageHealth(store, config.databaseUrl),
    async close() {
      for (const timer of [sweeper, retentionSweeper, usageWriter]) clearInterval(timer);
      await authConfigs.flushUsage().catch(warn('auth-config usage write'));
      await events.close();
      mailer.close();
      await store.close();
    },
  };
}
