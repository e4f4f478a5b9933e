-- Each app's secret for the decoy allow list that signin/begin answers for a name nobody has
-- (so that the answer does not tell who has an account): random, hex. Existing apps get theirs
-- here (two version-4 UUIDs, 244 random bits, from the server's strong random source); new apps
-- 32 random bytes when they are created.
ALTER TABLE "App" ADD COLUMN "decoyKey" TEXT NOT NULL DEFAULT '';
UPDATE "App" SET "decoyKey" = replace(gen_random_uuid()::text || gen_random_uuid()::text, '-', '');
