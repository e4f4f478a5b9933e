import type { Store } from 'express-rate-limit';
import { windowCounter } from './windowCounter';

/** The mails the middleware asks the service to send (each spends one of the app's monthly magic-link quota). */
export type MailKind = 'verification' | 'recovery';

/**
 * Host-wide caps on those mails, set below the service's quota, so that anonymous sign-ups cannot
 * spend it: a share of every window is kept for recovery, which sign-ups cannot touch.
 */
export interface MailBudgetSettings {
  /** Mails of both kinds per hour. Default 10. */
  perHour: number;
  /** Mails of both kinds per day (24 hours). Default 30 (the service's default quota is 1000 in 30 days). */
  perDay: number;
  /** The part of each window only recovery mails may use, 0 to 1. Default 0.3. */
  recoveryShare: number;
  /** Hears of every mail counted or refused, with the counts: alert before users notice the quota running out. */
  onUsage?: (usage: MailUsage) => void;
  /** A shared express-rate-limit store when the host runs several processes (default: in memory). */
  store?: () => Store;
}

export const DEFAULT_MAIL_BUDGET: MailBudgetSettings = { perHour: 10, perDay: 30, recoveryShare: 0.3 };

export interface MailWindowUsage {
  /** Mails of both kinds sent in the window. */
  sent: number;
  limit: number;
  /** Of those, sign-up (verification) mails, and what sign-ups may use of the window. */
  signUps: number;
  signUpLimit: number;
}

export interface MailUsage {
  hour: MailWindowUsage;
  day: MailWindowUsage;
  /** The mail this report is about; absent in `mailUsage()`'s answer. */
  kind?: MailKind;
  /** Whether that mail was allowed. */
  allowed?: boolean;
}

export interface MailBudget {
  /** Counts a mail of `kind` if the caps allow it; else nothing is counted, and the answer says when to try again. */
  take(kind: MailKind): Promise<{ allowed: true } | { allowed: false; retryAfterSeconds: number }>;
  /** Gives back a mail taken but not sent (the service refused it). */
  giveBack(kind: MailKind): Promise<void>;
  usage(): Promise<MailUsage>;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
const ALL = 'passwordless-mail-budget:all';
const SIGN_UPS = 'passwordless-mail-budget:sign-ups';

export function mailBudget(settings: MailBudgetSettings): MailBudget {
  const windows = [
    { name: 'hour' as const, limit: settings.perHour, counter: windowCounter(HOUR_MS, settings.store) },
    { name: 'day' as const, limit: settings.perDay, counter: windowCounter(DAY_MS, settings.store) },
  ];
  const signUpLimit = (limit: number) => Math.floor(limit * (1 - settings.recoveryShare));
  const keysOf = (kind: MailKind) => (kind === 'verification' ? [ALL, SIGN_UPS] : [ALL]);

  async function usage(): Promise<MailUsage> {
    const [hour, day] = await Promise.all(
      windows.map(async ({ limit, counter }) => ({ sent: await counter.peek(ALL), limit, signUps: await counter.peek(SIGN_UPS), signUpLimit: signUpLimit(limit) })),
    );
    return { hour, day };
  }

  const report = async (kind: MailKind, allowed: boolean) => {
    if (settings.onUsage) settings.onUsage({ ...(await usage()), kind, allowed });
  };

  return {
    usage,
    async take(kind) {
      // Count first, then take back if over: two processes sharing a store cannot both pass the last slot.
      const counted: { counter: (typeof windows)[number]['counter']; key: string }[] = [];
      let retryAt = 0;
      for (const { limit, counter } of windows) {
        for (const key of keysOf(kind)) {
          const { count, resetAt } = await counter.hit(key);
          counted.push({ counter, key });
          if (count > (key === SIGN_UPS ? signUpLimit(limit) : limit)) retryAt = Math.max(retryAt, resetAt?.getTime() ?? Date.now() + HOUR_MS);
        }
      }
      if (retryAt > 0) {
        await Promise.all(counted.map(({ counter, key }) => counter.undo(key)));
        await report(kind, false);
        return { allowed: false, retryAfterSeconds: Math.max(1, Math.ceil((retryAt - Date.now()) / 1000)) };
      }
      await report(kind, true);
      return { allowed: true };
    },
    async giveBack(kind) {
      await Promise.all(windows.flatMap(({ counter }) => keysOf(kind).map((key) => counter.undo(key))));
    },
  };
}
