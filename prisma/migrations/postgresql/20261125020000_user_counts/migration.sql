-- Users are counted, not scanned: a row per userId that holds a passkey or an alias, with its
-- counts, and per app a counter row with its number of users with a passkey (users/count,
-- maxUsers). Existing apps get their figures from the rows they hold.

CREATE TABLE "AppCounter" (
    "tenant" TEXT NOT NULL,
    "userCount" INTEGER NOT NULL DEFAULT 0,
    "eventCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "AppCounter_pkey" PRIMARY KEY ("tenant")
);

ALTER TABLE "AppCounter" ADD CONSTRAINT "AppCounter_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

CREATE TABLE "User" (
    "tenant" TEXT NOT NULL,
    "userId" TEXT NOT NULL,
    "credentialsCount" INTEGER NOT NULL DEFAULT 0,
    "aliasCount" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "User_pkey" PRIMARY KEY ("tenant","userId")
);

ALTER TABLE "User" ADD CONSTRAINT "User_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

INSERT INTO "User" ("tenant", "userId", "credentialsCount", "aliasCount")
SELECT "tenant", "userId", SUM("credentials"), SUM("aliases")
FROM (
    SELECT "tenant", "userId", 1 AS "credentials", 0 AS "aliases" FROM "Credential"
    UNION ALL
    SELECT "tenant", "userId", 0 AS "credentials", 1 AS "aliases" FROM "Alias"
) AS "rows"
GROUP BY "tenant", "userId";

INSERT INTO "AppCounter" ("tenant", "userCount")
SELECT "id", (SELECT COUNT(*) FROM "User" WHERE "User"."tenant" = "App"."id" AND "User"."credentialsCount" > 0) FROM "App";
