-- A passkey made by the automatic upgrade after a password sign-in (a conditional create, which
-- may lack the user-present flag); false for every passkey made before.
ALTER TABLE "Credential" ADD COLUMN "madeByUpgrade" BOOLEAN NOT NULL DEFAULT false;
