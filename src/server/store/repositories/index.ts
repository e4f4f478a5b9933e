import type { Logger } from 'pino';
import type { Db } from '..';
import type { HotPath } from '../hotPath';
import { CredentialRepository } from './credentials';
import { RedemptionRepository } from './redemptions';
import { RegistrationRepository } from './registrations';
import { WebhookOutbox } from './webhookOutbox';
import { WebhookOutboxQuota } from './webhookOutboxQuota';

export type { CredentialRepository } from './credentials';
export type { RedemptionRepository } from './redemptions';
export type { PasskeyRegistration, RegistrationOutcome, RegistrationRepository } from './registrations';
export type { CredentialUse, HotCredential } from '../hotPath';
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

/** The store as the services see it: one repository per area, each over the store's one SQL layer. */
export interface Repositories {
  /** Which deliveries a change makes, and the worker's wake-up once they are committed. */
  outbox: WebhookOutbox;
  outboxQuota: WebhookOutboxQuota;
  credentials: CredentialRepository;
  /** Single-use ids: ceremony sessions, verify and register tokens. */
  redemptions: RedemptionRepository;
  registrations: RegistrationRepository;
}

/** The repositories over one open store's connections. */
export function openRepositories(parts: { db: Db; hot: HotPath }, options: RepositoryOptions): Repositories {
  const { db, hot } = parts;
  const outboxQuota = new WebhookOutboxQuota({ db, limit: options.outboxQuota, logger: options.logger });
  const outbox = new WebhookOutbox({ db, now: options.now, quota: outboxQuota });
  return {
    outbox,
    outboxQuota,
    credentials: new CredentialRepository({ db, hot, outbox }),
    redemptions: new RedemptionRepository({ db, hot, outbox }),
    registrations: new RegistrationRepository({ hot, outbox }),
  };
}
