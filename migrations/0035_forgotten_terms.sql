-- A forgotten note keeps no words: since 0033 its word forms (`terms`) were left behind when its text was
-- cleared. Clear them on the notes already forgotten; Kazma's forget clears them from now on.
UPDATE "memories" SET "terms" = NULL WHERE "forgotten_at" IS NOT NULL AND "terms" IS NOT NULL;
