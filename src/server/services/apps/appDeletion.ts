import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { MAX_NAME_LENGTH, boundedString, ciObject } from '../../core/validation';
import type { AppRepository } from '../../store/repositories';
import { APP_ID_PATTERN } from './apiKeys';
import { appNotFound } from './apps';
import { deletionWarningMessage } from './deletionWarningMessage';
import { SYSTEM } from '../events/eventTypes';
import type { EventLog } from '../events/eventLog';
import type { Mailer } from '../../mail/mailer';
import { tokenPayload, type TokenService } from '../tokens/tokenService';

const HOUR_MS = 3_600_000;
/** The spec's schedule: keys frozen after 24 hours, data deleted after 14 days. */
const KEYS_FREEZE_AFTER_MS = 24 * HOUR_MS;
const DATA_DELETED_AFTER_MS = 14 * 24 * HOUR_MS;

/** The management API's `mark-delete` body (the reference's `{appId, deletedBy}`; the id comes from the path). */
export const markDeleteSchema = ciObject({ deletedBy: boundedString(MAX_NAME_LENGTH).nullish() });

/** What an abort link's `abort_` token carries: the nonce of the deletion it cancels. */
const abortTokenSchema = tokenPayload({ nonce: z.string() });

export interface DeletionSchedule {
  message: string;
  isDeleted: false;
  keysFreezeAt: string;
  deleteAt: string;
  adminEmails: string[];
}

/** The steps one sweep performed (each app id at most once across every sweeper). */
export interface DeletionSweepReport {
  frozen: string[];
  deleted: string[];
}

/** What an `AppDeletionService` is built from. */
export interface AppDeletionServiceDeps {
  apps: AppRepository;
  tokens: TokenService;
  mailer: Mailer;
  events: EventLog;
  logger: Logger;
  /** PUBLIC_URL: where the abort link points. */
  publicUrl: string;
  /** Clears what this process caches about the app (key checks, settings, token keys). */
  onAppChanged: (appId: string) => void;
  now?: () => number;
}

/**
 * Account deletion (the spec's States table): a request freezes the app's keys after 24 hours and
 * deletes all of its data after 14 days, unless an admin cancels it with the emailed link (or the
 * operator does). The schedule lives in the App row; `sweep()` performs what is due, and each step
 * is claimed by one conditional statement, so any number of sweepers (replicas) perform it once.
 */
export class AppDeletionService {
  private readonly apps: AppRepository;
  private readonly tokens: TokenService;
  private readonly mailer: Mailer;
  private readonly events: EventLog;
  private readonly logger: Logger;
  private readonly publicUrl: string;
  private readonly onAppChanged: (appId: string) => void;
  private readonly now: () => number;

  constructor(deps: AppDeletionServiceDeps) {
    this.apps = deps.apps;
    this.tokens = deps.tokens;
    this.mailer = deps.mailer;
    this.events = deps.events;
    this.logger = deps.logger;
    this.publicUrl = deps.publicUrl;
    this.onAppChanged = deps.onAppChanged;
    this.now = deps.now ?? Date.now;
  }

  /** Schedules the deletion and mails the warning with the abort link; 502 (and nothing scheduled) if the mail cannot go. */
  async schedule(appId: string, requestedBy: string): Promise<DeletionSchedule> {
    const adminEmail = APP_ID_PATTERN.test(appId) ? await this.apps.adminEmailOf(appId) : undefined;
    if (adminEmail === undefined) throw appNotFound(appId);
    const now = this.now();
    const keysFreezeAt = new Date(now + KEYS_FREEZE_AFTER_MS);
    const deleteAt = new Date(now + DATA_DELETED_AFTER_MS);
    const nonce = randomBytes(32).toString('base64url');
    const scheduled = await this.apps.scheduleDeletion(
      appId,
      { keysFreezeAt, deleteAt, nonce },
      { type: 'app.deletion_scheduled', data: { keysFreezeAt: keysFreezeAt.toISOString(), deleteAt: deleteAt.toISOString() } },
    );
    if (!scheduled) {
      const pendingAt = await this.apps.deleteAtOf(appId);
      if (pendingAt === undefined) throw appNotFound(appId);
      throw new ApiError('app_pending_deletion', { detail: `The app '${appId}' will be deleted at ${pendingAt?.toISOString()}.` });
    }
    const token = await this.tokens.issue('abort', { app: appId, exp: deleteAt.getTime(), nonce });
    const abortLink = `${this.publicUrl}/apps/delete/cancel/${appId}?token=${encodeURIComponent(token)}`;
    try {
      await this.mailer.send(deletionWarningMessage({ to: adminEmail, appId, requestedBy, keysFreezeAt, deleteAt, abortLink }));
    } catch (error) {
      // Nobody could cancel a deletion they were never told about: undo it.
      await scheduled.undo();
      const { code, responseCode, command } = error as { code?: string; responseCode?: number; command?: string };
      this.logger.warn({ appId, mailer: this.mailer.kind, code, responseCode, command }, 'deletion warning mail delivery failed; deletion not scheduled');
      throw new ApiError('mail_delivery_failed', { detail: 'The deletion was not scheduled, because its warning could not be mailed to the admin.' });
    }
    scheduled.confirm();
    this.events.record(appId, {
      type: 'ApiManagementAppMarkedForDeletion',
      message: `The app was marked for deletion: keys freeze at ${keysFreezeAt.toISOString()}, data is deleted at ${deleteAt.toISOString()}.`,
      subject: appId,
      performedBy: requestedBy,
    });
    return {
      message: `The app '${appId}' will be deleted. Its keys stop working at ${keysFreezeAt.toISOString()} and all of its data is deleted at ${deleteAt.toISOString()}. The admin was emailed a link that cancels the deletion.`,
      isDeleted: false,
      keysFreezeAt: keysFreezeAt.toISOString(),
      deleteAt: deleteAt.toISOString(),
      adminEmails: [adminEmail],
    };
  }

