import type { Db } from './index';
import type { Provider } from './migrate';
import { sqliteTime } from './sqliteHotPath';

/**
 * Moves on the lease of the deliveries this worker still holds, by their ids (primary-key reads,
 * one statement however many): what a live worker does every third of a lease, so that its claims
 * outlast any attempt while a dead worker's lapse within one lease. A delivery another worker holds
 * now, or that was recorded meanwhile, is left alone.
 */
export async function renewWebhookClaims(db: Db, provider: Provider, workerId: string, leaseUntil: number, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  if (provider === 'postgresql') {
    await db.$queryRawUnsafe(
      `UPDATE "WebhookDelivery" SET "leaseUntil" = CAST($1 AS timestamp(3)) WHERE "claimedBy" = $2 AND "id" IN (SELECT json_array_elements_text(CAST($3 AS json)))`,
      new Date(leaseUntil).toISOString(),
      workerId,
      JSON.stringify(ids),
    );
    return;
  }
  await db.$queryRawUnsafe(`UPDATE "WebhookDelivery" SET "leaseUntil" = ? WHERE "claimedBy" = ? AND "id" IN (SELECT value FROM json_each(?))`, sqliteTime(leaseUntil), workerId, JSON.stringify(ids));
}
