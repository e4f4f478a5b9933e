import type { Db } from './index';
import type { Provider } from './migrate';
import { sqliteTime } from './sqliteHotPath';

export interface WebhookClaim {
  /** Epoch milliseconds. */
  now: number;
  leaseUntil: number;
  workerId: string;
  limit: number;
}

/**
 * Each endpoint's oldest pending delivery: only it may be sent, so an endpoint gets its deliveries
 * in order and one at a time. One probe of the (endpointId, state, createdAt) index per endpoint.
 */
const HEADS = `SELECT (SELECT h."id" FROM "WebhookDelivery" h WHERE h."endpointId" = e."id" AND h."state" = 'pending' ORDER BY h."createdAt", h."id" LIMIT 1) FROM "WebhookEndpoint" e`;

/**
 * Claims up to `limit` due deliveries for a worker, with a lease: the ids of the deliveries it
 * now holds until `leaseUntil`. A delivery whose worker died comes back once its lease has
 * passed. On PostgreSQL `FOR UPDATE SKIP LOCKED` lets replicas claim at once without waiting for
 * each other, and each delivery goes to one of them; SQLite has one writer, so the statement
 * alone is enough there.
 */
export async function claimWebhookDeliveries(db: Db, provider: Provider, claim: WebhookClaim): Promise<string[]> {
  const limit = Math.max(1, Math.floor(claim.limit));
  if (provider === 'postgresql') {
    const [leaseUntil, now] = [new Date(claim.leaseUntil).toISOString(), new Date(claim.now).toISOString()];
    const rows = await db.$queryRawUnsafe<{ id: string }[]>(
      `UPDATE "WebhookDelivery" SET "leaseUntil" = CAST($1 AS timestamp(3)), "claimedBy" = $2
       WHERE "id" IN (
         SELECT c."id" FROM "WebhookDelivery" c
         WHERE c."id" IN (${HEADS}) AND c."state" = 'pending' AND c."nextAttemptAt" <= CAST($3 AS timestamp(3))
           AND (c."leaseUntil" IS NULL OR c."leaseUntil" <= CAST($3 AS timestamp(3)))
         ORDER BY c."nextAttemptAt" LIMIT ${limit} FOR UPDATE SKIP LOCKED)
       RETURNING "id"`,
      leaseUntil,
      claim.workerId,
      now,
    );
    return rows.map((r) => r.id);
  }
  const [leaseUntil, now] = [sqliteTime(claim.leaseUntil), sqliteTime(claim.now)];
  const rows = await db.$queryRawUnsafe<{ id: string }[]>(
    `UPDATE "WebhookDelivery" SET "leaseUntil" = ?, "claimedBy" = ?
     WHERE "id" IN (
       SELECT c."id" FROM "WebhookDelivery" c
       WHERE c."id" IN (${HEADS}) AND c."state" = 'pending' AND c."nextAttemptAt" <= ?
         AND (c."leaseUntil" IS NULL OR c."leaseUntil" <= ?)
       ORDER BY c."nextAttemptAt" LIMIT ${limit})
     RETURNING "id"`,
    leaseUntil,
    claim.workerId,
    now,
    now,
  );
  return rows.map((r) => r.id);
}
