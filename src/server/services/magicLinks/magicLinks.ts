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
import type { WebhookOutbox } from '../webhooks/webhookOutbox';

const DEFAULT_TTL_SECONDS = 3600;
const QUOTA_WINDOW_MS = 30 * 86_400_000;

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

/**
 * `/magic-links/send`: checks the app's switch, the new-app rule and the sliding 30-day quota, then
 * mails a link carrying a reusable `magic_link` verify token. Only the moment of each send is
 * stored (for the quota); never the address, the user or the link.
 */
export class MagicLinkService {
  constructor(
    private readonly db: Db,
    private readonly tokens: TokenService,
    private readonly mailer: Mailer,
    private readonly events: EventLog,
    private readonly logger: Logger,
    /** Apps younger than this may only mail their admin address (0: no such rule). */
    private readonly newAppPeriodSeconds: number,
    private readonly now: () => number = Date.now,
    private readonly webhooks?: WebhookOutbox,
  ) {}

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
    const sendId = await this.reserve(appId, app.magicLinkEmailMonthlyQuota);

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
      await this.db.dispatchedEmail.deleteMany({ where: { id: sendId } }); // not sent, so not counted
      // The error's message may quote the server's reply; its codes say enough and carry no token.
      const { code, responseCode, command } = error as { code?: string; responseCode?: number; command?: string };
      this.logger.warn({ tenant: appId, mailer: this.mailer.kind, code, responseCode, command }, 'magic link mail delivery failed');
      throw new ApiError('mail_delivery_failed');
    }
    this.events.record(appId, { type: 'ApiUserMagicLinkCreated', message: 'Sent a magic link.', subject: input.userId, performedBy: input.userId });
    // Once the mail is gone (there is nothing to report before); neither the address nor the link.
    await this.webhooks?.enqueue(appId, 'magic_link.sent', { userId: input.userId }).catch((error: unknown) => {
      this.logger.warn({ tenant: appId, err: { name: (error as Error).name } }, 'magic_link.sent webhook not written');
    });
  }

  /**
   * Counts this send against the quota before mailing: insert, then count the window. Over the
   * quota, the row goes again and the answer is 429 with when a slot frees up. Two racing sends at
   * the edge may both be refused, never both let through.
   */
  private async reserve(appId: string, quota: number): Promise<string> {
    const id = randomUUID();
    const now = this.now();
    const since = new Date(now - QUOTA_WINDOW_MS);
    await this.db.dispatchedEmail.create({ data: { id, tenant: appId, createdAt: new Date(now) } });
    const sent = await this.db.dispatchedEmail.count({ where: { tenant: appId, createdAt: { gt: since } } });
    if (sent <= quota) return id;
    await this.db.dispatchedEmail.deleteMany({ where: { id } });
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
