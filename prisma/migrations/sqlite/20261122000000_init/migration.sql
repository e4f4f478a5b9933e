-- CreateTable
CREATE TABLE "App" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "adminEmail" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'trial',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "frozen" BOOLEAN NOT NULL DEFAULT false,
    "deleteAt" DATETIME,
    "eventLoggingIsEnabled" BOOLEAN NOT NULL DEFAULT false,
    "eventLoggingRetentionPeriod" INTEGER NOT NULL DEFAULT 365,
    "magicLinkEmailMonthlyQuota" INTEGER NOT NULL DEFAULT 0,
    "maxUsers" INTEGER,
    "allowAttestation" BOOLEAN NOT NULL DEFAULT false,
    "isGenerateSignInTokenEndpointEnabled" BOOLEAN NOT NULL DEFAULT true,
    "isMagicLinksEnabled" BOOLEAN NOT NULL DEFAULT true,
    "allowedOrigins" TEXT NOT NULL DEFAULT '[]',
    "sdkCompatibleLists" BOOLEAN
);

-- CreateTable
CREATE TABLE "ApiKey" (
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

    PRIMARY KEY ("tenant", "id")
);

-- CreateTable
CREATE TABLE "TokenKey" (
    "tenant" TEXT NOT NULL,
    "keyId" INTEGER NOT NULL,
    "keyMaterial" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,

    PRIMARY KEY ("tenant", "keyId")
);

-- CreateTable
CREATE TABLE "Credential" (
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

    PRIMARY KEY ("tenant", "descriptorId")
);

-- CreateTable
CREATE TABLE "Alias" (
    "tenant" TEXT NOT NULL,
    "aliasHash" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "plaintext" TEXT,

    PRIMARY KEY ("tenant", "aliasHash")
);

-- CreateTable
CREATE TABLE "Challenge" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant" TEXT NOT NULL,
    "ceremony" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,
    "expectedUserId" TEXT
);

-- CreateTable
CREATE TABLE "RedeemedToken" (
    "tenant" TEXT NOT NULL,
    "tokenId" TEXT NOT NULL,
    "expiresAt" DATETIME NOT NULL,

    PRIMARY KEY ("tenant", "tokenId")
);

-- CreateTable
CREATE TABLE "AuthConfig" (
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

    PRIMARY KEY ("tenant", "purpose")
);

-- CreateTable
CREATE TABLE "Event" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant" TEXT NOT NULL,
    "performedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "eventType" TEXT NOT NULL,
    "message" TEXT NOT NULL,
    "severity" TEXT NOT NULL,
    "performedBy" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "apiKeyId" TEXT NOT NULL DEFAULT ''
);

-- CreateTable
CREATE TABLE "DispatchedEmail" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "tenant" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "emailAddress" TEXT NOT NULL,
    "linkTemplate" TEXT NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Credential_tenant_userId_idx" ON "Credential"("tenant", "userId");

-- CreateIndex
CREATE INDEX "Alias_tenant_userId_idx" ON "Alias"("tenant", "userId");

-- CreateIndex
CREATE INDEX "Challenge_expiresAt_idx" ON "Challenge"("expiresAt");

-- CreateIndex
CREATE INDEX "RedeemedToken_expiresAt_idx" ON "RedeemedToken"("expiresAt");

-- CreateIndex
CREATE INDEX "Event_tenant_performedAt_idx" ON "Event"("tenant", "performedAt");

-- CreateIndex
CREATE INDEX "DispatchedEmail_tenant_createdAt_idx" ON "DispatchedEmail"("tenant", "createdAt");

