import type { Db } from './index';
import type { Provider } from './migrate';
import { sqliteTime } from './sqliteHotPath';

/** One attempt of a delivery, as the log keeps it. */
export interface WebhookAttemptRow {
  id: string;
  tenant: string;
  deliveryId: string;
  /** Epoch milliseconds. */
  at: number;
  status: number | null;
  error: string | null;
  durationMs: number;
}

/**
 * A run's attempts in one statement, their rows from one JSON array, whatever their number: the
 * worker's record of a run costs two statements (this and `markWebhookDeliveriesDelivered`) rather
 * than Prisma's per-row work on a 100-row createMany.
 */
export async function insertWebhookAttempts(db: Db, provider: Provider, attempts: WebhookAttemptRow[]): Promise<void> {
  if (attempts.length === 0) return;
  if (provider === 'postgresql') {
    const rows = JSON.stringify(attempts.map((a) => ({ ...a, at: new Date(a.at).toISOString() })));
    await db.$queryRawUnsafe(
      `INSERT INTO "WebhookAttempt" ("id", "tenant", "deliveryId", "at", "status", "error", "durationMs")
       SELECT "id", "tenant", "deliveryId", "at", "status", "error", "durationMs" FROM json_populate_recordset(NULL::"WebhookAttempt", CAST($1 AS json))`,
      rows,
    );
    return;
  }
  const rows = JSON.stringify(attempts.map((a) => ({ ...a, at: sqliteTime(a.at) })));
  await db.$queryRawUnsafe(
    `INSERT INTO "WebhookAttempt" ("id", "tenant", "deliveryId", "at", "status", "error", "durationMs")
     SELECT value ->> 'id', value ->> 'tenant', value ->> 'deliveryId', value ->> 'at', value ->> 'status', value ->> 'error', value ->> 'durationMs' FROM json_each(?)`,
    rows,
  );
}

/** Deliveries of one app answered with one status, still held by this worker, marked delivered: one statement. */
export async function markWebhookDeliveriesDelivered(db: Db, provider: Provider, tenant: string, workerId: string, status: number, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  const set = `"state" = 'delivered', "attempts" = "attempts" + 1, "lastStatus" = ${provider === 'postgresql' ? 'CAST($1 AS integer)' : '?'}, "lastError" = NULL, "leaseUntil" = NULL, "claimedBy" = NULL`;
  if (provider === 'postgresql') {
    await db.$queryRawUnsafe(
      `UPDATE "WebhookDelivery" SET ${set} WHERE "tenant" = $2 AND "claimedBy" = $3 AND "id" IN (SELECT json_array_elements_text(CAST($4 AS json)))`,
      status,
      tenant,
      workerId,
      JSON.stringify(ids),
    );
    return;
  }
  await db.$queryRawUnsafe(`UPDATE "WebhookDelivery" SET ${set} WHERE "tenant" = ? AND "claimedBy" = ? AND "id" IN (SELECT value FROM json_each(?))`, status, tenant, workerId, JSON.stringify(ids));
}
