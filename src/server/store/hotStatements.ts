/**
 * Every statement of the hot path, once for both databases (`postgres` where the dialects differ):
 * `@name` parameters (better-sqlite3 binds them by name; the PostgreSQL driver turns them into
 * `$1…` in order of first use, see `positionalStatement`). Values arrive already in the store's
 * encoding (times, booleans).
 *
 * Each is a primary-key or index search scoped by the app: none reads more rows than it answers
 * (a user's passkeys, one page of users), whatever the size of the app. test/storage/queryPlans.test.ts
 * checks the plans of these very texts on both databases.
 *
 * `write` statements run on SQLite's writer thread (group-committed) and may be steps of a unit;
 * `read` statements run on the event loop's read connection.
 */
export const HOT_STATEMENTS = {
  // --- sign-in and verify ---------------------------------------------------------------------
  findUserCredentials: {
    kind: 'read',
    sql: `SELECT "descriptorId", "transports" FROM "Credential" WHERE "tenant" = @tenant AND "userId" = @userId ORDER BY "lastUsedAt" DESC LIMIT @limit`,
  },
  findCredential: {
    kind: 'read',
    sql: `SELECT "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "transports", "backupEligible", "uvInitialized", "nickname", "lastUsedDay"
      FROM "Credential" WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId`,
  },
  recordCredentialUse: {
    kind: 'write',
    sql: `UPDATE "Credential" SET "signatureCounter" = CAST(@newCounter AS BIGINT), "backupState" = @backupState, "uvInitialized" = @uvInitialized,
        "lastUsedAt" = @usedAt, "device" = @device, "country" = @country
      WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId
        AND ((CAST(@newCounter AS BIGINT) > 0 AND "signatureCounter" < CAST(@newCounter AS BIGINT))
          OR (CAST(@newCounter AS BIGINT) = 0 AND "signatureCounter" = CAST(@storedCounter AS BIGINT)))`,
  },
  /**
   * The same, for a credential's first use of a UTC day: only then is the indexed day written.
   * SQLite rewrites an index entry whenever its column is SET, even to the same value, and on
   * PostgreSQL an update that changes no indexed column stays heap-only (no new index entries).
   */
  recordCredentialUseOnNewDay: {
    kind: 'write',
    sql: `UPDATE "Credential" SET "signatureCounter" = CAST(@newCounter AS BIGINT), "backupState" = @backupState, "uvInitialized" = @uvInitialized,
        "lastUsedAt" = @usedAt, "lastUsedDay" = @usedDay, "device" = @device, "country" = @country
      WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId
        AND ((CAST(@newCounter AS BIGINT) > 0 AND "signatureCounter" < CAST(@newCounter AS BIGINT))
          OR (CAST(@newCounter AS BIGINT) = 0 AND "signatureCounter" = CAST(@storedCounter AS BIGINT)))`,
  },
  redeemToken: {
    kind: 'write',
    sql: `INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt") VALUES (@tenant, @tokenId, @expiresAt) ON CONFLICT DO NOTHING`,
  },
  isTokenRedeemed: {
    kind: 'read',
    sql: `SELECT 1 AS "redeemed" FROM "RedeemedToken" WHERE "tenant" = @tenant AND "tokenId" = @tokenId`,
  },

  // --- credentials/list, register/token's user check, users/count and users/list --------------
  listCredentials: {
    kind: 'read',
    sql: `SELECT "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "attestationFmt", "aaGuid", "transports", "rpid", "origin",
        "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt", "lastUsedDay"
      FROM "Credential" WHERE "tenant" = @tenant AND "userId" = @userId ORDER BY "createdAt", "descriptorId"`,
  },
  userCapacity: {
    kind: 'read',
    sql: `SELECT "maxUsers", (SELECT "userCount" FROM "AppCounter" WHERE "tenant" = @tenant) AS "userCount",
        (SELECT "credentialsCount" FROM "User" WHERE "tenant" = @tenant AND "userId" = @userId) AS "credentialsCount"
      FROM "App" WHERE "id" = @tenant`,
  },
  countUsers: {
    kind: 'read',
    sql: `SELECT "userCount" FROM "AppCounter" WHERE "tenant" = @tenant`,
  },
  /** One page of userIds after a key ('' = from the start): the primary key, in its order. */
  usersPage: {
    kind: 'read',
    sql: `SELECT "userId" FROM "User" WHERE "tenant" = @tenant AND "userId" > @after ORDER BY "userId" LIMIT @limit`,
  },
  /** The aliases of a page's users: every userId in (after, last] is one of the page's. */
  usersPageAliases: {
    kind: 'read',
    sql: `SELECT "userId", "plaintext" FROM "Alias" WHERE "tenant" = @tenant AND "userId" > @after AND "userId" <= @last ORDER BY "userId", "aliasHash"`,
  },
  usersPageCredentials: {
    kind: 'read',
    sql: `SELECT "userId", COUNT(*) AS "credentialsCount", MAX("lastUsedAt") AS "lastUsedAt"
      FROM "Credential" WHERE "tenant" = @tenant AND "userId" > @after AND "userId" <= @last GROUP BY "userId"`,
  },

  // --- /events: the app's log, newest first, by key -------------------------------------------
  eventCount: {
    kind: 'read',
    sql: `SELECT "eventCount" FROM "AppCounter" WHERE "tenant" = @tenant`,
  },
  eventsPage: {
    kind: 'read',
    sql: `SELECT "id", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId"
      FROM "Event" WHERE "tenant" = @tenant ORDER BY "performedAt" DESC, "id" DESC LIMIT @limit`,
  },
  /** The page after an event: its (time, id) key, on the (tenant, performedAt, id) index. */
  eventsPageAfter: {
    kind: 'read',
    sql: `SELECT "id", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId"
      FROM "Event" WHERE "tenant" = @tenant AND ("performedAt", "id") < (@performedAt, @id) ORDER BY "performedAt" DESC, "id" DESC LIMIT @limit`,
  },

  /** A batch of events from one JSON array (their columns by name, times in the store's encoding): one statement however many. */
  insertEvents: {
    kind: 'write',
    sql: `INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId")
      SELECT value ->> 'id', value ->> 'tenant', value ->> 'performedAt', value ->> 'eventType', value ->> 'message', value ->> 'severity',
        value ->> 'performedBy', value ->> 'subject', value ->> 'apiKeyId' FROM json_each(@events)`,
    postgres: `INSERT INTO "Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId")
      SELECT "id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId"
      FROM json_populate_recordset(NULL::"Event", CAST(@events AS json))`,
  },
  /** An app's events written in the same batch, on its count (which events sweeps take back off). */
  countEvents: {
    kind: 'write',
    sql: `INSERT INTO "AppCounter" ("tenant", "eventCount") VALUES (@tenant, @count)
      ON CONFLICT ("tenant") DO UPDATE SET "eventCount" = "AppCounter"."eventCount" + excluded."eventCount"`,
  },

  /**
   * Webhook deliveries (the outbox) from one JSON array, a step of the unit whose change they
   * report; only units of apps with subscribed endpoints have it. Due at once (nextAttemptAt = createdAt).
   */
  insertWebhookDeliveries: {
    kind: 'write',
    sql: `INSERT INTO "WebhookDelivery" ("id", "tenant", "endpointId", "eventType", "payload", "createdAt", "nextAttemptAt")
      SELECT value ->> 'id', value ->> 'tenant', value ->> 'endpointId', value ->> 'eventType', value ->> 'payload', value ->> 'createdAt', value ->> 'createdAt'
      FROM json_each(@deliveries)`,
    postgres: `INSERT INTO "WebhookDelivery" ("id", "tenant", "endpointId", "eventType", "payload", "createdAt", "nextAttemptAt")
      SELECT "id", "tenant", "endpointId", "eventType", "payload", "createdAt", "createdAt"
      FROM json_populate_recordset(NULL::"WebhookDelivery", CAST(@deliveries AS json))`,
  },

  // --- steps of the units that change users (writeUnits.ts) -----------------------------------
  /** A passkey for the user: their row locked (created if new), its count up; answers the new count. */
  addUserCredential: {
    kind: 'write',
    sql: `INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") VALUES (@tenant, @userId, 1, 0)
      ON CONFLICT ("tenant", "userId") DO UPDATE SET "credentialsCount" = "User"."credentialsCount" + 1 RETURNING "credentialsCount"`,
  },
  /** The same, when the registration also replaces the user's aliases. */
  addUserCredentialWithAliases: {
    kind: 'write',
    sql: `INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") VALUES (@tenant, @userId, 1, @aliasCount)
      ON CONFLICT ("tenant", "userId") DO UPDATE SET "credentialsCount" = "User"."credentialsCount" + 1, "aliasCount" = excluded."aliasCount"
      RETURNING "credentialsCount"`,
  },
  /**
   * The app gains a user, unless that would pass its maxUsers: the check and the count in one
   * statement on the counter row (made by the app's first user). Changes no row when the app is full.
   */
  countNewUser: {
    kind: 'write',
    sql: `INSERT INTO "AppCounter" ("tenant", "userCount") SELECT "id", 1 FROM "App" WHERE "id" = @tenant AND ("maxUsers" IS NULL OR "maxUsers" > 0)
      ON CONFLICT ("tenant") DO UPDATE SET "userCount" = "AppCounter"."userCount" + 1
      WHERE "AppCounter"."userCount" < COALESCE((SELECT "maxUsers" FROM "App" WHERE "App"."id" = "AppCounter"."tenant"), 2147483647)`,
  },
  uncountUser: {
    kind: 'write',
    sql: `UPDATE "AppCounter" SET "userCount" = "userCount" - 1 WHERE "tenant" = @tenant AND "userCount" > 0`,
  },
  insertCredential: {
    kind: 'write',
    sql: `INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "attestationFmt", "aaGuid",
        "transports", "rpid", "origin", "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt", "lastUsedDay")
      VALUES (@tenant, @descriptorId, @userId, @userHandle, @publicKey, @signatureCounter, @attestationFmt, @aaGuid,
        @transports, @rpid, @origin, @country, @device, @nickname, @backupEligible, @backupState, @isDiscoverable, @uvInitialized, @createdAt, @lastUsedAt, @lastUsedDay)`,
  },
  /** The user's row locked (created if new) with their new number of aliases. */
  setUserAliasCount: {
    kind: 'write',
    sql: `INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") VALUES (@tenant, @userId, 0, @aliasCount)
      ON CONFLICT ("tenant", "userId") DO UPDATE SET "aliasCount" = excluded."aliasCount"`,
  },
  deleteUserAliases: {
    kind: 'write',
    sql: `DELETE FROM "Alias" WHERE "tenant" = @tenant AND "userId" = @userId`,
  },
  insertAlias: {
    kind: 'write',
    sql: `INSERT INTO "Alias" ("tenant", "aliasHash", "userId", "plaintext") VALUES (@tenant, @aliasHash, @userId, @plaintext)`,
  },
  /** One passkey fewer: the user's row locked, its count down; answers the new count. */
  removeUserCredential: {
    kind: 'write',
    sql: `UPDATE "User" SET "credentialsCount" = "credentialsCount" - 1 WHERE "tenant" = @tenant AND "userId" = @userId RETURNING "credentialsCount"`,
  },
  deleteCredential: {
    kind: 'write',
    sql: `DELETE FROM "Credential" WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId AND "userId" = @userId`,
  },
  /** A user with neither passkeys nor aliases is no longer a user. */
  deleteEmptyUser: {
    kind: 'write',
    sql: `DELETE FROM "User" WHERE "tenant" = @tenant AND "userId" = @userId AND "credentialsCount" = 0 AND "aliasCount" = 0`,
  },
  deleteUser: {
    kind: 'write',
    sql: `DELETE FROM "User" WHERE "tenant" = @tenant AND "userId" = @userId RETURNING "credentialsCount"`,
  },
  deleteUserCredentials: {
    kind: 'write',
    sql: `DELETE FROM "Credential" WHERE "tenant" = @tenant AND "userId" = @userId`,
  },
} as const satisfies Record<string, { kind: 'read' | 'write'; sql: string; postgres?: string }>;

/** The statement's text on a provider: the one text, or PostgreSQL's own where the two dialects differ. */
export const statementSql = (statement: HotStatement, provider: 'sqlite' | 'postgresql'): string => {
  const entry: { sql: string; postgres?: string } = HOT_STATEMENTS[statement];
  return provider === 'postgresql' ? (entry.postgres ?? entry.sql) : entry.sql;
};

export type HotStatement = keyof typeof HOT_STATEMENTS;
export type HotRead = { [K in HotStatement]: (typeof HOT_STATEMENTS)[K]['kind'] extends 'read' ? K : never }[HotStatement];
export type HotWrite = Exclude<HotStatement, HotRead>;

/** The statement for PostgreSQL's driver: `@name` → `$n` in order of first use, and the names in that order. */
export function positionalStatement(sql: string): { text: string; names: string[] } {
  const names: string[] = [];
  const text = sql.replace(/@([A-Za-z_][A-Za-z0-9_]*)/g, (_match, name: string) => {
    let index = names.indexOf(name);
    if (index < 0) index = names.push(name) - 1;
    return `$${index + 1}`;
  });
  return { text, names };
}
