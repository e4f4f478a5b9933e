import type Database from 'better-sqlite3';
import type { ChallengeRow, CredentialUse, HotCredential, HotPath } from './hotPath';
import { openSqliteConnection } from './sqlite';

/**
 * How Prisma's SQLite adapter writes a DateTime (its default `iso8601` format). Comparisons in
 * SQL are textual, so every time written or compared here must use exactly this form.
 */
export const sqliteTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

const SQL = {
  insertChallenge: `INSERT INTO "Challenge" ("id", "tenant", "ceremony", "expiresAt", "expectedUserId") VALUES (@id, @tenant, @ceremony, @expiresAt, @expectedUserId)`,
  deleteChallenge: `DELETE FROM "Challenge" WHERE "id" = @id AND "tenant" = @tenant AND "ceremony" = @ceremony AND "expiresAt" > @now RETURNING "expectedUserId"`,
  findCredential: `SELECT "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "transports", "backupEligible", "uvInitialized", "nickname"
    FROM "Credential" WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId`,
  recordCredentialUse: `UPDATE "Credential" SET "signatureCounter" = @newCounter, "backupState" = @backupState, "uvInitialized" = @uvInitialized,
      "lastUsedAt" = @usedAt, "device" = @device, "country" = @country
    WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId
      AND ((@newCounter > 0 AND "signatureCounter" < @newCounter) OR (@newCounter = 0 AND "signatureCounter" = @storedCounter))`,
  redeemToken: `INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt") VALUES (@tenant, @tokenId, @expiresAt) ON CONFLICT DO NOTHING`,
} as const;

type Statements = { [K in keyof typeof SQL]: Database.Statement };

interface CredentialRow extends Omit<HotCredential, 'backupEligible' | 'uvInitialized'> {
  backupEligible: number;
  uvInitialized: number;
}

/**
 * The hot path on one better-sqlite3 connection of its own, opened (with the service's
 * connection setup: foreign keys, busy timeout) and prepared on first use, since the tables
 * exist only once the store has been migrated.
 * `SQLITE_CONNECTION_SETUP` makes every commit durable before the statement returns.
 */
export function openSqliteHotPath(filename: string): HotPath {
  let db: Database.Database | undefined;
  let statements: Statements | undefined;
  const prepared = (): Statements => {
    if (statements) return statements;
    db = openSqliteConnection(filename);
    const connection = db;
    statements = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, connection.prepare(sql)])) as Statements;
    return statements;
  };
  // better-sqlite3 is synchronous; these are async so a driver error rejects like a pg one does.
  return {
    async insertChallenge(c: ChallengeRow) {
      prepared().insertChallenge.run({ ...c, expiresAt: sqliteTime(c.expiresAt) });
    },
    async deleteChallenge(tenant, ceremony, id, now) {
      const row = prepared().deleteChallenge.get({ id, tenant, ceremony, now: sqliteTime(now) }) as { expectedUserId: string | null } | undefined;
      return row && { expectedUserId: row.expectedUserId };
    },
    async findCredential(tenant, descriptorId) {
      const row = prepared().findCredential.get({ tenant, descriptorId }) as CredentialRow | undefined;
      if (!row) return undefined;
      return { ...row, signatureCounter: Number(row.signatureCounter), backupEligible: row.backupEligible === 1, uvInitialized: row.uvInitialized === 1 };
    },
    async recordCredentialUse(use: CredentialUse) {
      const { changes } = prepared().recordCredentialUse.run({
        ...use,
        backupState: use.backupState ? 1 : 0,
        uvInitialized: use.uvInitialized ? 1 : 0,
        usedAt: sqliteTime(use.usedAt),
      });
      return changes === 1;
    },
    async redeemToken(tenant, tokenId, expiresAt) {
      return prepared().redeemToken.run({ tenant, tokenId, expiresAt: sqliteTime(expiresAt) }).changes === 1;
    },
    async close() {
      db?.close();
      db = undefined;
      statements = undefined;
    },
  };
}
