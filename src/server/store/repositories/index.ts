import type { Logger } from 'pino';
import type { Store } from '..';
import { StorageHealth } from '../storageHealth';
import { listenForAppChanges, type AppChangeFeed, type AppChangeHandlers } from '../appChangeFeed';
import { AliasRepository } from './aliases';
import { ApiKeyRepository } from './apiKeys';
import { AppRepository } from './apps';
import { AuthConfigRepository } from './authConfigs';
import { AuthenticatorListRepository } from './authenticators';
import { CredentialRepository } from './credentials';
import { EventRepository } from './events';
import { MagicLinkRepository } from './magicLinks';
import { RedemptionRepository } from './redemptions';
import { RegistrationRepository } from './registrations';
import { ReportRepository } from './reports';
import { TokenKeyRepository } from './tokenKeys';
import { UserRepository } from './users';
import { WebhookDeliveryRepository } from './webhookDeliveries';
import { WebhookEndpointRepository } from './webhookEndpoints';
import { WebhookOutbox } from './webhookOutbox';
import { WebhookOutboxQuota } from './webhookOutboxQuota';

export type { AppChangeFeed, AppChangeHandlers } from '../appChangeFeed';
export type { CredentialDescriptor, CredentialUse, HotCredential, StoredCredential } from '../sql/queries';
export type { NewAlias, UserSummary, UsersPage } from '../sql/queries';
export type { EventKey, EventsFilter, NewEvent, StoredEvent } from '../sql/queries';
export type { ClaimedDelivery, WebhookAttemptRow, WebhookClaim } from './webhookDeliveries';
export type { StorageHealth } from '../storageHealth';
export type { AliasRepository, StoredAlias } from './aliases';
export type { ApiKeyRepository, NewApiKey, StoredApiKey } from './apiKeys';
export type { AppKeyState, AppRepository, AppSettings, NewApp, NewDeletion, ScheduledDeletion, StoredApp } from './apps';
export type { AuthConfigChanges, AuthConfigRepository, AuthConfigRule, NewAuthConfig, StoredAuthConfig } from './authConfigs';
export type { AuthenticatorListRepository } from './authenticators';
export type { CredentialRepository } from './credentials';
export type { EventRepository, EventsPage } from './events';
export type { MagicLinkRepository, MagicLinkSettings, ReservedSend } from './magicLinks';
export type { RedemptionRepository } from './redemptions';
export type { PasskeyRegistration, RegistrationOutcome, RegistrationRepository } from './registrations';
export type { DailyReportRow, ReportRepository, SignInCountRow } from './reports';
export type { AppTokenKeyRows, StoredTokenKey, TokenKeyRepository } from './tokenKeys';
export type { AppTotals, UserRepository } from './users';
export type { WebhookDeliveryRepository, LoggedWebhookDelivery, ReplayedDelivery, RequestedSend, WebhookDeliveryOutcome, WebhookBacklog } from './webhookDeliveries';
export type { WebhookEndpointRepository, NewWebhookEndpoint, StoredWebhookEndpoint, StoredWebhookSecrets, WebhookEndpointChange, WebhookEndpointRow } from './webhookEndpoints';
export type { NotQueuedReason, WebhookData, WebhookEvent, WebhookOutbox } from './webhookOutbox';
export type { WebhookOutboxQuota } from './webhookOutboxQuota';

/** What the repositories take from the service's configuration. */
export interface RepositoryOptions {
  /** The clock of the rows' times (deliveries' creation and due times). */
  now: () => number;
  /** WEBHOOK_OUTBOX_QUOTA: pending deliveries an app may have. */
  outboxQuota: number;
  logger: Logger;
}

/** Opens the feed that tells every replica of a changed app (see `Repositories.appChanges`). */
export type AppChangeFeedOpener = (handlers: AppChangeHandlers) => AppChangeFeed;

/** The store as the services see it: one repository per area, each over the store's one SQL layer. */
export interface Repositories {
  /** Which deliveries a change makes, and the worker's wake-up once they are committed. */
  outbox: WebhookOutbox;
  outboxQuota: WebhookOutboxQuota;
  credentials: CredentialRepository;
  users: UserRepository;
  aliases: AliasRepository;
  reports: ReportRepository;
  webhookEndpoints: WebhookEndpointRepository;
  /** The outbox's rows: the worker's claims and records, the delivery log, test events and replays. */
  webhookDeliveries: WebhookDeliveryRepository;
  events: EventRepository;
  magicLinks: MagicLinkRepository;
  authenticatorLists: AuthenticatorListRepository;
  apps: AppRepository;
  apiKeys: ApiKeyRepository;
  tokenKeys: TokenKeyRepository;
  authConfigs: AuthConfigRepository;
  /**
   * How a change to an app reaches the caches of other replicas: PostgreSQL's LISTEN/NOTIFY, on a
   * connection of its own (opened when called). Undefined on SQLite: one process has no one to tell.
   */
  appChanges: AppChangeFeedOpener | undefined;
  /** Whether the database answers, its file is still the one opened, and its migrations are the ones this build expects (/health/storage). */
  storageHealth: StorageHealth;
  /** Single-use ids: ceremony sessions, verify and register tokens. */
  redemptions: RedemptionRepository;
  registrations: RegistrationRepository;
}

/** The repositories over one open store's connections. */
export function openRepositories(parts: { store: Store; databaseUrl: string }, options: RepositoryOptions): Repositories {
  const { store, databaseUrl } = parts;
  const { db, sql, queries, provider } = store;
  const outboxQuota = new WebhookOutboxQuota({ db, limit: options.outboxQuota, logger: options.logger });
  const outbox = new WebhookOutbox({ db, sql, now: options.now, quota: outboxQuota });
  return {
    outbox,
    outboxQuota,
    credentials: new CredentialRepository({ sql, queries, outbox }),
    users: new UserRepository({ db, queries, outbox }),
    aliases: new AliasRepository({ db, queries, outbox }),
    reports: new ReportRepository({ db, sql }),
    webhookEndpoints: new WebhookEndpointRepository({ db, sql }),
    webhookDeliveries: new WebhookDeliveryRepository({ db, sql, outbox, quota: outboxQuota }),
    events: new EventRepository({ db, queries }),
    magicLinks: new MagicLinkRepository({ db, sql, outbox }),
    authenticatorLists: new AuthenticatorListRepository({ db, sql, outbox }),
    apps: new AppRepository({ db, sql, outbox }),
    apiKeys: new ApiKeyRepository({ db }),
    tokenKeys: new TokenKeyRepository({ db }),
    authConfigs: new AuthConfigRepository({ db }),
    storageHealth: new StorageHealth(store, databaseUrl),
    appChanges: provider === 'postgresql' ? (handlers) => listenForAppChanges(databaseUrl, handlers, options.logger) : undefined,
    redemptions: new RedemptionRepository({ db, queries, outbox }),
    registrations: new RegistrationRepository({ queries, outbox }),
  };
}
