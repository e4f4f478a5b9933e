-- Whether the operator console made the app (its own, `pwlconsole`): set only by the console when it
-- creates it, or when it recognises an older version's console app (every key one that version
-- derived). Every other app, and a `pwlconsole` someone else made, is false.
ALTER TABLE "App" ADD COLUMN "reserved" BOOLEAN NOT NULL DEFAULT false;
