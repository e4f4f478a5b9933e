import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, customerUserId, looseString, optionalSeconds } from '../../core/validation';
import type { Db } from '../../store';
import { emailAddress } from '../apps/apps';
import type { EventLog } from '../events/eventLog';
import type { Mailer } from '../../mail/mailer';
import { magicLinkMessage } from './magicLinkMessage';
import { fillLinkTemplate, linkTemplateProblem } from './linkTemplate';
import { MAX_TOKEN_LIFETIME_MS, humanizeSeconds, type TokenService } from '../tokens/tokenService';
import { newVerifyPayload } from '../tokens/verifyTokens';
import { rowsOf, type WebhookOutbox } from '../../store/repositories/webhookOutbox';
import type { NewWebhookDelivery } from '../../store';

const DEFAULT_TTL_SECONDS = 3600;
const QUOTA_WINDOW_MS = 30 * 86_400_000;

/**
 * How long a `magic_link.sent` delivery is held when the process that mails the link does not
 * release it (it died between the mail and the release): longer than a send can take (the SMTP
 * transport's timeouts are 10 s to connect, 10 s for the greeting and 30 s of silence per step),
 * so a mail that fails has its delivery deleted before this runs out.
 */
export const MAGIC_LINK_SENT_HOLD_MS = 10 * 60_000;

/** An absolute http(s) URL with the `$TOKEN` placeholder (exact case: it is what gets replaced); see linkTemplate.ts. */
const urlTemplate = () =>
  looseString()
    .pipe(z.string().min(1, 'is required').max(2048, 'must be at most 2048 characters'))
    .superRefine((template, ctx) => {
      const problem = linkTemplateProblem(template);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    });

export const sendMagicLinkSchema = ciObject({
  emailAddress: looseString().pipe(z.string().max(254, 'must be at most 254 characters')).pipe(emailAddress()),
  urlTemplate: urlTemplate(),
  userId: customerUserId(),
  timeToLive: optionalSeconds(MAX_TOKEN_LIFETIME_MS / 1000),
});

/** What a `MagicLinkService` is built from. */
export interface MagicLinkServiceDeps {
  db: Db;
  tokens: TokenService;
  mailer: Mailer;
  events: EventLog;
  logger: Logger;
  /** Apps younger than this may only mail their admin address (0: no such rule). */
  newAppPeriodSeconds: number;
  now?: () => number;
  webhooks?: WebhookOutbox;
}

/**
 * `/magic-links/send`: checks the app's switch, the new-app rule and the sliding 30-day quota, then
 * mails a link carrying a reusable `magic_link` verify token. Only the moment of each send is
 * stored (for the quota); never the address, the user or the link.
 */
export class MagicLinkService {
  private readonly db: Db;
  private readonly tokens: TokenService;
  private readonly mailer: Mailer;
  private readonly events: EventLog;
  private readonly logger: Logger;
  private readonly newAppPeriodSeconds: number;
  private readonly now: () => number;
  private readonly webhooks?: WebhookOutbox;

  constructor(deps: MagicLinkServiceDeps) {
    this.db = deps.db;
    this.tokens = deps.tokens;
    this.mailer = deps.mailer;
    this.events = deps.events;
    this.logger = deps.logger;
    this.newAppPeriodSeconds = deps.newAppPeriodSeconds;
    this.now = deps.now ?? Date.now;
    this.webhooks = deps.webhooks;
  }

  async send(appId: string, input: z.output<typeof sendMagicLinkSchema>): Promise<void> {
    const app = await this.db.app.findUnique({
      where: { id: appId },
      select: { createdAt: true, adminEmail: true, isMagicLinksEnabled: true, magicLinkEmailMonthlyQuota: true },
    });
    if (!app) throw new ApiError('app_not_found');
    if (!app.isMagicLinksEnabled) throw new ApiError('magic_links_disabled');
    if (this.now() - app.createdAt.getTime() < this.newAppPeriodSeconds * 1000 && input.emailAddress.toLowerCase() !== app.adminEmail.toLowerCase()) {
      throw new ApiError('magic_link_email_admin_address_only', {
        title: `Because your application has been created less than ${humanizeSeconds(this.newAppPeriodSeconds)} ago, you can only request magic links to the admin email address.`,
      });
    }
    // The webhook is written held with the send's quota row, before the mail; see reserve().
    const deliveries = await this.webhooks?.deliveriesFor(appId, 'magic_link.sent', { userId: input.userId });
    const sendId = await this.reserve(appId, app.magicLinkEmailMonthlyQuota, deliveries);

    const ttlSeconds = input.timeToLive ?? DEFAULT_TTL_SECONDS;
    const token = await this.tokens.issue(
      'verify',
      newVerifyPayload(
        {
          app: appId,
          type: 'magic_link',
          ttlSeconds,
          userId: input.userId,
          rpId: null,
          origin: null,
          device: null,
          country: null,
          nickname: null,
          credentialId: null,
          purpose: null,
          backupEligible: null,
          backupState: null,
        },
        this.now(),
      ),
    );
    const link = fillLinkTemplate(input.urlTemplate, token);
    try {
      await this.mailer.send(magicLinkMessage(input.emailAddress, link, ttlSeconds));
    } catch (error) {
      await this.unreserve(sendId, deliveries); // not sent, so neither counted nor reported
      // The error's message may quote the server's reply; its codes say enough and carry no token.
      const { code, responseCode, command } = error as { code?: string; responseCode?: number; command?: string };
      this.logger.warn({ tenant: appId, mailer: this.mailer.kind, code, responseCode, command }, 'magic link mail delivery failed');
      throw new ApiError('mail_delivery_failed');
    }
    this.events.record(appId, { type: 'ApiUserMagicLinkCreated', message: 'Sent a magic link.', subject: input.userId, performedBy: input.userId });
    await this.release(appId, deliveries);
  }

