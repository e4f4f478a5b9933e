import { isForeignKeyViolation } from '../core/storeErrors';

/** One single-use id to record (a verify token's, a register token's, a session's), values in the store's encoding. */
export interface Redemption {
  tenant: string;
  tokenId: string;
  expiresAt: unknown;
}

/** Records the ids it is given where not recorded yet, in one statement; answers those it recorded. */
export type RedeemAll = (rows: Redemption[]) => Promise<{ tenant: string; tokenId: string }[]>;

const keyOf = (row: { tenant: string; tokenId: string }): string => `${row.tenant}\u0000${row.tokenId}`;

/**
 * Redemptions issued in one turn of the event loop, recorded by one statement: one commit, one
 * WAL flush and one round trip for all of them instead of one each (a PostgreSQL group commit of
 * our own; SQLite's writer thread groups its commits the same way). Each caller is answered as if
 * alone: true when its id was recorded now, false when it was recorded before, and an id asked for
 * twice in one turn is recorded for the first asker only. When the statement is refused for a
 * gone app (a foreign-key violation, which refuses the whole statement), each redemption runs on
 * its own, so that only the gone app's fail; any other error fails the turn's redemptions alike.
 */
export function batchRedemptions(redeemAll: RedeemAll): (row: Redemption) => Promise<boolean> {
  let pending: { row: Redemption; resolve: (redeemed: boolean) => void; reject: (error: unknown) => void }[] = [];

  const answer = async (batch: typeof pending) => {
    const first = new Map<string, Redemption>();
    for (const { row } of batch) if (!first.has(keyOf(row))) first.set(keyOf(row), row);
    let recorded: Set<string>;
    try {
      recorded = new Set((await redeemAll([...first.values()])).map(keyOf));
    } catch (error) {
      if (first.size > 1 && isForeignKeyViolation(error)) {
        await Promise.all([...first.keys()].map((key) => answer(batch.filter((p) => keyOf(p.row) === key))));
        return;
      }
      for (const p of batch) p.reject(error);
      return;
    }
    for (const p of batch) p.resolve(first.get(keyOf(p.row)) === p.row && recorded.has(keyOf(p.row)));
  };

  return (row) =>
    new Promise<boolean>((resolve, reject) => {
      if (pending.length === 0) {
        setImmediate(() => {
          const batch = pending;
          pending = [];
          void answer(batch);
        });
      }
      pending.push({ row, resolve, reject });
    });
}
