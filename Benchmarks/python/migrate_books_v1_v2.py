#!/usr/bin/env python3
"""(b) The typical hand-written migration: the books v1 -> v2 step in Python.

    python3 migrate_books_v1_v2.py SOURCE DESTINATION [--batch N]

Standard library only. Reads the source row by row (read-only) and writes the
destination with executemany in batches of N rows (default 10,000), in one transaction,
with the schema `etl run` writes for books-v2 (plain layout, docs/pipeline.md). Users
and books keep their source keys; one author per distinct non-null authorName, numbered
in order of its first book, remembered in a dict name -> key.

DESTINATION must not exist.
"""

import argparse
import os
import sqlite3
import sys
import urllib.parse

SCHEMA = [
    'CREATE TABLE IF NOT EXISTS "User" ("id" INTEGER PRIMARY KEY, "userId" INTEGER, "name" VARCHAR)',
    'CREATE TABLE IF NOT EXISTS "Book" ("id" INTEGER PRIMARY KEY, "title" VARCHAR, "fileURL" URI VARCHAR, "published" TIMESTAMP, "price" REAL)',
    'CREATE TABLE IF NOT EXISTS "Author" ("id" INTEGER PRIMARY KEY, "name" VARCHAR)',
    'CREATE TABLE IF NOT EXISTS "Book_users" ("source_id" INTEGER NOT NULL REFERENCES "Book"("id"), "target_id" INTEGER NOT NULL REFERENCES "User"("id"), PRIMARY KEY ("source_id", "target_id")) WITHOUT ROWID',
    'CREATE INDEX "Book_users_target_index" ON "Book_users"("target_id")',
    'CREATE TABLE IF NOT EXISTS "Author_books" ("source_id" INTEGER NOT NULL REFERENCES "Author"("id"), "target_id" INTEGER NOT NULL REFERENCES "Book"("id"), PRIMARY KEY ("source_id", "target_id")) WITHOUT ROWID',
    'CREATE INDEX "Author_books_target_index" ON "Author_books"("target_id")',
]


def batches(rows, size):
    """Yields lists of at most `size` rows."""
    batch = []
    for row in rows:
        batch.append(row)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def migrate(source_path, destination_path, batch_size):
    uri = "file:" + urllib.parse.quote(os.path.abspath(source_path)) + "?mode=ro"
    src = sqlite3.connect(uri, uri=True)
    dst = sqlite3.connect(destination_path, isolation_level=None)
    dst.execute("BEGIN")
    for statement in SCHEMA:
        dst.execute(statement)

    # Users: copied as they are.
    users = src.execute('SELECT "id", "userId", "name" FROM "User" ORDER BY "id"')
    for batch in batches(users, batch_size):
        dst.executemany('INSERT INTO "User" ("id", "userId", "name") VALUES (?, ?, ?)', batch)

    # Books: copied without authorName; the authors are made on the way.
    author_keys = {}
    books = src.execute(
        'SELECT "id", "title", "authorName", "fileURL", "published", "price" FROM "Book" ORDER BY "id"')
    for batch in batches(books, batch_size):
        book_rows = []
        new_authors = []
        links = []
        for key, title, author_name, file_url, published, price in batch:
            book_rows.append((key, title, file_url, published, price))
            if author_name is not None:
                author_key = author_keys.get(author_name)
                if author_key is None:
                    author_key = len(author_keys) + 1
                    author_keys[author_name] = author_key
                    new_authors.append((author_key, author_name))
                links.append((author_key, key))
        dst.executemany(
            'INSERT INTO "Book" ("id", "title", "fileURL", "published", "price") VALUES (?, ?, ?, ?, ?)',
            book_rows)
        dst.executemany('INSERT INTO "Author" ("id", "name") VALUES (?, ?)', new_authors)
        dst.executemany('INSERT INTO "Author_books" ("source_id", "target_id") VALUES (?, ?)', links)

    # Book <-> User: the keys did not change, so the pairs are copied.
    pairs = src.execute('SELECT "source_id", "target_id" FROM "Book_users" ORDER BY "source_id", "target_id"')
    for batch in batches(pairs, batch_size):
        dst.executemany('INSERT INTO "Book_users" ("source_id", "target_id") VALUES (?, ?)', batch)

    dst.execute("COMMIT")
    dst.close()
    src.close()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source")
    parser.add_argument("destination")
    parser.add_argument("--batch", type=int, default=10_000, help="rows per executemany (default 10000)")
    args = parser.parse_args()
    if os.path.exists(args.destination):
        sys.exit(f"{args.destination}: exists; remove it first")
    migrate(args.source, args.destination, args.batch)


if __name__ == "__main__":
    main()
