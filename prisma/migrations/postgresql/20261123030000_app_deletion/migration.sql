-- Account deletion (POST /v3/account/delete, the management API's mark-delete): deleteAt is when
-- the data goes; keysFreezeAt when the keys stop working, which the deletion sweep records in
-- keysFrozenForDeletion; deletionNonce makes the emailed abort link single-use.
ALTER TABLE "App" ADD COLUMN "keysFreezeAt" TIMESTAMP(3),
ADD COLUMN "keysFrozenForDeletion" BOOLEAN NOT NULL DEFAULT false,
ADD COLUMN "deletionNonce" TEXT;

