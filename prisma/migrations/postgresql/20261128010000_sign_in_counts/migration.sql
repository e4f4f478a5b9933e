-- Sign-ins by method: one row per app and UTC day, which every replica's flush adds its tally to
-- (INSERT ... ON CONFLICT DO UPDATE), never one write per verify.
CREATE TABLE "SignInCount" (
    "tenant" TEXT NOT NULL,
    "day" TEXT NOT NULL,
    "passkey" INTEGER NOT NULL DEFAULT 0,
    "magicLink" INTEGER NOT NULL DEFAULT 0,
    "generatedToken" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "SignInCount_pkey" PRIMARY KEY ("tenant","day")
);

ALTER TABLE "SignInCount" ADD CONSTRAINT "SignInCount_tenant_fkey" FOREIGN KEY ("tenant") REFERENCES "App"("id") ON DELETE CASCADE ON UPDATE CASCADE;
