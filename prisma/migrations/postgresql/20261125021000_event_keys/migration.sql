-- The event log pages by key: (performedAt, id) is the order of /events (newest first, ties broken
-- by id), so the index carries both and a page after an event is one index range, however long
-- the log. The number of events is kept in the app's counter row, counted once here.
DROP INDEX "Event_tenant_performedAt_idx";
CREATE INDEX "Event_tenant_performedAt_id_idx" ON "Event"("tenant", "performedAt", "id");

UPDATE "AppCounter" SET "eventCount" = (SELECT COUNT(*) FROM "Event" WHERE "Event"."tenant" = "AppCounter"."tenant");
