import type { Db } from './index';
import type { Provider } from './migrate';
import { sqliteTime } from './sqliteHotPath';

export interface WebhookClaim {
  /** Epoch milliseconds. */
  now: number;
  leaseUntil: number;
  workerId: string;
  /** How many endpoints one claim serves at most (the worker's free slots). */
  limit: number;
  /** How many of an endpoint's pending deliveries, in order from its oldest, one claim takes. */
  runLength: number;
  /** Endpoints of one app this worker sends to at once, at most, those it already sends to counted. */
  perApp: number;
  /** How many endpoints of each app this worker is sending to now. */
  sending: ReadonlyMap<string, number>;
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
 * Claims, for up to `limit` endpoints whose oldest pending delivery is due, a run of their pending
 * deliveries with a lease: the head and up to `runLength - 1` that follow it, which the worker then
 * sends in order over one connection. A delivery whose worker died comes back once its lease has
 * passed (a live worker renews the leases of what it holds).
 *
 * Which endpoints: each endpoint's oldest pending delivery (only it may be sent first, so an
 * endpoint gets its deliveries in order and one at a time), if it is due and not held, found from
 * the endpoints (one probe of the (endpointId, state, createdAt) index per endpoint and one
 * primary-key read; written as `id IN (heads) AND state = 'pending' AND nextAttemptAt <= now`,
 * SQLite walked the (state, nextAttemptAt) index over every due delivery instead, and a claim's cost
 * grew with the backlog). Among them, turns between apps: an app's endpoints are numbered in the
 * order they have waited, after those this worker already sends to for it, and the claim takes every
 * app's first turn before any app's second, never past `perApp`, the longest waiting first within a
 * turn. So one app's endpoints never take every slot, and an app with few endpoints waiting goes
 * before the fifth endpoint of an app with many.
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
  const perApp = Math.max(1, Math.floor(claim.perApp));
  const followers = Math.max(0, Math.floor(claim.runLength) - 1);
  const postgres = provider === 'postgresql';
  const time = (ms: number) => (postgres ? new Date(ms).toISOString() : sqliteTime(ms));
  const at = postgres ? (n: number) => `CAST($${n} AS timestamp(3))` : () => '?';
  const [leaseUntil, now] = [time(claim.leaseUntil), time(claim.now)];

  // Parameters in the order the text names them (SQLite's `?` are positional).
  const params: unknown[] = [];
  const param = (value: unknown, asTime = false) => {
    params.push(value);
    return asTime ? at(params.length) : postgres ? `$${params.length}` : '?';
  };
  const setClaim = `"leaseUntil" = ${param(leaseUntil, true)}, "claimedBy" = ${param(claim.workerId)}`;
  const sending = [...claim.sending].filter(([, count]) => count > 0);
  const alreadySending = sending.length === 0 ? '0' : `CASE c."tenant" ${sending.map(([tenant, count]) => `WHEN ${param(tenant)} THEN ${Math.floor(count)}`).join(' ')} ELSE 0 END`;
  const dueHeads = `SELECT c."id", c."nextAttemptAt", ROW_NUMBER() OVER (PARTITION BY c."tenant" ORDER BY c."nextAttemptAt", c."id") + ${alreadySending} AS "turn"
     FROM "WebhookEndpoint" e
     JOIN "WebhookDelivery" c ON c."id" = (SELECT h."id" FROM "WebhookDelivery" h WHERE h."endpointId" = e."id" AND h."state" = 'pending' ORDER BY h."createdAt", h."id" LIMIT 1)
     WHERE c."nextAttemptAt" <= ${param(now, true)} AND (c."leaseUntil" IS NULL OR c."leaseUntil" <= ${param(now, true)})`;
  const turns = `SELECT "id" FROM (${dueHeads}) t WHERE "turn" <= ${perApp} ORDER BY "turn", "nextAttemptAt", "id" LIMIT ${limit}`;
  // PostgreSQL locks what it takes (FOR UPDATE cannot share a query level with the window function): a head another replica took meanwhile is skipped.
  const taken = postgres
    ? `SELECT d."id" FROM "WebhookDelivery" d WHERE d."id" IN (${turns}) AND d."state" = 'pending' AND (d."leaseUntil" IS NULL OR d."leaseUntil" <= ${param(now, true)}) FOR UPDATE SKIP LOCKED`
    : turns;
  const heads = await db.$queryRawUnsafe<Record<string, unknown>[]>(`UPDATE "WebhookDelivery" SET ${setClaim} WHERE "id" IN (${taken}) RETURNING ${CLAIMED_COLUMNS}`, ...params);
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
