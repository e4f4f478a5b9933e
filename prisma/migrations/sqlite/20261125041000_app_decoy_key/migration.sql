-- Each app's secret for the decoy allow list that signin/begin answers for a name nobody has
-- (so that the answer does not tell who has an account): 32 random bytes, hex. Existing apps get
-- theirs here; new apps when they are created.
ALTER TABLE "App" ADD COLUMN "decoyKey" TEXT NOT NULL DEFAULT '';
UPDATE "App" SET "decoyKey" = lower(hex(randomblob(32)));
