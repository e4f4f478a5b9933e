import type { Logger } from 'pino';
import { z } from 'zod';
import { DAY_MS, utcDateOf, utcDayOf, utcDayOfDate } from '../../core/utcDay';
import { ciObject } from '../../core/validation';
import type { ReportRepository, UserRepository } from '../../store/repositories';
import type { SignInTally } from './signInTally';

/** `from` and `to`, both optional and inclusive. */
export const periodQuerySchema = ciObject({
  from: z.preprocess((v) => (v === '' ? undefined : v), z.string().refine((v) => utcDayOfDate(v) !== undefined, 'must be a date, yyyy-MM-dd').optional()),
  to: z.preprocess((v) => (v === '' ? undefined : v), z.string().refine((v) => utcDayOfDate(v) !== undefined, 'must be a date, yyyy-MM-dd').optional()),
});
export type PeriodQuery = z.output<typeof periodQuerySchema>;

/** One UTC day's successful sign-ins of an app, by method. */
export interface SignInMethodsDay {
  /** yyyy-MM-dd */
  day: string;
  /** Passkey sign-ins (`passkey_signin` tokens verified). */
  passkey: number;
  /** Magic links verified (every verify of a reusable link). */
  magicLink: number;
  /** Tokens from /signin/generate-token verified. */
  generatedToken: number;
}

/** What a `DailyReports` is built from. */
export interface DailyReportsDeps {
  reports: ReportRepository;
  /** Where the app's totals come from. */
  users: UserRepository;
  logger: Logger;
  /** This process's sign-ins not yet written: flushed before the counts are read. */
  signIns?: SignInTally;
  now?: () => number;
}

/**
 * One snapshot per app and UTC day, taken by the first sweep after the day ends (sweeps run at
 * start-up and every hour, on every replica). The primary key (app, day) lets exactly one insert
 * win; the others are ignored. Totals come from `UserRepository.totals`; daily and weekly active
 * users are the users whose passkeys were last used (signed in, or registered) on the day or the
 * six before it, or since (`ReportRepository.activeUsers`).
 */
export class DailyReports {
  private readonly reports: ReportRepository;
  private readonly users: UserRepository;
  private readonly logger: Logger;
  private readonly signIns: SignInTally | undefined;
  private readonly now: () => number;

  constructor(deps: DailyReportsDeps) {
    this.reports = deps.reports;
    this.users = deps.users;
    this.logger = deps.logger;
    this.signIns = deps.signIns;
    this.now = deps.now ?? Date.now;
  }

  /** Writes the snapshot of the day that ended last for every app that existed then and has none; returns how many this call wrote. */
  async sweep(): Promise<number> {
    const today = utcDayOf(this.now());
    const day = today - 1;
    const date = utcDateOf(day);
    const due = await this.reports.appsWithout(date, new Date(today * DAY_MS));
    let written = 0;
    for (const id of due) {
      try {
        if (await this.snapshot(id, day)) written++;
      } catch (error) {
        // One app's trouble (deleted meanwhile, say) does not hold up the others; the next sweep tries again.
        this.logger.warn({ appId: id, err: { name: (error as Error).name, message: (error as Error).message } }, 'daily report failed');
      }
    }
    return written;
  }

  /** Inserts one app's snapshot of `day`; false when another sweep wrote it first. */
  private async snapshot(appId: string, day: number): Promise<boolean> {
    const [totals, dailyActiveUsers, weeklyActiveUsers] = await Promise.all([this.users.totals(appId), this.reports.activeUsers(appId, day), this.reports.activeUsers(appId, day - 6)]);
    return this.reports.insert({ tenant: appId, day: utcDateOf(day), users: totals.users, credentials: totals.credentials, dailyActiveUsers, weeklyActiveUsers, createdAt: new Date(this.now()) });
  }

  private rows(appId: string, period: PeriodQuery) {
    return this.reports.list(appId, period.from, period.to);
  }

  /** `GET /reporting/credentials/periodic`. */
  async credentials(appId: string, period: PeriodQuery) {
    return (await this.rows(appId, period)).map((r) => ({ createdAt: r.day, users: r.users, credentials: r.credentials }));
  }

  /** `GET /reporting/active-users/periodic`. */
  async activeUsersReport(appId: string, period: PeriodQuery) {
    return (await this.rows(appId, period)).map((r) => ({ createdAt: r.day, dailyActiveUsers: r.dailyActiveUsers, weeklyActiveUsers: r.weeklyActiveUsers, totalUsers: r.users }));
  }

  /**
   * The app's successful sign-ins by method, one entry per UTC day that had any, oldest first;
   * `from` and `to` (yyyy-MM-dd) optional and inclusive. What this process counted is written
   * first; other replicas' counts show within their flush interval.
   */
  async signInMethods(appId: string, period: PeriodQuery): Promise<SignInMethodsDay[]> {
    await this.signIns?.flush();
    return (await this.reports.signIns(appId, period.from, period.to)).map((r) => ({ day: r.day, passkey: r.passkey, magicLink: r.magicLink, generatedToken: r.generatedToken }));
  }
}
