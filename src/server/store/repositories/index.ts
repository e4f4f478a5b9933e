import type { Logger } from 'pino';
import type { Db } from '..';
import type { HotPath } from '../hotPath';
import { AliasRepository } from './aliases';
import { CredentialRepository } from './credentials';
import { ReportRepository } from './reports';
import { UserRepository } from './users';
import type { Provider } from '../migrate';
import { WebhookDeliveryRepository } from './webhookDeliveries';
import { WebhookEndpointRepository } from './webhookEndpoints';
import { WebhookOutbox } from './webhookOutbox';
import { WebhookOutboxQuota } from './webhookOutboxQuota';

export type { AliasRepository, StoredAlias } from './aliases';
export type { CredentialRepository } from './credentials';
export type { DailyReportRow, ReportRepository } from './reports';
export type { AppTotals, UserRepository } from './users';
export type { NewAlias, UserSummary, UsersPage } from '../hotPath';
import { AuthenticatorListRepository } from './authenticators';
import { EventRepository } from './events';
import { MagicLinkRepository } from './magicLinks';
export type { AuthenticatorListRepository } from './authenticators';
export type { EventRepository, EventsPage } from './events';
export type { EventKey, NewEvent, StoredEvent } from '../hotPath';
export type { MagicLinkRepository, MagicLinkSettings, ReservedSend } from './magicLinks';
export type { NotQueuedReason, WebhookData, WebhookEvent, WebhookOutbox } from './webhookOutbox';
export type { WebhookOutboxQuota } from './webhookOutboxQuota';
export type { WebhookEndpointRepository, NewWebhookEndpoint, StoredWebhookEndpoint, StoredWebhookSecrets, WebhookEndpointChange, WebhookEndpointRow } from './webhookEndpoints';
export type { WebhookDeliveryRepository, LoggedWebhookDelivery, ReplayedDelivery, RequestedSend, WebhookDeliveryOutcome } from './webhookDeliveries';
export type { ClaimedDelivery, WebhookClaim } from '../claimWebhookDeliveries';
export type { WebhookAttemptRow } from '../recordWebhookAttempts';

/** What the repositories take from the service's configuration. */
export interface RepositoryOptions {
  /** The clock of the rows' times (deliveries' creation and due times). */
  now: () => number;
  /** WEBHOOK_OUTBOX_QUOTA: pending deliveries an app may have. */
  outboxQuota: number;
  logger: Logger;
}

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
}

/** The repositories over one open store's connections. */
export function openRepositories(parts: { db: Db; hot: HotPath; provider: Provider }, options: RepositoryOptions): Repositories {
  const { db, hot, provider } = parts;
  const outboxQuota = new WebhookOutboxQuota({ db, limit: options.outboxQuota, logger: options.logger });
  const outbox = new WebhookOutbox({ db, now: options.now, quota: outboxQuota });
  return {
    outbox,
    outboxQuota,
    credentials: new CredentialRepository({ db, hot, outbox }),
    users: new UserRepository({ db, hot, outbox }),
    aliases: new AliasRepository({ db, hot, outbox }),
    reports: new ReportRepository({ db }),
    webhookEndpoints: new WebhookEndpointRepository({ db, provider }),
    webhookDeliveries: new WebhookDeliveryRepository({ db, provider, outbox, quota: outboxQuota }),
    events: new EventRepository({ db, hot }),
    magicLinks: new MagicLinkRepository({ db, outbox }),
    authenticatorLists: new AuthenticatorListRepository({ db, outbox }),
  };
}
