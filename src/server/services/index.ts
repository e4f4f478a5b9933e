import type { Logger } from 'pino';
import type { Config } from '../core/config';
import { createLogger } from '../core/logger';
import type { RedisConnection } from '../redis/connection';
import type { StorageHealth, Store, WebhookOutbox } from '../store';
import { AliasService } from './users/aliases';
import { ApiKeyAuthenticator } from './apps/apiKeys';
import { AppDeletionService } from './apps/appDeletion';
import { appCaches } from './apps/appCaches';
import { AppFeaturesCache } from './apps/appFeaturesCache';
import { startBackgroundJobs } from './backgroundJobs';
import { AppsService, type AppFeatures } from './apps/apps';
import { AuthConfigService } from './authConfigs';
import { AuthenticatorLists } from './authenticators/authenticatorLists';
import { AuthenticatorPolicy } from './authenticators/authenticatorPolicy';
import { AuthenticatorMetadata } from './metadata/authenticatorMetadata';
import { authenticatorNames } from './metadata/authenticatorNames';
import { DailyReports } from './reporting/dailyReports';
import { SignInTally } from './reporting/signInTally';
import { ChallengeStore } from './ceremonies/challenges';
import { providerNames } from './metadata/providerNames';
import { CredentialService } from './users/credentials';
import { EventLog } from './events/eventLog';
import { FailedKeyUses } from './apps/failedKeyUses';
import { AppIncarnations } from './apps/incarnations';
import { MagicLinkService } from './magicLinks/magicLinks';
import { createMailer, type Mailer } from '../mail/mailer';
import { RegistrationService } from './ceremonies/registration';
import { SigninService } from './ceremonies/signin';
import { traceCeremonySteps } from './ceremonies/ceremonySpans';
import { TokenService } from './tokens/tokenService';
import { UserService } from './users/users';
import { VerificationService } from './ceremonies/verification';
import { WebhookDeliveryWorker, type WebhookWorkerOptions } from './webhooks/webhookDeliveryWorker';
import { WebhookDeliveryLog } from './webhooks/webhookDeliveryLog';
import { WebhookEndpointService } from './webhooks/webhookEndpoints';

export interface ServiceOptions {
  /** Where background work reports trouble; default: a logger at the configured level. */
  logger?: Logger;
  /** How often buffered writes (events, auth-config last use, sign-in counts) go to the database; 0 = only on flush or close. */
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
  /**
   * How often due daily reports are written (at creation, then every interval; default an hour);
   * 0 = only when `reports.sweep()` is called (tests).
   */
  reportSweepIntervalMs?: number;
  /**
   * How often the FIDO metadata is refreshed (at creation, then every interval; default an hour);
   * 0 = only when `metadata.refresh()` is called (tests). The file is read at creation either way.
   */
  metadataRefreshIntervalMs?: number;
  /** Fetches MDS_URL (tests replace it to count or fail downloads); default: an HTTP GET. */
  downloadMetadata?: (url: string, signal: AbortSignal) => Promise<string>;
  /** The clock of every time rule (token lifetimes, challenges, quotas, deletion dates, reports, metadata updates, webhook retries); default Date.now. For tests. */
  now?: () => number;
  /**
   * The webhook delivery worker: how often it polls (default a second; 0 = only when
   * `webhookWorker.tick()` or `drain()` is called, for tests), and for tests its DNS lookup, jitter
   * and timeouts. Its schedule follows `now`.
   */
  webhooks?: Partial<Omit<WebhookWorkerOptions, 'now'>>;
}

/** Every domain service, wired once per process. Routes receive this and nothing from Express leaks in. */
export interface Services {
  config: Config;
  store: Store;
  keys: ApiKeyAuthenticator;
  /** Refused keys, tallied for the event log (one event per key id and address a minute). */
  failedKeyUses: FailedKeyUses;
  apps: AppsService;
  features: AppFeaturesCache;
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
  /** The FIDO metadata (MDS_BLOB_FILE, MDS_URL), for the /mds listings, the lists and registration. */
  metadata: AuthenticatorMetadata;
  authenticators: AuthenticatorLists;
  reports: DailyReports;
  /** Successful sign-ins by app, UTC day and method, counted in memory and written every flush interval (`flush()`; read them through `reports.signInMethods`). */
  signIns: SignInTally;
  /** The app's webhook endpoints (private API, management API, CLI). */
  webhooks: WebhookEndpointService;
  /** Which deliveries a change makes; written in the change's own transaction. */
  webhookOutbox: WebhookOutbox;
  /** Sends the outbox (started with the services, stopped by close). */
  webhookWorker: WebhookDeliveryWorker;
  /** Each endpoint's delivery log, redelivery and test event. */
  webhookDeliveries: WebhookDeliveryLog;
  mailer: Mailer;
  storageHealth: StorageHealth;
  /** The shared counters of the rate limits, when REDIS_URL is set. */
  redis: RedisConnection | undefined;
  /** Stops background work, writes what is buffered, and closes the store. */
  close(): Promise<void>;
}

