-- App incarnations: each creation of an app id gets a random incarnation, carried in its tokens
-- and cached key checks, so that nothing of a deleted app passes for a new app with the same id.
-- Apps made before this migration keep '' (their tokens, issued without one, stay valid).
ALTER TABLE "App" ADD COLUMN "incarnation" TEXT NOT NULL DEFAULT '';
