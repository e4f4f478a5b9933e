import type { Logger } from 'pino';
import type { AppDeletionService } from './apps/appDeletion';
import type { AuthConfigService } from './authConfigs';
import type { ChallengeStore } from './ceremonies/challenges';
import type { EventLog } from './events/eventLog';
import type { FailedKeyUses } from './apps/failedKeyUses';
import type { MagicLinkService } from './magicLinks/magicLinks';
import type { AuthenticatorMetadata } from './metadata/authenticatorMetadata';
import type { DailyReports } from './reporting/dailyReports';
import type { SignInTally } from './reporting/signInTally';
import type { WebhookDeliveryWorker } from './webhooks/webhookDeliveryWorker';

const REDEEMED_ID_SWEEP_INTERVAL_MS = 60_000;
const RETENTION_SWEEP_INTERVAL_MS = 3_600_000;
const DELETION_SWEEP_INTERVAL_MS = 60_000;
const REPORT_SWEEP_INTERVAL_MS = 3_600_000;
const METADATA_REFRESH_INTERVAL_MS = 3_600_000;
/** How often a minute's tally of refused keys is looked at (it is written once its minute is over). */
const FAILED_KEY_TALLY_INTERVAL_MS = 1000;

export interface BackgroundWork {
  challenges: ChallengeStore;
  events: EventLog;
  magicLinks: MagicLinkService;
  authConfigs: AuthConfigService;
  signIns: SignInTally;
  deletions: AppDeletionService;
  reports: DailyReports;
  metadata: AuthenticatorMetadata;
  failedKeyUses: FailedKeyUses;
  webhookWorker: WebhookDeliveryWorker;
}

export interface BackgroundSchedule {
  /** How often the authentication configurations' last use and the sign-in counts are written; 0 = only when stopping. */
  flushIntervalMs: number;
  /** How often pending app deletions are swept (and once at start); 0 = never on their own. */
  deletionSweepIntervalMs?: number;
  /** How often due daily reports are written (and once at start); 0 = never on their own. */
  reportSweepIntervalMs?: number;
  /** How often the FIDO metadata is refreshed (and once at start); 0 = never on its own. */
  metadataRefreshIntervalMs?: number;
}

export interface BackgroundJobs {
  /** Stops every timer, waits for a deletion sweep under way, and writes the last usage and sign-in counts. */
  stop(): Promise<void>;
}

/**
 * The work no request waits for: expired redeemed ids, event retention and the magic-link quota
 * window are swept, authentication-configuration usage and sign-in counts are written in batches,
 * app deletions fall due, each app's daily report is written, the FIDO metadata is refreshed, and
 * each minute's tally of refused keys goes to the event log. Timers are unreferenced: they never
 * keep the process alive on their own.
 */
export function startBackgroundJobs(work: BackgroundWork, schedule: BackgroundSchedule, logger: Logger): BackgroundJobs {
  const warn = (task: string) => (error: unknown) => logger.warn({ err: { name: (error as Error).name, message: (error as Error).message } }, `${task} failed`);
  const redeemedIdSweeper = setInterval(() => {
    work.challenges.sweep().catch(warn('redeemed-id sweep'));
  }, REDEEMED_ID_SWEEP_INTERVAL_MS);
  const retentionSweeper = setInterval(() => {
    work.events.sweep().catch(warn('event retention sweep'));
    work.magicLinks.sweep().catch(warn('magic-link quota sweep'));
    work.webhookWorker.sweep().catch(warn('webhook attempt retention sweep'));
  }, RETENTION_SWEEP_INTERVAL_MS);
  const writeUsage = () => {
    work.authConfigs.flushUsage().catch(warn('auth-config usage write'));
    void work.signIns.flush();
  };
  const usageWriter = schedule.flushIntervalMs > 0 ? setInterval(writeUsage, schedule.flushIntervalMs) : undefined;
  // Deletion dates are due whether or not this process was running when they passed: sweep now, then every interval.
  const deletionSweepIntervalMs = schedule.deletionSweepIntervalMs ?? DELETION_SWEEP_INTERVAL_MS;
  let deletionSweep: Promise<unknown> = Promise.resolve();
  const sweepDeletions = () => {
    deletionSweep = deletionSweep.then(() => work.deletions.sweep()).catch(warn('deletion sweep'));
  };
  const deletionSweeper = deletionSweepIntervalMs > 0 ? setInterval(sweepDeletions, deletionSweepIntervalMs) : undefined;
  if (deletionSweeper) sweepDeletions();
  // A day's report is due once the day has ended, on whichever replica sweeps first.
  const reportSweepIntervalMs = schedule.reportSweepIntervalMs ?? REPORT_SWEEP_INTERVAL_MS;
  let reportSweep: Promise<unknown> = Promise.resolve();
  const sweepReports = () => {
    reportSweep = reportSweep.then(() => work.reports.sweep()).catch(warn('daily report sweep'));
  };
  const reportSweeper = reportSweepIntervalMs > 0 ? setInterval(sweepReports, reportSweepIntervalMs) : undefined;
  if (reportSweeper) sweepReports();
  // The file is read at start by the metadata itself; a refresh downloads what MDS_URL has when due.
  const metadataRefreshIntervalMs = schedule.metadataRefreshIntervalMs ?? METADATA_REFRESH_INTERVAL_MS;
  const refreshMetadata = () => void work.metadata.refresh();
  const metadataRefresher = metadataRefreshIntervalMs > 0 && work.metadata.configured ? setInterval(refreshMetadata, metadataRefreshIntervalMs) : undefined;
  if (metadataRefresher) refreshMetadata();
  const failedKeyTallies = setInterval(() => work.failedKeyUses.recordDue(), FAILED_KEY_TALLY_INTERVAL_MS);
  // Sends the webhook outbox, from whatever earlier processes left in it too.
  work.webhookWorker.start();
  const timers = [redeemedIdSweeper, retentionSweeper, usageWriter, deletionSweeper, reportSweeper, metadataRefresher, failedKeyTallies];
  for (const timer of timers) timer?.unref();

  return {
    async stop() {
      for (const timer of timers) clearInterval(timer);
      await work.webhookWorker.stop();
      await deletionSweep;
      await reportSweep;
      await work.metadata.close();
      await work.authConfigs.flushUsage().catch(warn('auth-config usage write'));
      await work.signIns.flush();
      // Before the event log writes what it holds (services.close()).
      work.failedKeyUses.recordAll();
    },
  };
}
