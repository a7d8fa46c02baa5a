"""The check: what a destination holds, as a hash independent of the keys each tool chose,
the hash a correct one has (computed from the source without any tool), and its schema."""

import datetime
import hashlib
import os
import sqlite3
import urllib.parse


def sha256_file(path):
    """SHA-256 of a file's bytes: a source store must be the same after the runs."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def read_only_uri(path):
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


# The check: logical content, independent of the keys each tool chose.
#
# Every table becomes a sorted list of rows in which keys are replaced by natural
# values: User by userId, Book by title (unique: it contains the book's id), Author by
# name, Book<->User pairs as (title, userId), Book<->Author pairs as (name, title). Each
# row is written as Python's repr of the tuple (so 1 and 1.0, '1' and 1 differ) and
# hashed with SHA-256, section by section, followed by the row count of every table (a
# link to a missing row or a duplicate changes it). The expected hash is computed the
# same way from the v1 source, without any tool.

DESTINATION_DUMP = [
    ("User", 'SELECT "userId", "name" FROM "User" ORDER BY 1, 2', 'SELECT count(*) FROM "User"'),
    ("Book", 'SELECT "title", "fileURL", "published", "price" FROM "Book" ORDER BY 1, 2, 3, 4',
     'SELECT count(*) FROM "Book"'),
    ("Author", 'SELECT "name" FROM "Author" ORDER BY 1', 'SELECT count(*) FROM "Author"'),
    ("Book_users",
     'SELECT b."title", u."userId" FROM "Book_users" AS j '
     'JOIN "Book" AS b ON b."id" = j."source_id" JOIN "User" AS u ON u."id" = j."target_id" '
     'ORDER BY 1, 2',
     'SELECT count(*) FROM "Book_users"'),
    ("Author_books",
     'SELECT a."name", b."title" FROM "Author_books" AS j '
     'JOIN "Author" AS a ON a."id" = j."source_id" JOIN "Book" AS b ON b."id" = j."target_id" '
     'ORDER BY 1, 2',
     'SELECT count(*) FROM "Author_books"'),
]

# The same sections, as v2 must have them, from the v1 source.
EXPECTED_DUMP = [
    ("User", 'SELECT "userId", "name" FROM "User" ORDER BY 1, 2'),
    ("Book", 'SELECT "title", "fileURL", "published", "price" FROM "Book" ORDER BY 1, 2, 3, 4'),
    ("Author", 'SELECT DISTINCT "authorName" FROM "Book" WHERE "authorName" IS NOT NULL ORDER BY 1'),
    ("Book_users",
     'SELECT b."title", u."userId" FROM "Book_users" AS j '
     'JOIN "Book" AS b ON b."id" = j."source_id" JOIN "User" AS u ON u."id" = j."target_id" '
     'ORDER BY 1, 2'),
    ("Author_books",
     'SELECT "authorName", "title" FROM "Book" WHERE "authorName" IS NOT NULL ORDER BY 1, 2'),
]


# books v1 -> v3: File rows as (fileURL, title, userId), one per (book with a file, user)
# pair of the source's Book <-> User many-to-many.
DESTINATION_DUMP_V3 = [
    DESTINATION_DUMP[0],
    ("Book", 'SELECT "title", "published", "price" FROM "Book" ORDER BY 1, 2, 3', 'SELECT count(*) FROM "Book"'),
    DESTINATION_DUMP[2],
    DESTINATION_DUMP[4],
    ("File",
     'SELECT f."fileURL", b."title", u."userId" FROM "File" AS f '
     'JOIN "Book" AS b ON b."id" = f."book_id" JOIN "User" AS u ON u."id" = f."user_id" '
     'ORDER BY 1, 2, 3',
     'SELECT count(*) FROM "File"'),
]

EXPECTED_DUMP_V3 = [
    EXPECTED_DUMP[0],
    ("Book", 'SELECT "title", "published", "price" FROM "Book" ORDER BY 1, 2, 3'),
    EXPECTED_DUMP[2],
    EXPECTED_DUMP[4],
    ("File",
     'SELECT b."fileURL", b."title", u."userId" FROM "Book_users" AS j '
     'JOIN "Book" AS b ON b."id" = j."source_id" JOIN "User" AS u ON u."id" = j."target_id" '
     'WHERE b."fileURL" IS NOT NULL ORDER BY 1, 2, 3'),
]

# The conversion: notes as (title, createdAt, done); titles are unique (they hold the
# note's number), so the order is the titles'.
DESTINATION_DUMP_CONVERT = [
    ("Note", 'SELECT "title", "createdAt", "done" FROM "Note" ORDER BY 1, 2, 3', 'SELECT count(*) FROM "Note"'),
]

DESTINATION_DUMPS = {"v1-v2": DESTINATION_DUMP, "v1-v3": DESTINATION_DUMP_V3, "convert": DESTINATION_DUMP_CONVERT}


def _hash_sections(connection, sections):
    digest = hashlib.sha256()
    counts = {}
    for table, query, count_query in sections:
        digest.update(f"[{table}]\n".encode())
        rows = 0
        cursor = connection.execute(query)
        while True:
            # Rows are tuples already (no row_factory): repr of each, one per line, the
            # batch encoded and hashed at once (no per-row generator or tuple copy).
            batch = cursor.fetchmany(10_000)
            if not batch:
                break
            rows += len(batch)
            digest.update(("\n".join(map(repr, batch)) + "\n").encode())
        total = connection.execute(count_query).fetchone()[0] if count_query else rows
        counts[table] = {"dumped": rows, "in_table": total}
    for table, count in counts.items():
        digest.update(f"#{table} {count['in_table']}\n".encode())
    return digest.hexdigest(), counts


def content_hash(path, task="v1-v2"):
    """(hash, counts) of a destination of `task`; raises sqlite3.Error if it is not one."""
    connection = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        return _hash_sections(connection, DESTINATION_DUMPS[task])
    finally:
        connection.close()


def expected_hash(source, dump=EXPECTED_DUMP):
    """(hash, counts) that a correct v2 (or, with EXPECTED_DUMP_V3, v3) destination made
    from this v1 source has."""
    connection = sqlite3.connect(read_only_uri(source), uri=True)
    try:
        return _hash_sections(connection, [(t, q, None) for t, q in dump])
    finally:
        connection.close()


def expected_convert_hash(source):
    """(hash, counts) of a correct conversion of this notes store, computed in Python from
    the source text (datetime's ISO-8601 parser, str.strip), without any tool. A date is
    the integer of its seconds since 1970, as a TIMESTAMP column keeps a whole number."""
    flags = {"true": 1, "yes": 1, "on": 1, "1": 1, "false": 0, "no": 0, "off": 0, "0": 0}
    connection = sqlite3.connect(read_only_uri(source), uri=True)
    try:
        rows = []
        for title, created, done in connection.execute('SELECT "title", "createdAt", "done" FROM "Note"'):
            moment = datetime.datetime.fromisoformat(created)
            if moment.tzinfo is None:
                moment = moment.replace(tzinfo=datetime.timezone.utc)
            seconds = moment.timestamp()
            rows.append((title.strip(" \t"), int(seconds) if seconds.is_integer() else seconds,
                         flags[done.lower()]))
    finally:
        connection.close()
    rows.sort()
    digest = hashlib.sha256()
    digest.update(b"[Note]\n")
    digest.update("".join(repr(row) + "\n" for row in rows).encode())
    digest.update(f"#Note {len(rows)}\n".encode())
    return digest.hexdigest(), {"Note": {"dumped": len(rows), "in_table": len(rows)}}


def schema_of(path):
    """The schema as a sorted list of [type, name, table, sql], SQLite's own entries
    excluded."""
    connection = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        rows = connection.execute(
            "SELECT type, name, tbl_name, sql FROM sqlite_master "
            "WHERE name NOT LIKE 'sqlite_%' ORDER BY type, name").fetchall()
    finally:
        connection.close()
    return [list(row) for row in rows]


def store_dump(path):
    """Every table but Z_METADATA, its rows sorted: what two results must share."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in connection.execute(
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name != 'Z_METADATA' ORDER BY name")]
        dump = [repr(connection.execute("SELECT type, name, sql FROM sqlite_schema ORDER BY type, name").fetchall())]
        for table in tables:
            rows = connection.execute(f'SELECT * FROM "{table}"').fetchall()
            dump.append(table + repr(sorted(rows, key=repr)))
        return hashlib.sha256("\n".join(dump).encode()).hexdigest()
    finally:
        connection.close()
