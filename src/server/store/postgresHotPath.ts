import { Pool } from 'pg';
import { utcDayOf } from '../core/utcDay';
import type { ChallengeRow, CredentialUse, HotCredential, HotPath } from './hotPath';

/**
 * Prisma stores DateTime as `timestamp(3)` holding UTC. An ISO string with `Z` read as a
 * `timestamp` keeps its UTC wall-clock (PostgreSQL ignores the zone for that type), whatever the
 * process's time zone; a JS Date would be sent in local time.
 */
const pgTime = (ms: number): string => new Date(ms).toISOString();

// Named statements: pg prepares each once per pooled connection and reuses it.
const STATEMENTS = {
  insertChallenge: {
    name: 'hot_insert_challenge',
    text: `INSERT INTO "Challenge" ("id", "tenant", "ceremony", "expiresAt", "expectedUserId") VALUES ($1, $2, $3, $4, $5)`,
  },
  deleteChallenge: {
    name: 'hot_delete_challenge',
    text: `DELETE FROM "Challenge" WHERE "id" = $1 AND "tenant" = $2 AND "ceremony" = $3 AND "expiresAt" > $4 RETURNING "expectedUserId"`,
  },
  findUserCredentials: {
    name: 'hot_find_user_credentials',
    text: `SELECT "descriptorId", "transports" FROM "Credential" WHERE "tenant" = $1 AND "userId" = $2 ORDER BY "lastUsedAt" DESC LIMIT $3`,
  },
  findCredential: {
    name: 'hot_find_credential',
    text: `SELECT "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "transports", "backupEligible", "uvInitialized", "nickname", "lastUsedDay"
      FROM "Credential" WHERE "tenant" = $1 AND "descriptorId" = $2`,
  },
  recordCredentialUse: {
    name: 'hot_record_credential_use',
    text: `UPDATE "Credential" SET "signatureCounter" = $3, "backupState" = $5, "uvInitialized" = $6, "lastUsedAt" = $7, "device" = $8, "country" = $9
      WHERE "tenant" = $1 AND "descriptorId" = $2
        AND (($3::bigint > 0 AND "signatureCounter" < $3::bigint) OR ($3::bigint = 0 AND "signatureCounter" = $4::bigint))`,
  },
  // Only a credential's first use of a day writes the indexed day: an update that changes no
  // indexed column stays a heap-only (HOT) update, with no new index entries.
  recordCredentialUseOnNewDay: {
    name: 'hot_record_credential_use_on_new_day',
    text: `UPDATE "Credential" SET "signatureCounter" = $3, "backupState" = $5, "uvInitialized" = $6, "lastUsedAt" = $7, "device" = $8, "country" = $9, "lastUsedDay" = $10
      WHERE "tenant" = $1 AND "descriptorId" = $2
        AND (($3::bigint > 0 AND "signatureCounter" < $3::bigint) OR ($3::bigint = 0 AND "signatureCounter" = $4::bigint))`,
  },
  redeemToken: {
    name: 'hot_redeem_token',
    text: `INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt") VALUES ($1, $2, $3) ON CONFLICT DO NOTHING`,
  },
} as const;

type CredentialRow = Omit<HotCredential, 'signatureCounter'> & { signatureCounter: string };

/**
 * The hot path on a pool of its own. Connections open on demand, so an idle service holds none;
 * `max` bounds what a busy one adds to Prisma's pool.
 */
export function openPostgresHotPath(connectionString: string, max: number): HotPath {
  const pool = new Pool({ connectionString, max });
  // An idle connection the server dropped (a restart, a failover) must not crash the process;
  // the next statement takes a fresh connection and reports its own error if there is one.
  pool.on('error', () => undefined);
  const run = async <R extends object>(statement: { name: string; text: string }, values: unknown[]) => pool.query<R>({ ...statement, values });
  return {
    async insertChallenge(c: ChallengeRow) {
      await run(STATEMENTS.insertChallenge, [c.id, c.tenant, c.ceremony, pgTime(c.expiresAt), c.expectedUserId]);
    },
    async deleteChallenge(appId, ceremony, id, now) {
      const { rows } = await run<{ expectedUserId: string | null }>(STATEMENTS.deleteChallenge, [id, appId, ceremony, pgTime(now)]);
      return rows[0] && { expectedUserId: rows[0].expectedUserId };
    },
    async findUserCredentials(appId, userId, limit) {
      return (await run<{ descriptorId: string; transports: string }>(STATEMENTS.findUserCredentials, [appId, userId, limit])).rows;
    },
    async findCredential(appId, descriptorId) {
      const { rows } = await run<CredentialRow>(STATEMENTS.findCredential, [appId, descriptorId]);
      return rows[0] && { ...rows[0], signatureCounter: Number(rows[0].signatureCounter) };
    },
    async recordCredentialUse(u: CredentialUse) {
      const usedDay = utcDayOf(u.usedAt);
      const values = [u.tenant, u.descriptorId, u.newCounter, u.storedCounter, u.backupState, u.uvInitialized, pgTime(u.usedAt), u.device, u.country];
      const { rowCount } = await (usedDay === u.lastUsedDay ? run(STATEMENTS.recordCredentialUse, values) : run(STATEMENTS.recordCredentialUseOnNewDay, [...values, usedDay]));
      return rowCount === 1;
    },
    async redeemToken(appId, tokenId, expiresAt) {
      const { rowCount } = await run(STATEMENTS.redeemToken, [appId, tokenId, pgTime(expiresAt)]);
      return rowCount === 1;
    },
    async close() {
      if (!pool.ended) await pool.end();
    },
  };
}
