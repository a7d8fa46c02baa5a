-- (h) The SQLite floor for the conversion benchmark: notes whose dates, flags and titles
-- are text, converted as Benchmarks/pipelines/notes-convert.json converts them.
--
-- Run by Benchmarks/run.py as
--   sqlite3 -bail -cmd ".parameter set \$src 'file:SOURCE?mode=ro'" DESTINATION < notes-convert.sql
-- on a DESTINATION that does not exist yet. The source is attached read-only.
--
-- It writes exactly the schema `etl run` writes for notes-v2 in the plain layout. What a
-- hand-written script does with SQLite's own functions, for the values run.py writes
-- (every one valid): `unixepoch` reads the ISO-8601 dates (with or without time, `Z` or
-- an offset), a CASE reads the words and digits of a flag, and `trim` removes the spaces
-- and tabs around a title. etl's `date`, `boolean` and `trim` do more (they reject what
-- they cannot convert, and trim all of Unicode's white space); this is the floor.

ATTACH $src AS src;

BEGIN;

CREATE TABLE IF NOT EXISTS "Note" ("id" INTEGER PRIMARY KEY, "title" VARCHAR, "createdAt" TIMESTAMP, "done" INTEGER);

INSERT INTO "Note" ("id", "title", "createdAt", "done")
SELECT "id",
       trim("title", ' ' || char(9)),
       unixepoch("createdAt"),
       CASE lower("done")
           WHEN 'true' THEN 1 WHEN 'yes' THEN 1 WHEN 'on' THEN 1 WHEN '1' THEN 1
           WHEN 'false' THEN 0 WHEN 'no' THEN 0 WHEN 'off' THEN 0 WHEN '0' THEN 0
       END
FROM src."Note" ORDER BY "id";

COMMIT;

DETACH src;
