-- The event log pages by key: (performedAt, id) is the order of /events (newest first, ties broken
-- by id), so the index carries both and a page after an event is one index range, however long
-- the log. The number of events is kept in the app's row, counted once here.
DROP INDEX "Event_tenant_performedAt_idx";
CREATE INDEX "Event_tenant_performedAt_id_idx" ON "Event"("tenant", "performedAt", "id");

ALTER TABLE "App" ADD COLUMN "eventCount" INTEGER NOT NULL DEFAULT 0;
UPDATE "App" SET "eventCount" = (SELECT COUNT(*) FROM "Event" WHERE "Event"."tenant" = "App"."id");
