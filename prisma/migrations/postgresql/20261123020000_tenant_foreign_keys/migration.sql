-- Every tenant-owned row belongs to an existing app: deleting the App row deletes them all in the
-- same statement, and a row for an app that is gone (or going) is refused. Rows left behind by
-- apps deleted before this migration belong to nobody and would be inherited by a new app of the
-- same id, so they go first.
DELETE FROM "ApiKey" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "TokenKey" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "Credential" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "Alias" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "Challenge" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "RedeemedToken" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "AuthConfig" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "Event" WHERE "tenant" NOT IN (SELECT "id" FROM "App");
DELETE FROM "DispatchedEmail" WHERE "tenant" NOT IN (SELECT "id" FROM "App");

ALTER TABLE "ApiKey" ADD CONSTRAINT "ApiKey_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "TokenKey" ADD CONSTRAINT "TokenKey_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Credential" ADD CONSTRAINT "Credential_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Alias" ADD CONSTRAINT "Alias_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Challenge" ADD CONSTRAINT "Challenge_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "RedeemedToken" ADD CONSTRAINT "RedeemedToken_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "AuthConfig" ADD CONSTRAINT "AuthConfig_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "Event" ADD CONSTRAINT "Event_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
ALTER TABLE "DispatchedEmail" ADD CONSTRAINT "DispatchedEmail_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
