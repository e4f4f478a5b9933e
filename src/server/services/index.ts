import type { Logger } from 'pino';
import type { Config } from '../core/config';
import { createLogger } from '../core/logger';
import type { RedisConnection } from '../redis/connection';
import type { Store } from '../store';
import { AliasService } from './users/aliases';
import { ApiKeyAuthenticator } from './apps/apiKeys';
import { AppDeletionService } from './apps/appDeletion';
import { AppSettingsCache } from './apps/appFeaturesCache';
import { AppsService } from './apps/apps';
import { AuthConfigService } from './authConfigs';
import { ChallengeStore } from './ceremonies/challenges';
import { CredentialService } from './users/credentials';
import { EventLog } from './events/eventLog';
import { AppIncarnations } from './apps/incarnations';
import { listenForAppChanges } from '../store/appChangeFeed';
import { MagicLinkService } from './magicLinks/magicLinks';
import { createMailer, type Mailer } from '../mail/mailer';
import { RegistrationService } from './ceremonies/registration';
import { SigninService } from './ceremonies/signin';
import { StorageHealth } from '../store/storageHealth';
import { TokenService } from './tokens/tokenService';
import { UserService } from './users/users';
import { VerificationService } from './ceremonies/verification';

const SWEEP_INTERVAL_MS = 60_000;
const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;
const DELETION_SWEEP_INTERVAL_MS = 60_000;

export interface ServiceOptions {
  /** Where background work reports trouble; default: a logger at the configured level. */
  logger?: Logger;
  /** How often buffered writes (events, auth-config last use) go to the database; 0 = only on flush or close. */
  flushIntervalMs?: number;
  /**
   * How often pending app deletions are swept (at creation, then every interval; default a
   * minute); 0 = never on its own, only when `deletions.sweep()` is called (tests).
   */
  deletionSweepIntervalMs?: number;
  /**
   * Whether replicas on PostgreSQL tell each other of changed apps (LISTEN/NOTIFY); default true.
   * Off only for tests of what holds without them.
   */
  appChangeNotifications?: boolean;
  /** The clock of every time rule (token lifetimes, challenges, quotas, deletion dates); default Date.now. For tests. */
  now?: () => number;
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
  deletions: AppDeletionService;
  mailer: Mailer;
  storageHealth: StorageHealth;
  /** The shared counters of the rate limits, when REDIS_URL is set. */
  redis: RedisConnection | undefined;
  /** Stops background work, writes what is buffered, and closes the store. */
  close(): Promise<void>;
}

export function createServices(config: Config, store: Store, options: ServiceOptions = {}): Services {
  const { db } = store;
  const logger = options.logger ?? createLogger(config.logLevel);
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  let settings: AppSettingsCache | undefined;
  // Whether an app logs is read when a batch is written, from the cached settings; an app the
  // cache already knows not to log has its events dropped when they are recorded.
  const events = new EventLog(db, async (appId) => (await settings!.get(appId)).eventLoggingIsEnabled, logger, {
    flushIntervalMs,
    now,
    knownLogging: (appId) => settings?.peek(appId)?.eventLoggingIsEnabled,
  });
  const incarnations = new AppIncarnations();
  const keys = new ApiKeyAuthenticator(db, events, incarnations);
  const tokens = new TokenService(db, now, incarnations);
  const forgetApp = (appId: string) => {
    keys.forgetApp(appId);
    settings?.invalidate();
    tokens.forget(appId);
    incarnations.forget(appId);
  };
  // Replicas on one PostgreSQL tell each other; a single SQLite process has no one to tell.
  const feed =
    store.provider === 'postgresql' && options.appChangeNotifications !== false
      ? listenForAppChanges(config.databaseUrl, {
          changed: forgetApp,
          missed: () => {
            keys.invalidate();
            settings?.invalidate();
            tokens.forgetAll();
            incarnations.clear();
          },
        }, logger)
      : undefined;
  const appChanged = (appId: string) => {
    forgetApp(appId);
    feed?.publish(appId);
  };
  const apps = new AppsService(db, events, { sdkCompatibleLists: config.sdkCompatibleLists, magicLinkMonthlyQuota: config.magicLinkMonthlyQuota }, appChanged);
  settings = new AppSettingsCache(apps);
  const challenges = new ChallengeStore(db, store.hot, now);
  const aliases = new AliasService(db, events);
  const authConfigs = new AuthConfigService(db, events, undefined, now);
  const mailer = createMailer(config);
  // Loaded only when configured: the Redis client takes a second to load, which every CLI command would pay.
  const redis = config.redisUrl ? (require('../redis/connection') as typeof import('../redis/connection')).connectRedis(config.redisUrl, logger) : undefined;
  const magicLinks = new MagicLinkService(db, tokens, mailer, events, logger, config.magicLinkNewAppPeriodSeconds, now);
  const deletions = new AppDeletionService(db, tokens, mailer, events, logger, config.publicUrl, appChanged, now);

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
  // Deletion dates are due whether or not this process was running when they passed: sweep now, then every minute.
  const deletionSweepIntervalMs = options.deletionSweepIntervalMs ?? DELETION_SWEEP_INTERVAL_MS;
  let deletionSweep: Promise<unknown> = Promise.resolve();
  const sweepDeletions = () => {
    deletionSweep = deletionSweep.then(() => deletions.sweep()).catch(warn('deletion sweep'));
  };
  const deletionSweeper = deletionSweepIntervalMs > 0 ? setInterval(sweepDeletions, deletionSweepIntervalMs) : undefined;
  if (deletionSweeper) sweepDeletions();
  const timers = [sweeper, retentionSweeper, usageWriter, deletionSweeper];
  for (const timer of timers) timer?.unref();

  return {
    config,
    store,
    keys,
    apps,
    settings,
    tokens,
    challenges,
    aliases,
    registration: new RegistrationService(db, tokens, challenges, aliases, settings, events, now),
    signin: new SigninService(store.hot, tokens, challenges, aliases, settings, authConfigs, events, now),
    verification: new VerificationService(store.hot, tokens, settings, events, now),
    credentials: new CredentialService(db, events),
    users: new UserService(db, events),
    authConfigs,
    events,
    magicLinks,
    deletions,
    mailer,
    storageHealth: new StorageHealth(store, config.databaseUrl),
    redis,
    async close() {
      for (const timer of timers) clearInterval(timer);
      await deletionSweep;
      await authConfigs.flushUsage().catch(warn('auth-config usage write'));
      await events.close();
      mailer.close();
      await redis?.close();
      await feed?.close();
      await store.close();
    },
  };
}
