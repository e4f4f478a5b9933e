import type Database from 'better-sqlite3';
import { utcDayOf } from '../core/utcDay';
import type { ChallengeRow, CredentialUse, HotCredential, HotPath } from './hotPath';
import { openSqliteConnection, SQLITE_BUSY_TIMEOUT_MS, SQLITE_CONNECTION_SETUP } from './sqlite';
import { startSqliteWriter } from './sqliteWriter';

/**
 * How Prisma's SQLite adapter writes a DateTime (its default `iso8601` format). Comparisons in
 * SQL are textual, so every time written or compared here must use exactly this form.
 */
const sqliteTime = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

const SQL = {
  insertChallenge: `INSERT INTO "Challenge" ("id", "tenant", "ceremony", "expiresAt", "expectedUserId") VALUES (@id, @tenant, @ceremony, @expiresAt, @expectedUserId)`,
  deleteChallenge: `DELETE FROM "Challenge" WHERE "id" = @id AND "tenant" = @tenant AND "ceremony" = @ceremony AND "expiresAt" > @now RETURNING "expectedUserId"`,
  findUserCredentials: `SELECT "descriptorId", "transports" FROM "Credential" WHERE "tenant" = @tenant AND "userId" = @userId ORDER BY "lastUsedAt" DESC LIMIT @limit`,
  findCredential: `SELECT "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "transports", "backupEligible", "uvInitialized", "nickname", "lastUsedDay"
    FROM "Credential" WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId`,
  recordCredentialUse: `UPDATE "Credential" SET "signatureCounter" = @newCounter, "backupState" = @backupState, "uvInitialized" = @uvInitialized,
      "lastUsedAt" = @usedAt, "device" = @device, "country" = @country
    WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId
      AND ((@newCounter > 0 AND "signatureCounter" < @newCounter) OR (@newCounter = 0 AND "signatureCounter" = @storedCounter))`,
  // SQLite rewrites an index entry whenever its column is SET, even to the same value (it doubled
  // the cost of this update): the indexed day is written only by a credential's first use of a day.
  recordCredentialUseOnNewDay: `UPDATE "Credential" SET "signatureCounter" = @newCounter, "backupState" = @backupState, "uvInitialized" = @uvInitialized,
      "lastUsedAt" = @usedAt, "lastUsedDay" = @usedDay, "device" = @device, "country" = @country
    WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId
      AND ((@newCounter > 0 AND "signatureCounter" < @newCounter) OR (@newCounter = 0 AND "signatureCounter" = @storedCounter))`,
  redeemToken: `INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt") VALUES (@tenant, @tokenId, @expiresAt) ON CONFLICT DO NOTHING`,
} as const;

const WRITES = ['insertChallenge', 'deleteChallenge', 'recordCredentialUse', 'recordCredentialUseOnNewDay', 'redeemToken'] as const;
const READS = ['findUserCredentials', 'findCredential'] as const;
type Reads = { [K in (typeof READS)[number]]: Database.Statement };

interface CredentialRow extends Omit<HotCredential, 'backupEligible' | 'uvInitialized'> {
  backupEligible: number;
  uvInitialized: number;
}

/** SQLite's "another connection holds the lock" (SQLITE_BUSY and its extended codes). */
const isBusy = (error: unknown): boolean => typeof (error as { code?: unknown })?.code === 'string' && (error as { code: string }).code.startsWith('SQLITE_BUSY');

/**
 * The hot path on better-sqlite3 connections of its own, opened with the service's connection
 * setup (foreign keys, synchronous = FULL) on first use, since the tables exist only once the
 * store has been migrated. Writes are group-committed on a thread of their own (see
 * `startSqliteWriter`); reads run on the event loop, on a connection that never waits for a lock
 * with the thread blocked (`busy_timeout = 0`): in WAL mode a reader waits only while a crashed
 * writer's log is recovered, and that wait is retried on a timer instead.
 */
export function openSqliteHotPath(filename: string): HotPath {
  const writes = Object.fromEntries(WRITES.map((name) => [name, SQL[name]]));
  let connection: { db: Database.Database; reads: Reads; writer: ReturnType<typeof startSqliteWriter> } | undefined;
  const open = () => {
    if (connection) return connection;
    const db = openSqliteConnection(filename);
    db.pragma('busy_timeout = 0');
    const reads = Object.fromEntries(READS.map((name) => [name, db.prepare(SQL[name])])) as Reads;
    connection = { db, reads, writer: startSqliteWriter(filename, SQLITE_CONNECTION_SETUP, SQLITE_BUSY_TIMEOUT_MS, writes) };
    return connection;
  };
  const write = (statement: (typeof WRITES)[number], params: Record<string, unknown>) => open().writer.write(statement, params);
  const read = async <T>(run: (s: Reads) => T): Promise<T> => {
    const { reads } = open();
    const deadline = Date.now() + SQLITE_BUSY_TIMEOUT_MS;
    for (let wait = 1; ; wait = Math.min(wait * 2, 25)) {
      try {
        return run(reads);
      } catch (error) {
        if (!isBusy(error) || Date.now() >= deadline) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  };
  return {
    async insertChallenge(c: ChallengeRow) {
      await write('insertChallenge', { ...c, expiresAt: sqliteTime(c.expiresAt) });
    },
    async deleteChallenge(appId, ceremony, id, now) {
      const row = (await write('deleteChallenge', { id, tenant: appId, ceremony, now: sqliteTime(now) })) as { expectedUserId: string | null } | undefined;
      return row && { expectedUserId: row.expectedUserId };
    },
    findUserCredentials(appId, userId, limit) {
      return read((s) => s.findUserCredentials.all({ tenant: appId, userId, limit }) as { descriptorId: string; transports: string }[]);
    },
    async findCredential(appId, descriptorId) {
      const row = await read((s) => s.findCredential.get({ tenant: appId, descriptorId }) as CredentialRow | undefined);
      if (!row) return undefined;
      return { ...row, signatureCounter: Number(row.signatureCounter), backupEligible: row.backupEligible === 1, uvInitialized: row.uvInitialized === 1 };
    },
    async recordCredentialUse(use: CredentialUse) {
      const usedDay = utcDayOf(use.usedAt);
      const { lastUsedDay: _read, ...columns } = use;
      const params = { ...columns, backupState: use.backupState ? 1 : 0, uvInitialized: use.uvInitialized ? 1 : 0, usedAt: sqliteTime(use.usedAt) };
      const { changes } = (await (usedDay === use.lastUsedDay ? write('recordCredentialUse', params) : write('recordCredentialUseOnNewDay', { ...params, usedDay }))) as { changes: number };
      return changes === 1;
    },
    async redeemToken(appId, tokenId, expiresAt) {
      return ((await write('redeemToken', { tenant: appId, tokenId, expiresAt: sqliteTime(expiresAt) })) as { changes: number }).changes === 1;
    },
    async close() {
      if (!connection) return;
      // What is queued still commits; then the connections go.
      await connection.writer.close();
      connection.db.close();
      connection = undefined;
    },
  };
}
