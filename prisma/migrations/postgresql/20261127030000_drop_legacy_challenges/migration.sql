-- Ceremony challenges travel in the signed session token (a single-use `sid` redeemed into
-- "RedeemedToken"); the table that held them for sessions issued before that goes, with its index
-- and its foreign key.
DROP TABLE "Challenge";
