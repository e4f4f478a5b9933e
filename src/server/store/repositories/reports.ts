import { isUniqueViolation } from '../../core/storeErrors';
import type { Db } from '..';

/** One app's snapshot of one UTC day. */
export interface DailyReportRow {
  tenant: string;
  /** The UTC day reported, yyyy-MM-dd. */
  day: string;
  users: number;
  credentials: number;
  dailyActiveUsers: number;
  weeklyActiveUsers: number;
  createdAt: Date;
}

/** What a `ReportRepository` is built from. */
export interface ReportRepositoryDeps {
  db: Db;
}

/**
 * The daily reports: one row per app and UTC day, keyed (app, day), written by the sweeps (once a
 * day per app, never per request) and read by the reporting API. All through Prisma.
 */
export class ReportRepository {
  private readonly db: Db;

  constructor(deps: ReportRepositoryDeps) {
    this.db = deps.db;
  }

  /** The ids of the apps created before `createdBefore` that have no report of `day` (yyyy-MM-dd), in id order: one read. */
  async appsWithout(day: string, createdBefore: Date): Promise<string[]> {
    const rows = await this.db.app.findMany({ where: { createdAt: { lt: createdBefore }, dailyReports: { none: { day } } }, select: { id: true }, orderBy: { id: 'asc' } });
    return rows.map((row) => row.id);
  }

  /**
   * How many users of the app have a passkey last used on `sinceDay` (a UTC day number) or later:
   * a range on the (tenant, lastUsedDay, userId) index, grouped by user, so the cost follows the
   * active users, never all passkeys.
   */
  async activeUsers(appId: string, sinceDay: number): Promise<number> {
    return (await this.db.credential.groupBy({ by: ['userId'], where: { tenant: appId, lastUsedDay: { gte: sinceDay } } })).length;
  }

  /** Inserts one snapshot; false when the app already has one of that day (another sweep wrote it first: the key lets one insert win). */
  async insert(report: DailyReportRow): Promise<boolean> {
    try {
      await this.db.dailyReport.create({ data: report });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** The app's snapshots from `from` to `to` (yyyy-MM-dd, inclusive, either open), oldest first: one range read on the key. */
  list(appId: string, from: string | undefined, to: string | undefined): Promise<DailyReportRow[]> {
    return this.db.dailyReport.findMany({ where: { tenant: appId, day: { gte: from, lte: to } }, orderBy: { day: 'asc' } });
  }
}
