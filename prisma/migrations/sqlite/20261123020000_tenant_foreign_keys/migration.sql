-- Every tenant-owned row belongs to an existing app: deleting the App row deletes them all in the
-- same statement, and a row for an app that is gone (or going) is refused. SQLite adds a foreign
-- key only by redefining the table. Rows left behind by apps deleted before this migration belong
-- to nobody and would be inherited by a new app of the same id, so they are not copied. (The
-- migrator runs with foreign_keys off and checks them all before it commits.)

CREATE TABLE "new_ApiKey" (
    "tenant" TEXT NOT NULL,
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "publicValue" TEXT,
    "scopes" TEXT NOT NULL,
    "isLocked" BOOLEAN NOT NULL DEFAULT false,
    "lastLockedAt" DATETIME,
    "lastUnlockedAt" DATETIME,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("tenant", "id"),
    CONSTRAINT "ApiKey_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_ApiKey" ("tenant", "id", "kind", "keyHash", "publicValue", "scopes", "isLocked", "lastLockedAt", "lastUnlockedAt", "createdAt")
SELECT "tenant", "id", "kind", "keyHash", "publicValue", "scopes", "isLocked", "lastLockedAt", "lastUnlockedAt", "createdAt" FROM "ApiKey" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "ApiKey";
ALTER TABLE "new_ApiKey" RENAME TO "ApiKey";

CREATE TABLE "new_TokenKey" (
    "tenant" TEXT NOT NULL,
    "keyId" INTEGER NOT NULL,
    "keyMaterial" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("tenant", "keyId"),
    CONSTRAINT "TokenKey_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_TokenKey" ("tenant", "keyId", "keyMaterial", "createdAt")
SELECT "tenant", "keyId", "keyMaterial", "createdAt" FROM "TokenKey" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "TokenKey";
ALTER TABLE "new_TokenKey" RENAME TO "TokenKey";

CREATE TABLE "new_Credential" (
    "tenant" TEXT NOT NULL,
    "descriptorId" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "userHandle" TEXT NOT NULL,
    "publicKey" TEXT NOT NULL,
    "signatureCounter" BIGINT NOT NULL DEFAULT 0,
    "attestationFmt" TEXT NOT NULL DEFAULT 'none',
    "aaGuid" TEXT NOT NULL DEFAULT '00000000-0000-0000-0000-000000000000',
    "transports" TEXT NOT NULL DEFAULT '[]',
    "rpid" TEXT NOT NULL,
    "origin" TEXT NOT NULL,
    "country" TEXT NOT NULL DEFAULT '',
    "device" TEXT NOT NULL DEFAULT '',
    "nickname" TEXT NOT NULL DEFAULT '',
    "backupEligible" BOOLEAN NOT NULL DEFAULT false,
    "backupState" BOOLEAN NOT NULL DEFAULT false,
    "isDiscoverable" BOOLEAN,
    "uvInitialized" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "lastUsedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("tenant", "descriptorId"),
    CONSTRAINT "Credential_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Credential" ("tenant", "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "attestationFmt", "aaGuid", "transports", "rpid", "origin", "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt")
SELECT "tenant", "descriptorId", "userId", "userHandle", "publicKey", "signatureCounter", "attestationFmt", "aaGuid", "transports", "rpid", "origin", "country", "device", "nickname", "backupEligible", "backupState", "isDiscoverable", "uvInitialized", "createdAt", "lastUsedAt" FROM "Credential" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "Credential";
ALTER TABLE "new_Credential" RENAME TO "Credential";
CREATE INDEX "Credential_tenant_userId_idx" ON "Credential"("tenant", "userId");

CREATE TABLE "new_Alias" (
    "tenant" TEXT NOT NULL,
    "aliasHash" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "plaintext" TEXT,
    PRIMARY KEY ("tenant", "aliasHash"),
    CONSTRAINT "Alias_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Alias" ("tenant", "aliasHash", "userId", "plaintext")
SELECT "tenant", "aliasHash", "userId", "plaintext" FROM "Alias" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "Alias";
ALTER TABLE "new_Alias" RENAME TO "Alias";
CREATE INDEX "Alias_tenant_userId_idx" ON "Alias"("tenant", "userId");

CREATE TABLE "new_Challenge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant" TEXT NOT NULL,
    "ceremony" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "expectedUserId" TEXT,
    CONSTRAINT "Challenge_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Challenge" ("id", "tenant", "ceremony", "expiresAt", "expectedUserId")
SELECT "id", "tenant", "ceremony", "expiresAt", "expectedUserId" FROM "Challenge" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "Challenge";
ALTER TABLE "new_Challenge" RENAME TO "Challenge";
CREATE INDEX "Challenge_expiresAt_idx" ON "Challenge"("expiresAt");

CREATE TABLE "new_RedeemedToken" (
    "tenant" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    PRIMARY KEY ("tenant", "tokenId"),
    CONSTRAINT "RedeemedToken_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_RedeemedToken" ("tenant", "tokenId", "expiresAt")
SELECT "tenant", "tokenId", "expiresAt" FROM "RedeemedToken" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "RedeemedToken";
ALTER TABLE "new_RedeemedToken" RENAME TO "RedeemedToken";
CREATE INDEX "RedeemedToken_expiresAt_idx" ON "RedeemedToken"("expiresAt");

CREATE TABLE "new_AuthConfig" (
    "tenant" TEXT NOT NULL,
    "purpose" TEXT NOT NULL,
    "userVerificationRequirement" TEXT NOT NULL DEFAULT 'preferred',
    "timeToLiveSeconds" INTEGER NOT NULL DEFAULT 120,
    "hints" TEXT NOT NULL DEFAULT '[]',
    "createdBy" TEXT NOT NULL,
    "createdOn" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "editedBy" TEXT,
    "editedOn" DATETIME,
    "lastUsedOn" DATETIME,
    PRIMARY KEY ("tenant", "purpose"),
    CONSTRAINT "AuthConfig_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_AuthConfig" ("tenant", "purpose", "userVerificationRequirement", "timeToLiveSeconds", "hints", "createdBy", "createdOn", "editedBy", "editedOn", "lastUsedOn")
SELECT "tenant", "purpose", "userVerificationRequirement", "timeToLiveSeconds", "hints", "createdBy", "createdOn", "editedBy", "editedOn", "lastUsedOn" FROM "AuthConfig" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "AuthConfig";
ALTER TABLE "new_AuthConfig" RENAME TO "AuthConfig";

CREATE TABLE "new_Event" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant" TEXT NOT NULL,
    "performedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "eventType" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "performedBy" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL DEFAULT '',
    CONSTRAINT "Event_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_Event" ("id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId")
SELECT "id", "tenant", "performedAt", "eventType", "message", "severity", "performedBy", "subject", "apiKeyId" FROM "Event" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "Event";
ALTER TABLE "new_Event" RENAME TO "Event";
CREATE INDEX "Event_tenant_performedAt_idx" ON "Event"("tenant", "performedAt");

CREATE TABLE "new_DispatchedEmail" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    CONSTRAINT "DispatchedEmail_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);
INSERT INTO "new_DispatchedEmail" ("id", "tenant", "createdAt")
SELECT "id", "tenant", "createdAt" FROM "DispatchedEmail" WHERE "tenant" IN (SELECT "id" FROM "App");
DROP TABLE "DispatchedEmail";
ALTER TABLE "new_DispatchedEmail" RENAME TO "DispatchedEmail";
CREATE INDEX "DispatchedEmail_tenant_createdAt_idx" ON "DispatchedEmail"("tenant", "createdAt");
