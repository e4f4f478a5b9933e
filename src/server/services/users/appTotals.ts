import type { Db } from '../../store';

export interface AppTotals {
  /** Distinct users with at least one passkey. */
  users: number;
  credentials: number;
}

/**
 * An app's total users and passkeys, for the daily reports.
 *
 * SEAM: these are plain COUNTs, whose cost grows with the app. Exact per-app counters kept in the
 * same transaction as every credential write are being added separately; when they land, this
 * function reads them instead and the reports cost the same at any size. Nothing else counts.
 */
export async function appTotals(db: Db, appId: string): Promise<AppTotals> {
  const [users, credentials] = await Promise.all([
    db.credential.groupBy({ by: ['userId'], where: { tenant: appId } }),
    db.credential.count({ where: { tenant: appId } }),
  ]);
  return { users: users.length, credentials };
}
