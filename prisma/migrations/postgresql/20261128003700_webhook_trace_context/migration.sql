-- The W3C traceparent of the span whose change queued a delivery, when the service traced it:
-- the delivery's own span links to it. NULL when tracing was off.
ALTER TABLE "WebhookDelivery" ADD COLUMN "traceContext" TEXT;

-- pwl_store_registration (20261126010000_registration_statement), redefined once for this
-- release's columns: its Credential insert stores "prfSalt" and "prfEnabled"
-- (20261127050000_passkey_extensions) and "madeByUpgrade" (20261127060000_upgrade_passkeys), and its
-- WebhookDelivery insert "traceContext"; nothing else changed.
CREATE OR REPLACE FUNCTION "pwl_store_registration"(
    "p_tenant" TEXT,
    "p_user_id" TEXT,
    "p_token_id" TEXT,
    "p_token_expires_at" TIMESTAMP(3),
    "p_aliases" JSON,
    "p_credential" JSON,
    "p_deliveries" JSON
) RETURNS TEXT LANGUAGE plpgsql AS $$
DECLARE
    v_credentials INTEGER;
BEGIN
    IF p_token_id IS NOT NULL THEN
        INSERT INTO "RedeemedToken" ("tenant", "tokenId", "expiresAt") VALUES (p_tenant, p_token_id, p_token_expires_at) ON CONFLICT DO NOTHING;
        IF NOT FOUND THEN
            RETURN 'token_already_used';
        END IF;
    END IF;

    IF p_aliases IS NULL THEN
        INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") VALUES (p_tenant, p_user_id, 1, 0)
        ON CONFLICT ("tenant", "userId") DO UPDATE SET "credentialsCount" = "User"."credentialsCount" + 1
        RETURNING "credentialsCount" INTO v_credentials;
    ELSE
        INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount") VALUES (p_tenant, p_user_id, 1, json_array_length(p_aliases))
        ON CONFLICT ("tenant", "userId") DO UPDATE SET "credentialsCount" = "User"."credentialsCount" + 1, "aliasCount" = excluded."aliasCount"
        RETURNING "credentialsCount" INTO v_credentials;
        DELETE FROM "Alias" WHERE "tenant" = p_tenant AND "userId" = p_user_id;
        INSERT INTO "Alias" ("tenant", "aliasHash", "userId", "plaintext")
        SELECT p_tenant, a."aliasHash", p_user_id, a."plaintext" FROM json_to_recordset(p_aliases) AS a("aliasHash" TEXT, "plaintext" TEXT);
    END IF;

    -- The user's first passkey: the app gains a user, unless that would pass its maxUsers.
    IF v_credentials = 1 THEN
        INSERT INTO "AppCounter" ("tenant", "userCount") SELECT "id", 1 FROM "App" WHERE "id" = p_tenant AND ("maxUsers" IS NULL OR "maxUsers" > 0)
        ON CONFLICT ("tenant") DO UPDATE SET "userCount" = "AppCounter"."userCount" + 1
        WHERE "AppCounter"."userCount" < COALESCE((SELECT "maxUsers" FROM "App" WHERE "App"."id" = "AppCounter"."tenant"), 2147483647);
        IF NOT FOUND THEN
            RAISE EXCEPTION USING ERRCODE = 'PWL01', MESSAGE = 'max_users_reached';
        END IF;
    END IF;

    INSERT INTO "Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "attestationFmt", "aaGuid",
        "transports", "rpid", "origin", "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt", "lastUsedDay",
        "prfSalt", "prfEnabled", "madeByUpgrade")
    SELECT p_tenant, c."descriptorId", p_user_id, c."userHandle", c."publicKey", c."signatureCounter", c."attestationFmt", c."aaGuid",
        c."transports", c."rpid", c."origin", c."country", c."device", c."nickname", c."backupEligible", c."backupState", c."isDiscoverable", c."uvInitialized", c."createdAt", c."lastUsedAt", c."lastUsedDay",
        c."prfSalt", c."prfEnabled", COALESCE(c."madeByUpgrade", false)
    FROM json_populate_record(NULL::"Credential", p_credential) AS c;

    IF p_deliveries IS NOT NULL THEN
        INSERT INTO "WebhookDelivery" ("id", "tenant", "endpointId", "eventType", "payload", "createdAt", "nextAttemptAt", "traceContext")
        SELECT d."id", d."tenant", d."endpointId", d."eventType", d."payload", d."createdAt", d."createdAt", d."traceContext"
        FROM json_populate_recordset(NULL::"WebhookDelivery", p_deliveries) AS d;
    END IF;

    RETURN 'ok';
END
$$;