  /** The mail is gone: its held `magic_link.sent` deliveries are due now. Should this fail, the hold running out sends them. */
  private async release(appId: string, deliveries: NewWebhookDelivery[] | undefined): Promise<void> {
    if (!deliveries) return;
    try {
      await this.db.webhookDelivery.updateMany({ where: unclaimed(deliveries), data: { nextAttemptAt: new Date(this.now()) } });
      this.webhooks?.written(deliveries);
    } catch (error) {
      this.logger.warn({ tenant: appId, err: { name: (error as Error).name } }, 'magic_link.sent webhook left held until its hold runs out');
    }
  }

  /** The send did not happen (over the quota, or the mail failed): its quota row and its held deliveries go together. */
  private async unreserve(sendId: string, deliveries: NewWebhookDelivery[] | undefined): Promise<void> {
    await this.db.$transaction([this.db.dispatchedEmail.deleteMany({ where: { id: sendId } }), ...(deliveries ? [this.db.webhookDelivery.deleteMany({ where: unclaimed(deliveries) })] : [])]);
  }

  /**
   * Counts this send against the quota before mailing: insert, then count the window. Over the
   * quota, the row goes again and the answer is 429 with when a slot frees up. Two racing sends at
   * the edge may both be refused, never both let through.
   *
   * The send's `magic_link.sent` deliveries are written in the same transaction, held (due only
   * after MAGIC_LINK_SENT_HOLD_MS): written after the mail instead, a crash or a database error
   * between the two would lose the event of a mail that went out; due at once, a receiver could
   * hear of a mail that then fails. Once the mail is gone they are released (due now); if it
   * fails they are deleted with the quota row; if the process dies in between, the hold runs out
   * and they are sent, the mail having most likely gone. While held, each is its endpoint's oldest
   * pending delivery, so what the app reports to that endpoint meanwhile waits behind it, in order.
   */
  private async reserve(appId: string, quota: number, deliveries: NewWebhookDelivery[] | undefined): Promise<string> {
    const id = randomUUID();
    const now = this.now();
    const since = new Date(now - QUOTA_WINDOW_MS);
    await this.db.$transaction([
      this.db.dispatchedEmail.create({ data: { id, tenant: appId, createdAt: new Date(now) } }),
      ...(deliveries ? [this.db.webhookDelivery.createMany({ data: rowsOf(deliveries, now + MAGIC_LINK_SENT_HOLD_MS) })] : []),
    ]);
    const sent = await this.db.dispatchedEmail.count({ where: { tenant: appId, createdAt: { gt: since } } });
    if (sent <= quota) return id;
    await this.unreserve(id, deliveries);
    // A slot frees up when the oldest sends beyond the quota leave the window.
    const others = sent - 1;
    const freeing = quota > 0 ? await this.db.dispatchedEmail.findFirst({ where: { tenant: appId, createdAt: { gt: since } }, orderBy: { createdAt: 'asc' }, skip: others - quota, select: { createdAt: true } }) : null;
    const retryAfterMs = freeing ? freeing.createdAt.getTime() + QUOTA_WINDOW_MS - now : QUOTA_WINDOW_MS;
    throw new ApiError('magic_link_email_quota_exceeded', {
      detail: `This application may send ${quota} magic-link emails in any 30 days.`,
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    });
  }

  /** Housekeeping: sends older than the quota window no longer count. */
  async sweep(): Promise<void> {
    await this.db.dispatchedEmail.deleteMany({ where: { createdAt: { lte: new Date(this.now() - QUOTA_WINDOW_MS) } } });
  }
}

/** Held deliveries no worker has touched: a hold that ran out may have let one be claimed or sent, and what was sent stays on record. */
const unclaimed = (deliveries: NewWebhookDelivery[]) => ({ id: { in: deliveries.map((d) => d.id) }, state: 'pending', attempts: 0, leaseUntil: null });
