/**
 * Every statement the store sends on its own drivers (the SQL layer: everything but Prisma's cold
 * CRUD), once for both databases (`postgres` where the dialects differ):
 * `@name` parameters (better-sqlite3 binds them by name; the PostgreSQL driver turns them into
 * `$1…` in order of first use, see `positionalStatement`). Values arrive already in the store's
 * encoding (times, booleans).
 *
 * Each is a primary-key or index search scoped by the app: none of a request's reads more rows than
 * it answers (a user's passkeys, one page of users), whatever the size of the app (the webhook
 * worker's claim probes one index entry per endpoint). test/storage/queryPlans.test.ts
 * checks the plans of these very texts on both databases.
 *
 * `write` statements run on SQLite's writer thread (group-committed) and may be steps of a unit;
 * `read` statements run on the event loop's read connection.
 */
export const STATEMENTS = {
  // --- sign-in and verify ---------------------------------------------------------------------
  findUserCredentials: {
    kind: 'read',
    sql: `SELECT "descriptorId", "transports", "prfSalt" FROM "Credential" WHERE "tenant" = @tenant AND "userId" = @userId ORDER BY "lastUsedAt" DESC LIMIT @limit`,
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
        "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt", "lastUsedDay", "prfSalt", "prfEnabled",
        "madeByUpgrade"
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

  /**
   * A search of userIds by prefix (userIdSearchRange): one range of the users' key, [from, below),
   * in the order of their UTF-8 bytes, whatever the database's collation. PostgreSQL compares and
   * sorts them as "C" on the User_tenant_userId_c_idx index (its primary key sorts by the
   * database's collation, where a prefix's strings need not be one range); SQLite's primary key
   * already sorts by bytes.
   */
  usersSearch: {
    kind: 'read',
    sql: `SELECT "userId" FROM "User" WHERE "tenant" = @tenant AND "userId" >= @from AND "userId" < @below ORDER BY "userId" LIMIT @limit`,
    postgres: `SELECT "userId" FROM "User" WHERE "tenant" = @tenant AND "userId" COLLATE "C" >= @from AND "userId" COLLATE "C" < @below
      ORDER BY "userId" COLLATE "C" LIMIT @limit`,
  },
  /** The same to the end of the app's users: a prefix without an upper bound (userIdSearchRange). */
  usersSearchToEnd: {
    kind: 'read',
    sql: `SELECT "userId" FROM "User" WHERE "tenant" = @tenant AND "userId" >= @from ORDER BY "userId" LIMIT @limit`,
    postgres: `SELECT "userId" FROM "User" WHERE "tenant" = @tenant AND "userId" COLLATE "C" >= @from ORDER BY "userId" COLLATE "C" LIMIT @limit`,
  },
  /** The aliases of the users a search found (a JSON array of userIds): their (tenant, userId) index, once per user. */
  usersAliasesOf: {
    kind: 'read',
    sql: `SELECT "userId", "plaintext" FROM "Alias" WHERE "tenant" = @tenant AND "userId" IN (SELECT value FROM json_each(@userIds)) ORDER BY "userId", "aliasHash"`,
    postgres: `SELECT "userId", "plaintext" FROM "Alias" WHERE "tenant" = @tenant AND "userId" = ANY (ARRAY(SELECT json_array_elements_text(CAST(@userIds AS json))))
      ORDER BY "userId", "aliasHash"`,
  },
  /** Their passkeys' count and last use. */
  usersCredentialsOf: {
    kind: 'read',
    sql: `SELECT "userId", COUNT(*) AS "credentialsCount", MAX("lastUsedAt") AS "lastUsedAt"
      FROM "Credential" WHERE "tenant" = @tenant AND "userId" IN (SELECT value FROM json_each(@userIds)) GROUP BY "userId"`,
    postgres: `SELECT "userId", COUNT(*) AS "credentialsCount", MAX("lastUsedAt") AS "lastUsedAt"
      FROM "Credential" WHERE "tenant" = @tenant AND "userId" = ANY (ARRAY(SELECT json_array_elements_text(CAST(@userIds AS json)))) GROUP BY "userId"`,
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

  /**
   * The console's filtered log: events between two keys, newest first: below (@performedAt, @id)
   * (a page's last event, or the end of a time window with an empty id) and from (@sinceAt,
   * @sinceId) on (the start of the window with an empty id, or the last row a type filter may read).
   * One range of the (tenant, performedAt, id) index.
   */
  eventsBetween: {
    kind: 'read',
    sql: `SELECT "id", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId"
      FROM "Event" WHERE "tenant" = @tenant AND ("performedAt", "id") < (@performedAt, @id) AND ("performedAt", "id") >= (@sinceAt, @sinceId)
      ORDER BY "performedAt" DESC, "id" DESC LIMIT @limit`,
  },
  /**
   * The same, of some types (@types, a JSON array): the range's rows are read and filtered, so the
   * range is bounded first by `eventsWindowEdge` (the type is not in the index).
   */
  eventsOfTypesBetween: {
    kind: 'read',
    sql: `SELECT "id", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId"
      FROM "Event" WHERE "tenant" = @tenant AND ("performedAt", "id") < (@performedAt, @id) AND ("performedAt", "id") >= (@sinceAt, @sinceId)
        AND "eventType" IN (SELECT value FROM json_each(@types))
      ORDER BY "performedAt" DESC, "id" DESC LIMIT @limit`,
    postgres: `SELECT "id", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId"
      FROM "Event" WHERE "tenant" = @tenant AND ("performedAt", "id") < (@performedAt, @id) AND ("performedAt", "id") >= (@sinceAt, @sinceId)
        AND "eventType" = ANY (ARRAY(SELECT json_array_elements_text(CAST(@types AS json))))
      ORDER BY "performedAt" DESC, "id" DESC LIMIT @limit`,
  },
  /** The key of the event @skip rows below (@performedAt, @id), no lower than (@sinceAt, @sinceId): the index alone, no row read. */
  eventsWindowEdge: {
    kind: 'read',
    sql: `SELECT "performedAt", "id" FROM "Event" WHERE "tenant" = @tenant AND ("performedAt", "id") < (@performedAt, @id) AND ("performedAt", "id") >= (@sinceAt, @sinceId)
      ORDER BY "performedAt" DESC, "id" DESC LIMIT 1 OFFSET @skip`,
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

  // --- sign-ins by method: the tallies' flush, once per interval, never per request -----------
  /**
   * A flush of the sign-in tallies from one JSON array (one row per app and UTC day, counts by
   * method), added to what the day holds: replicas and flushes sum up. A row of an app that is gone
   * fails the statement on its foreign key (see `ReportRepository.addSignIns`). PostgreSQL takes
   * the rows in key order, so that two replicas flushing at once lock them in the same order (no
   * deadlock); SQLite's one writer runs one flush at a time anyway.
   */
  addSignInCounts: {
    kind: 'write',
    // `WHERE true`: SQLite would otherwise read ON CONFLICT as the join constraint of the SELECT.
    sql: `INSERT INTO "SignInCount" ("tenant", "day", "passkey", "magicLink", "generatedToken")
      SELECT value ->> 'tenant', value ->> 'day', value ->> 'passkey', value ->> 'magicLink', value ->> 'generatedToken' FROM json_each(@signIns) WHERE true
      ON CONFLICT ("tenant", "day") DO UPDATE SET "passkey" = "SignInCount"."passkey" + excluded."passkey",
        "magicLink" = "SignInCount"."magicLink" + excluded."magicLink", "generatedToken" = "SignInCount"."generatedToken" + excluded."generatedToken"`,
    postgres: `INSERT INTO "SignInCount" ("tenant", "day", "passkey", "magicLink", "generatedToken")
      SELECT "tenant", "day", "passkey", "magicLink", "generatedToken" FROM json_populate_recordset(NULL::"SignInCount", CAST(@signIns AS json)) ORDER BY "tenant", "day"
      ON CONFLICT ("tenant", "day") DO UPDATE SET "passkey" = "SignInCount"."passkey" + excluded."passkey",
        "magicLink" = "SignInCount"."magicLink" + excluded."magicLink", "generatedToken" = "SignInCount"."generatedToken" + excluded."generatedToken"`,
  },

  // --- webhook deliveries: steps of the units whose changes they report ------------------------
  /**
   * Webhook deliveries (the outbox) from one JSON array, a step of the unit whose change they
   * report; only units of apps with subscribed endpoints have it. Due at once (`nextAttemptAt`
   * absent: at `createdAt`), or held until `nextAttemptAt` (a magic link's, until its mail is sent).
   * `webhookId` only for a replay.
   */
  insertWebhookDeliveries: {
    kind: 'write',
    sql: `INSERT INTO "WebhookDelivery" ("id", "webhookId", "tenant", "endpointId", "eventType", "payload", "createdAt", "nextAttemptAt", "traceContext")
      SELECT value ->> 'id', value ->> 'webhookId', value ->> 'tenant', value ->> 'endpointId', value ->> 'eventType', value ->> 'payload', value ->> 'createdAt',
        COALESCE(value ->> 'nextAttemptAt', value ->> 'createdAt'), value ->> 'traceContext'
      FROM json_each(@deliveries)`,
    postgres: `INSERT INTO "WebhookDelivery" ("id", "webhookId", "tenant", "endpointId", "eventType", "payload", "createdAt", "nextAttemptAt", "traceContext")
      SELECT "id", "webhookId", "tenant", "endpointId", "eventType", "payload", "createdAt", COALESCE("nextAttemptAt", "createdAt"), "traceContext"
      FROM json_populate_recordset(NULL::"WebhookDelivery", CAST(@deliveries AS json))`,
  },

  // --- writes that a webhook reports, away from the hot path ----------------------------------
  renameCredential: {
    kind: 'write',
    sql: `UPDATE "Credential" SET "nickname" = @nickname WHERE "tenant" = @tenant AND "descriptorId" = @descriptorId`,
  },
  /** A magic link's mail, counted against the app's monthly quota. */
  insertDispatchedEmail: {
    kind: 'write',
    sql: `INSERT INTO "DispatchedEmail" ("id", "tenant", "createdAt") VALUES (@id, @tenant, @createdAt)`,
  },
  /** AAGUIDs (a JSON array) put on the app's allow or block list, moved there from the other. */
  putAuthenticators: {
    kind: 'write',
    sql: `INSERT INTO "Authenticator" ("tenant", "aaGuid", "isAllowed", "createdAt") SELECT @tenant, value, @isAllowed, @createdAt FROM json_each(@aaGuids) WHERE true
      ON CONFLICT ("tenant", "aaGuid") DO UPDATE SET "isAllowed" = excluded."isAllowed"`,
    postgres: `INSERT INTO "Authenticator" ("tenant", "aaGuid", "isAllowed", "createdAt")
      SELECT CAST(@tenant AS text), value, CAST(@isAllowed AS boolean), CAST(@createdAt AS timestamp(3)) FROM json_array_elements_text(CAST(@aaGuids AS json)) AS value
      ON CONFLICT ("tenant", "aaGuid") DO UPDATE SET "isAllowed" = excluded."isAllowed"`,
  },
  removeAuthenticators: {
    kind: 'write',
    sql: `DELETE FROM "Authenticator" WHERE "tenant" = @tenant AND "aaGuid" IN (SELECT value FROM json_each(@aaGuids))`,
    postgres: `DELETE FROM "Authenticator" WHERE "tenant" = @tenant AND "aaGuid" IN (SELECT json_array_elements_text(CAST(@aaGuids AS json)))`,
  },
  /** The app's deletion, unless one is pending. */
  scheduleAppDeletion: {
    kind: 'write',
    sql: `UPDATE "App" SET "deleteAt" = @deleteAt, "keysFreezeAt" = @keysFreezeAt, "keysFrozenForDeletion" = @keysFrozen, "deletionNonce" = @nonce
      WHERE "id" = @tenant AND "deleteAt" IS NULL`,
  },
  /** The app's pending deletion cleared: any (`nonce` null), or only the one whose abort link carries `nonce`. */
  cancelAppDeletion: {
    kind: 'write',
    sql: `UPDATE "App" SET "deleteAt" = NULL, "keysFreezeAt" = NULL, "keysFrozenForDeletion" = @keysFrozen, "deletionNonce" = NULL
      WHERE "id" = @tenant AND "deleteAt" IS NOT NULL AND (@nonce IS NULL OR "deletionNonce" = @nonce)`,
    postgres: `UPDATE "App" SET "deleteAt" = NULL, "keysFreezeAt" = NULL, "keysFrozenForDeletion" = @keysFrozen, "deletionNonce" = NULL
      WHERE "id" = @tenant AND "deleteAt" IS NOT NULL AND (CAST(@nonce AS text) IS NULL OR "deletionNonce" = @nonce)`,
  },
  /**
   * The first step of a unit that checks what the app has before adding to it: holds the app's row
   * until the unit ends, so that such units for one app take turns and none passes a limit another
   * is checking at the same time (PostgreSQL, read committed: the next statement's snapshot sees
   * what the previous holder committed). `FOR NO KEY UPDATE`: the lock inserts referencing the app
   * take (`FOR KEY SHARE`) does not wait for it. SQLite's writer runs one unit at a time anyway.
   */
  lockApp: {
    kind: 'write',
    sql: `SELECT "id" FROM "App" WHERE "id" = @tenant`,
    postgres: `SELECT "id" FROM "App" WHERE "id" = @tenant FOR NO KEY UPDATE`,
  },
  /** An endpoint, unless the app has `max` already (counted after `lockApp`); answers the new row. */
  insertWebhookEndpointWithin: {
    kind: 'write',
    sql: `INSERT INTO "WebhookEndpoint" ("id", "tenant", "url", "eventTypes", "description", "enabled", "secret", "createdAt")
      SELECT @id, @tenant, @url, @eventTypes, @description, @enabled, @secret, @createdAt WHERE (SELECT COUNT(*) FROM "WebhookEndpoint" WHERE "tenant" = @tenant) < @max
      RETURNING "id", "url", "eventTypes", "description", "enabled", "disabledReason", "previousSecretExpiresAt", "createdAt"`,
    postgres: `INSERT INTO "WebhookEndpoint" ("id", "tenant", "url", "eventTypes", "description", "enabled", "secret", "createdAt")
      SELECT CAST(@id AS text), CAST(@tenant AS text), CAST(@url AS text), CAST(@eventTypes AS text), CAST(@description AS text), CAST(@enabled AS boolean),
        CAST(@secret AS text), CAST(@createdAt AS timestamp(3))
      WHERE (SELECT COUNT(*) FROM "WebhookEndpoint" WHERE "tenant" = @tenant) < CAST(@max AS integer)
      RETURNING "id", "url", "eventTypes", "description", "enabled", "disabledReason", "previousSecretExpiresAt", "createdAt"`,
  },
  /**
   * Whether a test event or a replay may be queued (after `lockApp`): the endpoint's pending
   * deliveries (its (endpointId, state, createdAt) index) and the app's (over its endpoints), and
   * which limit refuses it (0: none, 1: the endpoint's, 2: the app's outbox quota).
   */
  requestedSendRoom: {
    kind: 'write',
    sql: `SELECT "endpointPending", "appPending",
        CASE WHEN "endpointPending" >= @maxPending THEN 1 WHEN "appPending" >= @quota THEN 2 ELSE 0 END AS "refusal"
      FROM (SELECT (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "endpointId" = @endpointId AND "state" = 'pending' AND "tenant" = @tenant) AS "endpointPending",
        (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "endpointId" IN (SELECT "id" FROM "WebhookEndpoint" WHERE "tenant" = @tenant)
          AND "state" = 'pending' AND "tenant" = @tenant) AS "appPending") AS "counts"`,
    postgres: `SELECT "endpointPending", "appPending",
        CASE WHEN "endpointPending" >= CAST(@maxPending AS integer) THEN 1 WHEN "appPending" >= CAST(@quota AS integer) THEN 2 ELSE 0 END AS "refusal"
      FROM (SELECT (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "endpointId" = @endpointId AND "state" = 'pending' AND "tenant" = @tenant) AS "endpointPending",
        (SELECT COUNT(*) FROM "WebhookDelivery" WHERE "endpointId" IN (SELECT "id" FROM "WebhookEndpoint" WHERE "tenant" = @tenant)
          AND "state" = 'pending' AND "tenant" = @tenant) AS "appPending") AS "counts"`,
  },

  // --- the webhook worker's claims and records ------------------------------------------------
  /**
   * Claims, for up to `limit` endpoints whose oldest pending delivery is due, that head under a
   * lease; answers the heads. See `claimSteps` in webhookClaims.ts for the whole claim and why it
   * is written this way. `sending`: a JSON object, how many endpoints of each app this worker sends to now.
   */
  claimWebhookHeads: {
    kind: 'write',
    sql: `UPDATE "WebhookDelivery" SET "leaseUntil" = @leaseUntil, "claimedBy" = @workerId WHERE "id" IN (
        SELECT "id" FROM (
          SELECT c."id", c."nextAttemptAt",
            ROW_NUMBER() OVER (PARTITION BY c."tenant" ORDER BY c."nextAttemptAt", c."id") + COALESCE((SELECT value FROM json_each(@sending) WHERE key = c."tenant"), 0) AS "turn"
          FROM "WebhookEndpoint" e
          JOIN "WebhookDelivery" c ON c."id" = (SELECT h."id" FROM "WebhookDelivery" h WHERE h."endpointId" = e."id" AND h."state" = 'pending' ORDER BY h."createdAt", h."id" LIMIT 1)
          WHERE c."nextAttemptAt" <= @now AND (c."leaseUntil" IS NULL OR c."leaseUntil" <= @now)
        ) t WHERE "turn" <= @perApp ORDER BY "turn", "nextAttemptAt", "id" LIMIT @limit)
      RETURNING "id", "webhookId", "tenant", "endpointId", "payload", "attempts", "createdAt", "nextAttemptAt", "traceContext"`,
    // PostgreSQL locks what it takes (FOR UPDATE cannot share a query level with the window function): a head another replica took meanwhile is skipped.
    postgres: `UPDATE "WebhookDelivery" SET "leaseUntil" = CAST(@leaseUntil AS timestamp(3)), "claimedBy" = @workerId WHERE "id" IN (
        SELECT d."id" FROM "WebhookDelivery" d WHERE d."id" IN (
          SELECT "id" FROM (
            SELECT c."id", c."nextAttemptAt",
              ROW_NUMBER() OVER (PARTITION BY c."tenant" ORDER BY c."nextAttemptAt", c."id") + COALESCE(CAST(CAST(@sending AS json) ->> c."tenant" AS integer), 0) AS "turn"
            FROM "WebhookEndpoint" e
            JOIN "WebhookDelivery" c ON c."id" = (SELECT h."id" FROM "WebhookDelivery" h WHERE h."endpointId" = e."id" AND h."state" = 'pending' ORDER BY h."createdAt", h."id" LIMIT 1)
            WHERE c."nextAttemptAt" <= CAST(@now AS timestamp(3)) AND (c."leaseUntil" IS NULL OR c."leaseUntil" <= CAST(@now AS timestamp(3)))
          ) t WHERE "turn" <= CAST(@perApp AS integer) ORDER BY "turn", "nextAttemptAt", "id" LIMIT CAST(@limit AS integer))
        AND d."state" = 'pending' AND (d."leaseUntil" IS NULL OR d."leaseUntil" <= CAST(@now AS timestamp(3))) FOR UPDATE SKIP LOCKED)
      RETURNING "id", "webhookId", "tenant", "endpointId", "payload", "attempts", "createdAt", "nextAttemptAt", "traceContext"`,
  },
  /** The leases of deliveries this worker still holds (ids: a JSON array) moved on. */
  renewWebhookClaims: {
    kind: 'write',
    sql: `UPDATE "WebhookDelivery" SET "leaseUntil" = @leaseUntil WHERE "claimedBy" = @workerId AND "id" IN (SELECT value FROM json_each(@ids))`,
    postgres: `UPDATE "WebhookDelivery" SET "leaseUntil" = CAST(@leaseUntil AS timestamp(3)) WHERE "claimedBy" = @workerId AND "id" IN (SELECT json_array_elements_text(CAST(@ids AS json)))`,
  },
  /** A run's attempts from one JSON array (times in the store's encoding). */
  insertWebhookAttempts: {
    kind: 'write',
    sql: `INSERT INTO "WebhookAttempt" ("id", "tenant", "deliveryId", "at", "status", "error", "durationMs")
      SELECT value ->> 'id', value ->> 'tenant', value ->> 'deliveryId', value ->> 'at', value ->> 'status', value ->> 'error', value ->> 'durationMs' FROM json_each(@attempts)`,
    postgres: `INSERT INTO "WebhookAttempt" ("id", "tenant", "deliveryId", "at", "status", "error", "durationMs")
      SELECT "id", "tenant", "deliveryId", "at", "status", "error", "durationMs" FROM json_populate_recordset(NULL::"WebhookAttempt", CAST(@attempts AS json))`,
  },
  /** Deliveries of one app answered with one status, still held by this worker (ids: a JSON array), marked delivered. */
  markWebhookDeliveriesDelivered: {
    kind: 'write',
    sql: `UPDATE "WebhookDelivery" SET "state" = 'delivered', "attempts" = "attempts" + 1, "lastStatus" = @status, "lastError" = NULL, "leaseUntil" = NULL, "claimedBy" = NULL
      WHERE "tenant" = @tenant AND "claimedBy" = @workerId AND "id" IN (SELECT value FROM json_each(@ids))`,
    postgres: `UPDATE "WebhookDelivery" SET "state" = 'delivered', "attempts" = "attempts" + 1, "lastStatus" = CAST(@status AS integer), "lastError" = NULL, "leaseUntil" = NULL, "claimedBy" = NULL
      WHERE "tenant" = @tenant AND "claimedBy" = @workerId AND "id" IN (SELECT json_array_elements_text(CAST(@ids AS json)))`,
  },

  // --- steps of the units that change users (units.ts) -----------------------------------
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
        "transports", "rpid", "origin", "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt", "lastUsedDay",
        "prfSalt", "prfEnabled", "madeByUpgrade")
      VALUES (@tenant, @descriptorId, @userId, @userHandle, @publicKey, @signatureCounter, @attestationFmt, @aaGuid,
        @transports, @rpid, @origin, @country, @device, @nickname, @backupEligible, @backupState, @isDiscoverable, @uvInitialized, @createdAt, @lastUsedAt, @lastUsedDay,
        @prfSalt, @prfEnabled, @madeByUpgrade)`,
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
export const statementSql = (statement: StatementName, provider: 'sqlite' | 'postgresql'): string => {
  const entry: { sql: string; postgres?: string } = STATEMENTS[statement];
  return provider === 'postgresql' ? (entry.postgres ?? entry.sql) : entry.sql;
};

export type StatementName = keyof typeof STATEMENTS;
export type ReadStatement = { [K in StatementName]: (typeof STATEMENTS)[K]['kind'] extends 'read' ? K : never }[StatementName];
export type WriteStatement = Exclude<StatementName, ReadStatement>;

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

/**
 * Statements composed of copies of one part, one per item of the call (the driver prepares each
 * size once): what a single text cannot say on both databases (SQLite has no LATERAL join).
 */
export const COMPOSED_STATEMENTS = {
  /**
   * After `claimWebhookHeads`: per endpoint (`endpoint0`, `endpoint1`, …), the pending deliveries
   * after its head, oldest first, up to `followers` (one index range each), under the same lease.
   */
  claimWebhookFollowers: (size: number, provider: 'sqlite' | 'postgresql'): string => {
    const at = (name: string) => (provider === 'postgresql' ? `CAST(@${name} AS timestamp(3))` : `@${name}`);
    const limit = provider === 'postgresql' ? 'CAST(@followers AS integer)' : '@followers';
    const runs = Array.from(
      { length: size },
      (_, i) => `SELECT "id" FROM (SELECT f."id" FROM "WebhookDelivery" f WHERE f."endpointId" = @endpoint${i} AND f."state" = 'pending'
         AND (f."leaseUntil" IS NULL OR f."leaseUntil" <= ${at('now')}) ORDER BY f."createdAt", f."id" LIMIT ${limit}) r${i}`,
    );
    return `UPDATE "WebhookDelivery" SET "leaseUntil" = ${at('leaseUntil')}, "claimedBy" = @workerId WHERE "id" IN (${runs.join(' UNION ALL ')})
      RETURNING "id", "webhookId", "tenant", "endpointId", "payload", "attempts", "createdAt", "nextAttemptAt", "traceContext"`;
  },
} as const;
export type ComposedStatement = keyof typeof COMPOSED_STATEMENTS;
