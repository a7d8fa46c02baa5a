-- (a) The SQLite floor: the books v1 → v2 step as one hand-written SQL script.
--
-- Run by Benchmarks/run.py as
--   sqlite3 -bail -cmd ".parameter set \$src 'file:SOURCE?mode=ro'" DESTINATION < books-v1-v2.sql
-- on a DESTINATION that does not exist yet. The source is attached read-only.
--
-- It writes exactly the schema `etl run` writes for books-v2 in the plain layout
-- (docs/pipeline.md; taken from `sqlite3 out.sqlite .schema` of an etl run), so that one
-- dump query checks every tool. Users and books keep their source keys; authors are
-- numbered in order of their first book, as etl does. Indexes are built after the rows
-- are in, the fastest way SQLite knows to load a table.

ATTACH $src AS src;

BEGIN;

CREATE TABLE IF NOT EXISTS "User" ("id" INTEGER PRIMARY KEY, "userId" INTEGER, "name" VARCHAR);
CREATE TABLE IF NOT EXISTS "Book" ("id" INTEGER PRIMARY KEY, "title" VARCHAR, "fileURL" URI VARCHAR, "published" TIMESTAMP, "price" REAL);
CREATE TABLE IF NOT EXISTS "Author" ("id" INTEGER PRIMARY KEY, "name" VARCHAR);
CREATE TABLE IF NOT EXISTS "Book_users" ("source_id" INTEGER NOT NULL REFERENCES "Book"("id"), "target_id" INTEGER NOT NULL REFERENCES "User"("id"), PRIMARY KEY ("source_id", "target_id")) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS "Author_books" ("source_id" INTEGER NOT NULL REFERENCES "Author"("id"), "target_id" INTEGER NOT NULL REFERENCES "Book"("id"), PRIMARY KEY ("source_id", "target_id")) WITHOUT ROWID;

-- Copy users and books (authorName is dropped).
INSERT INTO "User" ("id", "userId", "name")
SELECT "id", "userId", "name" FROM src."User" ORDER BY "id";

INSERT INTO "Book" ("id", "title", "fileURL", "published", "price")
SELECT "id", "title", "fileURL", "published", "price" FROM src."Book" ORDER BY "id";

-- The many-to-many Book ↔ User: the keys did not change, so the pairs are copied.
INSERT INTO "Book_users" ("source_id", "target_id")
SELECT "source_id", "target_id" FROM src."Book_users" ORDER BY "source_id", "target_id";

-- One author per distinct non-null authorName, numbered by its first book.
INSERT INTO "Author" ("name")
SELECT "authorName" FROM src."Book"
WHERE "authorName" IS NOT NULL
GROUP BY "authorName"
ORDER BY min("id");

-- Link every book to its author through a helper index on the name, dropped afterwards
-- so that the schema stays etl's.
CREATE INDEX "bench_author_name" ON "Author" ("name");
INSERT INTO "Author_books" ("source_id", "target_id")
SELECT a."id", b."id"
FROM src."Book" AS b JOIN "Author" AS a ON a."name" = b."authorName"
ORDER BY a."id", b."id";
DROP INDEX "bench_author_name";

CREATE INDEX "Book_users_target_index" ON "Book_users"("target_id");
CREATE INDEX "Author_books_target_index" ON "Author_books"("target_id");

COMMIT;

DETACH src;
