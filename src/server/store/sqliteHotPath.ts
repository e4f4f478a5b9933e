import type Database from 'better-sqlite3';
import type { ChallengeRow, CredentialUse, HotCredential, HotPath } from './hotPath';
import { openSqliteConnection, SQLITE_BUSY_TIMEOUT_MS } from './sqlite';
import { createGroupCommit } from './sqliteGroupCommit';

/**
 * How Prisma's SQLite adapter writes a DateTime (its default `iso8601` format). Comparisons in
 * SQL are textual, so every time written or compared here must use exactly this form.
 */
export const sqliteTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

const SQL = {
  insertChallenge: `INSERT INTO "Challenge" ("id", "tenant", "ceremony", "expiresAt", "expectedUserId") VALUES (@id, @tenant, @ceremony, @expiresAt, @expectedUserId)`,
  deleteChallenge: `DELETE FROM "Challenge" WHERE "id" = @id AND "tenant" = @tenant AND "ceremony" = @ceremony AND "expiresAt" > @now RETURNING "expectedUserId"`,
  findUserCredentials: `SELECT "descriptorId", "transports" FROM "Credential" WHERE "tenant" = @tenant AND "userId" = @userId ORDER BY "lastUsedAt" DESC LIMIT @limit`,
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
 * The hot path on one better-sqlite3 connection of its own, opened with the service's connection
 * setup (foreign keys, synchronous = FULL) and prepared on first use, since the tables exist only
 * once the store has been migrated. Writes are group-committed (see `createGroupCommit`, which
 * also explains why this connection waits for locks on a timer: `busy_timeout = 0`).
 */
export function openSqliteHotPath(filename: string): HotPath {
  let connection: { db: Database.Database; statements: Statements; group: ReturnType<typeof createGroupCommit> } | undefined;
  const open = () => {
    if (connection) return connection;
    const db = openSqliteConnection(filename);
    db.pragma('busy_timeout = 0');
    const statements = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
    connection = { db, statements, group: createGroupCommit(db, SQLITE_BUSY_TIMEOUT_MS) };
    return connection;
  };
  const write = <T>(run: (s: Statements) => T): Promise<T> => {
    const { group, statements } = open();
    return group.write(() => run(statements));
  };
  const read = <T>(run: (s: Statements) => T): Promise<T> => {
    const { group, statements } = open();
    return group.read(() => run(statements));
  };
  return {
    async insertChallenge(c: ChallengeRow) {
      await write((s) => s.insertChallenge.run({ ...c, expiresAt: sqliteTime(c.expiresAt) }));
    },
    async deleteChallenge(tenant, ceremony, id, now) {
      const row = await write((s) => s.deleteChallenge.get({ id, tenant, ceremony, now: sqliteTime(now) }) as { expectedUserId: string | null } | undefined);
      return row && { expectedUserId: row.expectedUserId };
    },
    findUserCredentials(tenant, userId, limit) {
      return read((s) => s.findUserCredentials.all({ tenant, userId, limit }) as { descriptorId: string; transports: string }[]);
    },
    async findCredential(tenant, descriptorId) {
      const row = await read((s) => s.findCredential.get({ tenant, descriptorId }) as CredentialRow | undefined);
      if (!row) return undefined;
      return { ...row, signatureCounter: Number(row.signatureCounter), backupEligible: row.backupEligible === 1, uvInitialized: row.uvInitialized === 1 };
    },
    async recordCredentialUse(use: CredentialUse) {
      const { changes } = await write((s) =>
        s.recordCredentialUse.run({ ...use, backupState: use.backupState ? 1 : 0, uvInitialized: use.uvInitialized ? 1 : 0, usedAt: sqliteTime(use.usedAt) }),
      );
      return changes === 1;
    },
    async redeemToken(tenant, tokenId, expiresAt) {
      return (await write((s) => s.redeemToken.run({ tenant, tokenId, expiresAt: sqliteTime(expiresAt) }))).changes === 1;
    },
    async close() {
      if (!connection) return;
      // What is queued still commits; then the connection goes.
      await connection.group.write(() => undefined).catch(() => undefined);
      connection.db.close();
      connection = undefined;
    },
  };
}
