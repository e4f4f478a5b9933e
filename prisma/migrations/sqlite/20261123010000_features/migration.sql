-- Magic links keep no email address, user or link: only when each one was sent, for the quota.
ALTER TABLE "DispatchedEmail" DROP COLUMN "emailAddress";
ALTER TABLE "DispatchedEmail" DROP COLUMN "userId";
ALTER TABLE "DispatchedEmail" DROP COLUMN "linkTemplate";

-- One rule for the event-log retention, at creation and afterwards: 0..90 days, default 90.
-- SQLite cannot change a column default in place, so the table is redefined.
CREATE TABLE "new_App" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "adminEmail" TEXT NOT NULL,
    "plan" TEXT NOT NULL DEFAULT 'trial',
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "frozen" BOOLEAN NOT NULL DEFAULT false,
    "deleteAt" DATETIME,
    "eventLoggingIsEnabled" BOOLEAN NOT NULL DEFAULT false,
    "eventLoggingRetentionPeriod" INTEGER NOT NULL DEFAULT 90,
    "magicLinkEmailMonthlyQuota" INTEGER NOT NULL DEFAULT 0,
    "maxUsers" INTEGER,
    "allowAttestation" BOOLEAN NOT NULL DEFAULT false,
    "isGenerateSignInTokenEndpointEnabled" BOOLEAN NOT NULL DEFAULT true,
    "isMagicLinksEnabled" BOOLEAN NOT NULL DEFAULT true,
    "allowedOrigins" TEXT NOT NULL DEFAULT '[]',
    "sdkCompatibleLists" BOOLEAN
);
INSERT INTO "new_App" ("id", "adminEmail", "plan", "createdAt", "frozen", "deleteAt", "eventLoggingIsEnabled", "eventLoggingRetentionPeriod", "magicLinkEmailMonthlyQuota", "maxUsers", "allowAttestation", "isGenerateSignInTokenEndpointEnabled", "isMagicLinksEnabled", "allowedOrigins", "sdkCompatibleLists")
SELECT "id", "adminEmail", "plan", "createdAt", "frozen", "deleteAt", "eventLoggingIsEnabled", MIN("eventLoggingRetentionPeriod", 90), "magicLinkEmailMonthlyQuota", "maxUsers", "allowAttestation", "isGenerateSignInTokenEndpointEnabled", "isMagicLinksEnabled", "allowedOrigins", "sdkCompatibleLists" FROM "App";
DROP TABLE "App";
ALTER TABLE "new_App" RENAME TO "App";
