-- Magic links keep no email address, user or link: only when each one was sent, for the quota.
ALTER TABLE "DispatchedEmail" DROP COLUMN "emailAddress",
DROP COLUMN "userId",
DROP COLUMN "linkTemplate";

-- One rule for the event-log retention, at creation and afterwards: 0..90 days, default 90.
ALTER TABLE "App" ALTER COLUMN "eventLoggingRetentionPeriod" SET DEFAULT 90;
UPDATE "App" SET "eventLoggingRetentionPeriod" = 90 WHERE "eventLoggingRetentionPeriod" > 90;
