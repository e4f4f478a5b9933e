-- Daily reports: one snapshot per app and UTC day; the primary key lets only the first of several
-- replicas sweeping at once write it.
CREATE TABLE "DailyReport" (
    "tenant" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "users" INTEGER NOT NULL,
    "credentials" INTEGER NOT NULL,
    "dailyActiveUsers" INTEGER NOT NULL,
    "weeklyActiveUsers" INTEGER NOT NULL,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY ("tenant", "day"),
    CONSTRAINT "DailyReport_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App" ("id") ON DELETE CASCADE ON UPDATE CASCADE
);

-- The UTC day of each credential's last use (days since 1970-01-01), for the active-user counts by
-- index range. Existing rows take it from lastUsedAt, which Prisma stores as ISO 8601 text here.
ALTER TABLE "Credential" ADD COLUMN "lastUsedDay" INTEGER NOT NULL DEFAULT 0;
UPDATE "Credential" SET "lastUsedDay" = CAST(julianday(substr("lastUsedAt", 1, 10)) - julianday('1970-01-01') AS INTEGER);
CREATE INDEX "Credential_tenant_lastUsedDay_userId_idx" ON "Credential"("tenant", "lastUsedDay", "userId");
