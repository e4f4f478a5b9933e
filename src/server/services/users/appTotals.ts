import type { Db, HotPath } from '../../store';

export interface AppTotals {
  /** Distinct users with at least one passkey. */
  users: number;
  credentials: number;
}

/**
 * An app's total users and passkeys, for the daily reports (once a day per app, never per request).
 *
 * Users are the kept count (AppCounter.userCount, one primary-key read). Passkeys are counted on
 * the (tenant, userId) index: keeping that count too would put a write on the app's counter row in
 * every registration, where concurrent registrations would queue for it, to save one index count a day.
 */
export async function appTotals(db: Db, hot: HotPath, appId: string): Promise<AppTotals> {
  const [users, credentials] = await Promise.all([hot.countUsers(appId), db.credential.count({ where: { tenant: appId } })]);
  return { users, credentials };
}
