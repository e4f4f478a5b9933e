-- Passkey extensions (issue 35, item 6).
-- prfSalt: the passkey's own PRF salt (32 random bytes as hex), sent at sign-in begin as
-- `prf.evalByCredential`; every passkey stored before this migration gets one here.
-- prfEnabled: the registration's `prf.enabled` client extension result; NULL when not reported.
ALTER TABLE "Credential" ADD COLUMN "prfSalt" TEXT;
ALTER TABLE "Credential" ADD COLUMN "prfEnabled" BOOLEAN;
UPDATE "Credential" SET "prfSalt" = lower(hex(randomblob(32))) WHERE "prfSalt" IS NULL;
-- The extensions an authentication configuration asks for, as JSON ({"prf":true,"largeBlob":"read"}).
ALTER TABLE "AuthConfig" ADD COLUMN "extensions" TEXT NOT NULL DEFAULT '{}';
