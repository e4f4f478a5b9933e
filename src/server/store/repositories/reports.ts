import { isForeignKeyViolation, isUniqueViolation } from '../../core/storeErrors';
import type { Db } from '..';
import type { SqlDriver } from '../sql/driver';

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

/** One app's successful sign-ins of one UTC day, by the kind of token verified. */
export interface SignInCountRow {
  tenant: string;
  /** The UTC day, yyyy-MM-dd. */
  day: string;
  passkey: number;
  magicLink: number;
  generatedToken: number;
}

/** What a `ReportRepository` is built from. */
export interface ReportRepositoryDeps {
  db: Db;
  sql: SqlDriver;
}

/**
 * The daily reports: one row per app and UTC day, keyed (app, day), written by the sweeps (once a
 * day per app, never per request) and read by the reporting API, through Prisma. And the sign-in
 * counts, one row per app and UTC day too: added to by the tallies' flushes (one statement of the
 * SQL layer per flush, never per request), read through Prisma.
 */
export class ReportRepository {
  private readonly db: Db;
  private readonly sql: SqlDriver;

  constructor(deps: ReportRepositoryDeps) {
    this.db = deps.db;
    this.sql = deps.sql;
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

  /**
   * Adds a flush's counts to what each (app, day) holds: one upsert of all of them, committed as
   * a whole or not at all (a flush holds one row per app and day that had sign-ins since the last,
   * so its size follows the apps, never the requests). When an app of the flush is gone (deleted
   * after its sign-ins were counted, here or on another replica) the statement fails on the
   * foreign key; then one read finds the apps still there, and their rows are written again.
   */
  async addSignIns(rows: SignInCountRow[]): Promise<void> {
    if (rows.length === 0) return;
    try {
      await this.sql.write('addSignInCounts', { signIns: JSON.stringify(rows) });
    } catch (error) {
      if (!isForeignKeyViolation(error)) throw error;
      const appIds = [...new Set(rows.map((r) => r.tenant))];
      const alive = new Set((await this.db.app.findMany({ where: { id: { in: appIds } }, select: { id: true } })).map((a) => a.id));
      const kept = rows.filter((r) => alive.has(r.tenant));
      if (kept.length > 0) await this.sql.write('addSignInCounts', { signIns: JSON.stringify(kept) });
    }
  }

  /** The app's sign-in counts from `from` to `to` (yyyy-MM-dd, inclusive, either open), oldest first: one range read on the key. */
  signIns(appId: string, from: string | undefined, to: string | undefined): Promise<SignInCountRow[]> {
    return this.db.signInCount.findMany({ where: { tenant: appId, day: { gte: from, lte: to } }, orderBy: { day: 'asc' } });
  }
}