  /** The operator's cancel (management API, CLI): the app is no longer pending and its keys work again. */
  async cancel(appId: string, performedBy: string): Promise<{ message: string }> {
    if (!APP_ID_PATTERN.test(appId)) throw appNotFound(appId);
    if (!(await this.cancelDeletion(appId, undefined))) {
      if (!(await this.apps.exists(appId))) throw appNotFound(appId);
      throw new ApiError('app_not_pending_deletion');
    }
    this.cancelled(appId, performedBy);
    return { message: `The deletion of the app '${appId}' was cancelled; its keys work again.` };
  }

  /** The nonce a signed link of this app carries; undefined for a forged, expired or malformed one. */
  private async nonceOfLink(appId: string, token: unknown): Promise<string | undefined> {
    if (!APP_ID_PATTERN.test(appId)) return undefined;
    try {
      return (await this.tokens.open('abort', token, appId, abortTokenSchema)).nonce;
    } catch (error) {
      if (error instanceof ApiError) return undefined;
      throw error;
    }
  }

  /**
   * Whether the emailed link would cancel the deletion now (its page asks for a confirmation first:
   * a GET, which mail scanners make, changes nothing).
   */
  async isCancelLinkValid(appId: string, token: unknown): Promise<boolean> {
    const nonce = await this.nonceOfLink(appId, token);
    return nonce !== undefined && (await this.apps.isPendingDeletion(appId, nonce));
  }

  /**
   * The emailed link, confirmed (POST): true if it cancelled the deletion. A forged, expired or
   * already used link, or one for a deletion already cancelled or carried out, is false and
   * changes nothing.
   */
  async cancelWithLink(appId: string, token: unknown): Promise<boolean> {
    const nonce = await this.nonceOfLink(appId, token);
    if (nonce === undefined) return false;
    // Single use: the nonce is cleared with the schedule, in the statement that checks it.
    if (!(await this.cancelDeletion(appId, nonce))) return false;
    this.cancelled(appId, 'Abort link');
    return true;
  }

  /** Clears the pending deletion (the one of the link's nonce, when given), reported as `app.deletion_cancelled`; whether it did. */
  private cancelDeletion(appId: string, nonce: string | undefined): Promise<boolean> {
    return this.apps.cancelDeletion(appId, nonce, { type: 'app.deletion_cancelled', data: {} });
  }

  private cancelled(appId: string, performedBy: string): void {
    this.onAppChanged(appId);
    this.events.record(appId, { type: 'ApiManagementAppDeletionCancelled', message: 'The deletion of the app was cancelled.', subject: appId, performedBy });
  }

  /** Performs every due step: freezes keys past keysFreezeAt, deletes apps past deleteAt (data and all). */
  async sweep(): Promise<DeletionSweepReport> {
    const now = new Date(this.now());
    const due = await this.apps.dueDeletions(now);
    const report: DeletionSweepReport = { frozen: [], deleted: [] };
    for (const app of due) {
      if (app.deleteAt && app.deleteAt <= now) {
        if (await this.purge(app.id, now)) report.deleted.push(app.id);
      } else if (await this.freeze(app.id, now)) {
        report.frozen.push(app.id);
      }
    }
    return report;
  }

  private async freeze(appId: string, now: Date): Promise<boolean> {
    if (!(await this.apps.freezeKeysForDeletion(appId, now))) return false; // another sweeper did it, or the deletion was cancelled meanwhile
    this.onAppChanged(appId);
    this.logger.info({ appId }, 'app pending deletion: keys frozen');
    this.events.record(appId, { type: 'ApiManagementAppFrozenForDeletion', message: 'The app is being deleted: its keys were frozen.', subject: appId, performedBy: SYSTEM });
    return true;
  }

  /** One DELETE of the App row; the foreign keys' cascades take every row of the app with it. */
  private async purge(appId: string, now: Date): Promise<boolean> {
    if (!(await this.apps.purge(appId, now))) return false;
    this.onAppChanged(appId);
    this.logger.info({ appId }, 'app pending deletion: all data deleted');
    return true;
  }
}
