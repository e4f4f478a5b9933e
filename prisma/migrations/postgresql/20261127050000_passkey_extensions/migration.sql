-- Passkey extensions (issue 35, item 6).
-- prfSalt: the passkey's own PRF salt (32 random bytes as hex), sent at sign-in begin as
-- `prf.evalByCredential`; every passkey stored before this migration gets one here (two
-- gen_random_uuid(), 244 random bits from the server's strong generator; built in since PostgreSQL 13).
-- prfEnabled: the registration's `prf.enabled` client extension result; NULL when not reported.
ALTER TABLE "Credential" ADD COLUMN "prfSalt" TEXT;
ALTER TABLE "Credential" ADD COLUMN "prfEnabled" BOOLEAN;
UPDATE "Credential" SET "prfSalt" = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '') WHERE "prfSalt" IS NULL;
-- The extensions an authentication configuration asks for, as JSON ({"prf":true,"largeBlob":"read"}).
ALTER TABLE "AuthConfig" ADD COLUMN "extensions" TEXT NOT NULL DEFAULT '{}';

-- pwl_store_registration stores the new columns from 20261128003700_webhook_trace_context on,
-- which redefines it once for this release's columns.
