-- (f) The SQLite floor for the whole books pipeline, v1 → v3 (pipelines/books.json), as
-- one hand-written SQL script.
--
-- Run by Benchmarks/run.py as
--   sqlite3 -bail -cmd ".parameter set \$src 'file:SOURCE?mode=ro'" DESTINATION < books-v1-v3.sql
-- on a DESTINATION that does not exist yet. The source is attached read-only.
--
-- It writes exactly the schema `etl run pipelines/books.json` writes for books-v3 in the
-- plain layout (taken from `sqlite3 v3.sqlite .schema` of an etl run), so that one dump
-- query checks both. The work of both steps, without the v2 store in between: users and
-- books keep their source keys; authors are numbered in order of their first book; one
-- File per (book with a fileURL, user) pair of the source's Book ↔ User many-to-many,
-- numbered in (book, user) order, as etl does. Indexes are built after the rows are in.

ATTACH $src AS src;

BEGIN;

CREATE TABLE IF NOT EXISTS "User" ("id" INTEGER PRIMARY KEY, "userId" INTEGER, "name" VARCHAR);
CREATE TABLE IF NOT EXISTS "Book" ("id" INTEGER PRIMARY KEY, "title" VARCHAR, "published" TIMESTAMP, "price" REAL);
CREATE TABLE IF NOT EXISTS "Author" ("id" INTEGER PRIMARY KEY, "name" VARCHAR);
CREATE TABLE IF NOT EXISTS "File" ("id" INTEGER PRIMARY KEY, "fileURL" URI VARCHAR, "book_id" INTEGER REFERENCES "Book"("id"), "user_id" INTEGER REFERENCES "User"("id"));
CREATE TABLE IF NOT EXISTS "Author_books" ("source_id" INTEGER NOT NULL REFERENCES "Author"("id"), "target_id" INTEGER NOT NULL REFERENCES "Book"("id"), PRIMARY KEY ("source_id", "target_id")) WITHOUT ROWID;

-- Copy users and books (authorName and fileURL leave Book).
INSERT INTO "User" ("id", "userId", "name")
SELECT "id", "userId", "name" FROM src."User" ORDER BY "id";

INSERT INTO "Book" ("id", "title", "published", "price")
SELECT "id", "title", "published", "price" FROM src."Book" ORDER BY "id";

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

-- One File per (book, user) pair of a book that has a file: the keys did not change, so
-- the pair's keys are the links.
INSERT INTO "File" ("fileURL", "book_id", "user_id")
SELECT b."fileURL", j."source_id", j."target_id"
FROM src."Book_users" AS j JOIN src."Book" AS b ON b."id" = j."source_id"
WHERE b."fileURL" IS NOT NULL
ORDER BY j."source_id", j."target_id";

CREATE INDEX "File_book_id_index" ON "File"("book_id");
CREATE INDEX "File_user_id_index" ON "File"("user_id");
CREATE INDEX "Author_books_target_index" ON "Author_books"("target_id");

COMMIT;

DETACH src;
