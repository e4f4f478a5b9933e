import type { Db } from './index';
import type { Provider } from './migrate';
import { sqliteTime } from './sqliteHotPath';

export interface WebhookClaim {
  /** Epoch milliseconds. */
  now: number;
  leaseUntil: number;
  workerId: string;
  /** How many endpoints one claim serves. */
  limit: number;
  /** How many of an endpoint's pending deliveries, in order from its oldest, one claim takes. */
  runLength: number;
}

/** What a claim took: each delivery, with what sending it needs. */
export interface ClaimedDelivery {
  id: string;
  /** The `webhook-id` it is sent with: its own id, or for a replay the replayed event's. */
  webhookId: string;
  tenant: string;
  endpointId: string;
  payload: string;
  attempts: number;
  createdAt: Date;
  nextAttemptAt: Date;
}

const CLAIMED_COLUMNS = `"id", "webhookId", "tenant", "endpointId", "payload", "attempts", "createdAt", "nextAttemptAt"`;

/** A time as a raw query gives it back: a Date, or SQLite's stored text (`…+00:00`, or Prisma's own forms). */
const dateOf = (value: unknown): Date => {
  if (value instanceof Date) return value;
  if (typeof value === 'number') return new Date(value);
  const text = String(value).replace(' ', 'T');
  return new Date(/(Z|[+-]\d\d:?\d\d)$/.test(text) ? text : `${text}Z`);
};
const claimedOf = (row: Record<string, unknown>): ClaimedDelivery => ({
  id: row.id as string,
  webhookId: (row.webhookId as string | null) ?? (row.id as string),
  tenant: row.tenant as string,
  endpointId: row.endpointId as string,
  payload: row.payload as string,
  attempts: Number(row.attempts),
  createdAt: dateOf(row.createdAt),
  nextAttemptAt: dateOf(row.nextAttemptAt),
});

/**
 * Each endpoint's oldest pending delivery, if it is due and not held: only it may be sent first, so
 * an endpoint gets its deliveries in order and one at a time. Driven from the endpoints: one probe
 * of the (endpointId, state, createdAt) index per endpoint and one primary-key read. (Written as
 * `id IN (heads) AND state = 'pending' AND nextAttemptAt <= now`, SQLite walked the
 * (state, nextAttemptAt) index over every due delivery instead: a round's cost grew with the backlog.)
 */
const dueHeads = (now: string, limit: number) =>
  `SELECT c."id" FROM "WebhookEndpoint" e
     JOIN "WebhookDelivery" c ON c."id" = (SELECT h."id" FROM "WebhookDelivery" h WHERE h."endpointId" = e."id" AND h."state" = 'pending' ORDER BY h."createdAt", h."id" LIMIT 1)
   WHERE c."nextAttemptAt" <= ${now} AND (c."leaseUntil" IS NULL OR c."leaseUntil" <= ${now})
   ORDER BY c."nextAttemptAt" LIMIT ${limit}`;

/**
 * Claims, for up to `limit` endpoints whose oldest pending delivery is due, a run of their pending
 * deliveries with a lease: the head and up to `runLength - 1` that follow it, which the worker then
 * sends in order over one connection. A delivery whose worker died comes back once its lease has
 * passed.
 *
 * The heads are claimed first; on PostgreSQL with `FOR UPDATE SKIP LOCKED`, so that replicas claim
 * at once without waiting for each other and each head goes to one of them (SQLite has one writer,
 * so the statement alone is enough there). Only the holder of an endpoint's head claims what
 * follows it, and nobody else claims a delivery of that endpoint while its head is held: the run
 * is the endpoint's pending deliveries from the oldest, with no gap (one held under a lease was
 * claimed with the head that came back, under the same lease). A follower is claimed whether or
 * not it is due: the worker stops the run at the first that is not (a delivery held back on
 * purpose), so that nothing after it goes first.
 */
export async function claimWebhookDeliveries(db: Db, provider: Provider, claim: WebhookClaim): Promise<ClaimedDelivery[]> {
  const limit = Math.max(1, Math.floor(claim.limit));
  const followers = Math.max(0, Math.floor(claim.runLength) - 1);
  const postgres = provider === 'postgresql';
  const time = (ms: number) => (postgres ? new Date(ms).toISOString() : sqliteTime(ms));
  const at = postgres ? (n: number) => `CAST($${n} AS timestamp(3))` : () => '?';
  const [leaseUntil, now] = [time(claim.leaseUntil), time(claim.now)];

  const heads = await db.$queryRawUnsafe<Record<string, unknown>[]>(
    `UPDATE "WebhookDelivery" SET "leaseUntil" = ${at(1)}, "claimedBy" = ${postgres ? '$2' : '?'}
     WHERE "id" IN (${dueHeads(at(3), limit)}${postgres ? ' FOR UPDATE OF c SKIP LOCKED' : ''})
     RETURNING ${CLAIMED_COLUMNS}`,
    ...(postgres ? [leaseUntil, claim.workerId, now] : [leaseUntil, claim.workerId, now, now]),
  );
  if (heads.length === 0 || followers === 0) return heads.map(claimedOf);

  // Per endpoint, the pending deliveries after its head, oldest first (one index range each).
  const runs = heads.map(
    (_, i) =>
      `SELECT "id" FROM (SELECT f."id" FROM "WebhookDelivery" f WHERE f."endpointId" = ${postgres ? `$${i + 4}` : '?'} AND f."state" = 'pending'
         AND (f."leaseUntil" IS NULL OR f."leaseUntil" <= ${at(3)}) ORDER BY f."createdAt", f."id" LIMIT ${followers}) r${i}`,
  );
  const endpointIds = heads.map((h) => h.endpointId);
  const following = await db.$queryRawUnsafe<Record<string, unknown>[]>(
    `UPDATE "WebhookDelivery" SET "leaseUntil" = ${at(1)}, "claimedBy" = ${postgres ? '$2' : '?'}
     WHERE "id" IN (${runs.join(' UNION ALL ')})
     RETURNING ${CLAIMED_COLUMNS}`,
    ...(postgres ? [leaseUntil, claim.workerId, now, ...endpointIds] : [leaseUntil, claim.workerId, ...endpointIds.flatMap((id) => [id, now])]),
  );
  return [...heads, ...following].map(claimedOf);
}