export function createServices(config: Config, store: Store, options: ServiceOptions = {}): Services {
  traceCeremonySteps();
  const logger = options.logger ?? createLogger(config.logLevel);
  const flushIntervalMs = options.flushIntervalMs ?? 1000;
  const now = options.now ?? Date.now;
  // Read at request time only, after every service below exists.
  const features: AppFeaturesCache = new AppFeaturesCache((appId): Promise<AppFeatures> => apps.getFeatures(appId));
  const repositories = store.repositories({ now, outboxQuota: config.webhookDelivery.outboxQuota, logger });
  // Whether an app logs is read when a batch is written, from the cached features; an app the
  // cache already knows not to log has its events dropped when they are recorded.
  const events = new EventLog({
    events: repositories.events,
    isLoggingEnabled: async (appId) => (await features.get(appId)).eventLoggingIsEnabled,
    logger,
    options: { flushIntervalMs, now, knownLogging: (appId) => features.peek(appId)?.eventLoggingIsEnabled },
  });
  const incarnations = new AppIncarnations();
  const { outbox: webhookOutbox } = repositories;
  const failedKeyUses = new FailedKeyUses({ events, logger, now });
  const keys = new ApiKeyAuthenticator({ keys: repositories.apiKeys, apps: repositories.apps, failures: failedKeyUses, incarnations });
  const tokens = new TokenService({ tokenKeys: repositories.tokenKeys, now, incarnations, encryption: config.tokenKeyEncryption });
  const caches = appCaches(
    { keys, features, tokens, incarnations, webhooks: webhookOutbox },
    options.appChangeNotifications !== false ? repositories.appChanges : undefined,
  );
  const webhooks = new WebhookEndpointService({
    endpoints: repositories.webhookEndpoints,
    apps: repositories.apps,
    policy: config.webhooks,
    encryption: config.tokenKeyEncryption,
    changed: caches.changed,
    events,
    now,
    lookup: options.webhooks?.lookup,
  });
  const webhookWorker = new WebhookDeliveryWorker({
    deliveries: repositories.webhookDeliveries,
    endpoints: repositories.webhookEndpoints,
    policy: config.webhooks,
    encryption: config.tokenKeyEncryption,
    endpointDisabled: caches.changed,
    logger,
    options: {
      // WEBHOOK_WORKER off: this process only writes the outbox; others send it.
      pollIntervalMs: config.webhookWorker ? 1000 : 0,
      timeoutMs: config.webhookDelivery.timeoutMs,
      leaseMs: config.webhookDelivery.leaseMs,
      ...options.webhooks,
      now,
    },
  });
  webhookOutbox.onWritten((endpointIds) => webhookWorker.nudge(endpointIds));
  const apps = new AppsService({
    apps: repositories.apps,
    keys: repositories.apiKeys,
    events,
    defaults: { sdkCompatibleLists: config.sdkCompatibleLists, magicLinkMonthlyQuota: config.magicLinkMonthlyQuota },
    onAppChanged: caches.changed,
    logger,
  });
  const challenges = new ChallengeStore({ redemptions: repositories.redemptions, now, timeoutMs: config.ceremonyTimeoutMs });
  const aliases = new AliasService({ aliases: repositories.aliases, events });
  const authConfigs = new AuthConfigService({ configs: repositories.authConfigs, events, now });
  const mailer = createMailer(config);
  // Loaded only when configured: the Redis client takes a second to load, which every CLI command would pay.
  const redis = config.redisUrl ? (require('../redis/connection') as typeof import('../redis/connection')).connectRedis(config.redisUrl, logger) : undefined;
  const magicLinks = new MagicLinkService({
    sends: repositories.magicLinks,
    tokens,
    mailer,
    events,
    logger,
    newAppPeriodSeconds: config.magicLinkNewAppPeriodSeconds,
    now,
  });
  const deletions = new AppDeletionService({
    apps: repositories.apps,
    tokens,
    mailer,
    events,
    logger,
    publicUrl: config.publicUrl,
    onAppChanged: caches.changed,
    now,
  });
  const metadata = new AuthenticatorMetadata({
    sources: { blobFile: config.mdsBlobFile, url: config.mdsUrl, trustedRoots: config.mdsTrustedRoots },
    logger,
    now,
    download: options.downloadMetadata,
  });
  const authenticators = new AuthenticatorLists({ lists: repositories.authenticatorLists, features, metadata, events, now });
  const signIns = new SignInTally({ reports: repositories.reports, logger, now });
  const reports = new DailyReports({ reports: repositories.reports, users: repositories.users, logger, signIns, now });
  const background = startBackgroundJobs(
    { challenges, events, magicLinks, authConfigs, signIns, deletions, reports, metadata, failedKeyUses, webhookWorker },
    {
      flushIntervalMs,
      deletionSweepIntervalMs: options.deletionSweepIntervalMs,
      reportSweepIntervalMs: options.reportSweepIntervalMs,
      metadataRefreshIntervalMs: options.metadataRefreshIntervalMs,
    },
    logger,
  );

  return {
    config,
    store,
    keys,
    failedKeyUses,
    apps,
    features,
    tokens,
    challenges,
    aliases,
    registration: new RegistrationService({
      registrations: repositories.registrations,
      credentials: repositories.credentials,
      redemptions: repositories.redemptions,
      tokens,
      challenges,
      aliases,
      features,
      events,
      now,
      authenticators: new AuthenticatorPolicy({ metadata, lists: authenticators, features }),
    }),
    signin: new SigninService({ credentials: repositories.credentials, tokens, challenges, aliases, features, authConfigs, events, now }),
    verification: new VerificationService({ redemptions: repositories.redemptions, tokens, features, events, signIns, now }),
    credentials: new CredentialService({
      credentials: repositories.credentials,
      events,
      authenticatorNames: authenticatorNames(metadata, providerNames(config.aaguidNamesFile)),
    }),
    users: new UserService({ users: repositories.users, events }),
    authConfigs,
    events,
    magicLinks,
    deletions,
    metadata,
    authenticators,
    reports,
    signIns,
    webhooks,
    webhookOutbox,
    webhookWorker,
    webhookDeliveries: new WebhookDeliveryLog({ deliveries: repositories.webhookDeliveries, endpoints: repositories.webhookEndpoints, events, now }),
    mailer,
    storageHealth: repositories.storageHealth,
    redis,
    async close() {
      await background.stop();
      await events.close();
      mailer.close();
      await redis?.close();
      await caches.close();
      await store.close();
    },
  };
}
