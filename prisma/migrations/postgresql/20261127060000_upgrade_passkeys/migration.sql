-- A passkey made by the automatic upgrade after a password sign-in (a conditional create, which
-- may lack the user-present flag); false for every passkey made before.
ALTER TABLE "Credential" ADD COLUMN "madeByUpgrade" BOOLEAN NOT NULL DEFAULT false;

-- pwl_store_registration stores the new columns from 20261128003700_webhook_trace_context on,
-- which redefines it once for this release's columns.
