-- Daily reports: one snapshot per app and UTC day; the primary key lets only the first of several
-- replicas sweeping at once write it.
CREATE TABLE "DailyReport" (
    "tenant" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "users" INTEGER NOT NULL,
    "credentials" INTEGER NOT NULL,
    "dailyActiveUsers" INTEGER NOT NULL,
    "weeklyActiveUsers" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "DailyReport_pkey" PRIMARY KEY ("tenant","day")
);

ALTER TABLE "DailyReport" ADD CONSTRAINT "DailyReport_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- The UTC day of each credential's last use (days since 1970-01-01), for the active-user counts by
-- index range. Existing rows take it from lastUsedAt (a UTC timestamp).
ALTER TABLE "Credential" ADD COLUMN "lastUsedDay" INTEGER NOT NULL DEFAULT 0;
UPDATE "Credential" SET "lastUsedDay" = "lastUsedAt"::date - DATE '1970-01-01';
CREATE INDEX "Credential_tenant_lastUsedDay_userId_idx" ON "Credential"("tenant", "lastUsedDay", "userId");
