import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { ciObject, customerUserId, looseString, optionalSeconds } from '../../core/validation';
import type { MagicLinkRepository, ReservedSend } from '../../store/repositories';
import { emailAddress } from '../apps/apps';
import type { EventLog } from '../events/eventLog';
import type { Mailer } from '../../mail/mailer';
import { magicLinkMessage } from './magicLinkMessage';
import { fillLinkTemplate, linkTemplateProblem } from './linkTemplate';
import { MAX_TOKEN_LIFETIME_MS, humanizeSeconds, type TokenService } from '../tokens/tokenService';
import { newVerifyPayload } from '../tokens/verifyTokens';

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
  sends: MagicLinkRepository;
  tokens: TokenService;
  mailer: Mailer;
  events: EventLog;
  logger: Logger;
  /** Apps younger than this may only mail their admin address (0: no such rule). */
  newAppPeriodSeconds: number;
  now?: () => number;
}

/**
 * `/magic-links/send`: checks the app's switch, the new-app rule and the sliding 30-day quota, then
 * mails a link carrying a reusable `magic_link` verify token. Only the moment of each send is
 * stored (for the quota); never the address, the user or the link.
 */
export class MagicLinkService {
  private readonly sends: MagicLinkRepository;
  private readonly tokens: TokenService;
  private readonly mailer: Mailer;
  private readonly events: EventLog;
  private readonly logger: Logger;
  private readonly newAppPeriodSeconds: number;
  private readonly now: () => number;

  constructor(deps: MagicLinkServiceDeps) {
    this.sends = deps.sends;
    this.tokens = deps.tokens;
    this.mailer = deps.mailer;
    this.events = deps.events;
    this.logger = deps.logger;
    this.newAppPeriodSeconds = deps.newAppPeriodSeconds;
    this.now = deps.now ?? Date.now;
  }

  async send(appId: string, input: z.output<typeof sendMagicLinkSchema>): Promise<void> {
    const app = await this.sends.settings(appId);
    if (!app) throw new ApiError('app_not_found');
    if (!app.isMagicLinksEnabled) throw new ApiError('magic_links_disabled');
    if (this.now() - app.createdAt.getTime() < this.newAppPeriodSeconds * 1000 && input.emailAddress.toLowerCase() !== app.adminEmail.toLowerCase()) {
      throw new ApiError('magic_link_email_admin_address_only', {
        title: `Because your application has been created less than ${humanizeSeconds(this.newAppPeriodSeconds)} ago, you can only request magic links to the admin email address.`,
      });
    }
    // The webhook is written held with the send's quota row, before the mail; see reserve().
    const send = await this.reserve(appId, app.magicLinkEmailMonthlyQuota, input.userId);

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
      await this.sends.unreserve(send); // not sent, so neither counted nor reported
      // The error's message may quote the server's reply; its codes say enough and carry no token.
      const { code, responseCode, command } = error as { code?: string; responseCode?: number; command?: string };
      this.logger.warn({ tenant: appId, mailer: this.mailer.kind, code, responseCode, command }, 'magic link mail delivery failed');
      throw new ApiError('mail_delivery_failed');
    }
    this.events.record(appId, { type: 'ApiUserMagicLinkCreated', message: 'Sent a magic link.', subject: input.userId, performedBy: input.userId });
    await this.release(send);
  }

  /** The mail is gone: its held `magic_link.sent` deliveries are due now. Should this fail, the hold running out sends them. */
  private async release(send: ReservedSend): Promise<void> {
    try {
      await this.sends.release(send, this.now());
    } catch (error) {
      this.logger.warn({ tenant: send.appId, err: { name: (error as Error).name } }, 'magic_link.sent webhook left held until its hold runs out');
    }
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
  private async reserve(appId: string, quota: number, userId: string): Promise<ReservedSend> {
    const now = this.now();
    const since = now - QUOTA_WINDOW_MS;
    const { send, sent } = await this.sends.reserve(appId, { at: now, heldUntil: now + MAGIC_LINK_SENT_HOLD_MS, since }, { type: 'magic_link.sent', data: { userId } });
    if (sent <= quota) return send;
    await this.sends.unreserve(send);
    // A slot frees up when the oldest sends beyond the quota leave the window.
    const others = sent - 1;
    const freeing = quota > 0 ? await this.sends.sentAtOffset(appId, since, others - quota) : undefined;
    const retryAfterMs = freeing !== undefined ? freeing + QUOTA_WINDOW_MS - now : QUOTA_WINDOW_MS;
    throw new ApiError('magic_link_email_quota_exceeded', {
      detail: `This application may send ${quota} magic-link emails in any 30 days.`,
      headers: { 'Retry-After': String(Math.max(1, Math.ceil(retryAfterMs / 1000))) },
    });
  }

  /** Housekeeping: sends older than the quota window no longer count. */
  async sweep(): Promise<void> {
    await this.sends.dropSentUntil(this.now() - QUOTA_WINDOW_MS);
  }
}
