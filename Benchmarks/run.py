#!/usr/bin/env python3
"""Benchmark harness of etl (issues 6 and 18): the books v1 -> v2 step, done by several
tools; the whole books pipeline (v1 -> v3) and a conversion of text values, each done by
etl and by a hand-written SQL script.

    python3 Benchmarks/run.py run --etl .build/release/etl --sizes 100000 1000000 --rounds 3
    python3 Benchmarks/run.py smoke --etl .build/release/etl
    python3 Benchmarks/run.py report
    python3 Benchmarks/run.py scale --etl .build/release/etl --rows 50000000

`run` writes the v1 books store of each size with `etl sample books --seed 1`, then, for
each round, runs every tool once on it, each into a fresh destination:

  (a)  sqlite3 CLI with one hand-written SQL script (Benchmarks/sql/books-v1-v2.sql)
  (b)  Python's sqlite3 module, row by row, executemany in batches
       (Benchmarks/python/migrate_books_v1_v2.py)
  (c)  etl run Benchmarks/pipelines/books-v1-v2.json (checkpoints on, the default)
  (c') the same with --no-checkpoint
  (d)  etl-bench-closure run Benchmarks/pipelines/books-v1-v2-closure.json: etl plus a
       Swift policy (Benchmarks/Closure/main.swift) whose create closure computes the
       Books attributes; the program beside the --etl binary, or BENCH_CLOSURE_CMD
  (e)  GRDB: skipped
  (f)  sqlite3 CLI with a hand-written SQL script for books v1 -> v3
       (Benchmarks/sql/books-v1-v3.sql): the floor of (g)
  (g)  etl run pipelines/books.json: the whole v1 -> v3 pipeline (Files' forEach included)
  (h)  sqlite3 CLI with a hand-written SQL script converting N notes' text dates, flags and
       titles (Benchmarks/sql/notes-convert.sql), on a notes store run.py writes: the
       floor of (i)
  (i)  etl run Benchmarks/pipelines/notes-convert.json: date(), boolean(), trim()
  (j)  etl batch pipelines/books.json over 200 small v1 stores (50 books each), --jobs 2:
       stores/s, and each store's cost part by part (open, plan, check, copy, validate, rename)
       from the batch report; once per run, not per size

Each run is timed (wall clock, whole process) and wrapped in `/usr/bin/time -v` for its
peak resident memory; a thread of the driver samples the disk space the run takes beside
the source (every file it makes in the work folder, every 0.1 s: `peak_disk_bytes`). In the first round of each size, every tool's destination is
checked against the content expected from the source (see `content_hash`); in every
round, against the schema etl writes. Later rounds only time. It writes
results.json (raw measurements), RESULTS.md and results.png (matplotlib, if importable)
into Benchmarks/; `report` makes RESULTS.md and results.png again from results.json.

`scale` (issue 18) runs (a) and (c) alone at one size (default 50M books, one round),
checked like `run`'s first round, and keeps the record in Benchmarks/scale.json (a list,
one record per size; a new one replaces an older one of the same size), then writes
RESULTS.md again from results.json and scale.json: its Scale section and the 50M targets,
whatever sizes the last `run` had. `run` and `report` read scale.json, never write it.

`smoke` is `run` with 2,000 books, one round and no plot, in a temporary folder: it
checks that all tools agree. Exit status: 0 when every tool that ran produced the
expected content and schema, 1 otherwise, 2 on bad usage.

Standard library only; matplotlib is optional.
"""

import argparse
import datetime
import hashlib
import json
import os
import platform
import re
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
PIPELINE = os.path.join(HERE, "pipelines", "books-v1-v2.json")
CLOSURE_PIPELINE = os.path.join(HERE, "pipelines", "books-v1-v2-closure.json")
FUNCTIONS_PIPELINE = os.path.join(HERE, "pipelines", "books-v1-v2-functions.json")
# (d): built by `swift build -c release` (Package.swift target etl-bench-closure) into
# the same folder as etl.
CLOSURE_PROGRAM = "etl-bench-closure"
SQL_SCRIPT = os.path.join(HERE, "sql", "books-v1-v2.sql")
V3_PIPELINE = os.path.join(ROOT, "pipelines", "books.json")
V3_SQL_SCRIPT = os.path.join(HERE, "sql", "books-v1-v3.sql")
CONVERT_PIPELINE = os.path.join(HERE, "pipelines", "notes-convert.json")
CONVERT_SQL_SCRIPT = os.path.join(HERE, "sql", "notes-convert.sql")
PY_SCRIPT = os.path.join(HERE, "python", "migrate_books_v1_v2.py")
TIME = "/usr/bin/time"
SEED = 1
# (j): the batch of small stores.
BATCH_STORES = 200
BATCH_SMOKE_STORES = 20
BATCH_BOOKS = 50
BATCH_JOBS = 2
BATCH_GOAL = 150  # stores/s, issue 18
# (k): the batch of Core Data stores (issue 44): DuckDuckGo's Bookmarks V4 and V5 (with
# their -wal) from the fixtures' coredata-corpus, half each, to the bundle's current
# version (BookmarksModel 6).
CD_BATCH_VERSIONS = (4, 5)
BATCH_GOAL_44 = 400  # stores/s, issue 44, for (j) and (k)
FIXTURES = os.environ.get("ETL_FIXTURES", "/work/shared/fixtures")
COST_PARTS = ["open", "plan", "check", "copy", "validate", "rename"]
RESULTS_FORMAT = 1
# The scale run (issue 18): (a) and (c) only, at 50M books, kept in scale.json beside
# results.json, one record per size.
SCALE_FILE = "scale.json"
SCALE_ROWS = 50_000_000
SCALE_TOOLS = ["sqlite", "etl"]
# Disk space beside the source: how often run_once adds up the work folder's files.
DISK_INTERVAL = 0.1  # s

SKIPPED_GRDB = "skipped (optional in issue 6; no GRDB on Linux here)"

# The tools, in the order they run in every round and appear in the tables.
# kind: "run" (measured), "missing" or "skipped" (a row in the table, never a number).
# (d) is "run" when its program exists, else "missing" with the reason (see closure_tool).
TOOLS = [
    {"id": "sqlite", "label": "(a) sqlite3 CLI, one SQL script", "kind": "run"},
    {"id": "python", "label": "(b) Python sqlite3, executemany", "kind": "run"},
    {"id": "etl", "label": "(c) etl run, declarative pipeline", "kind": "run"},
    {"id": "etl-nocheckpoint", "label": "(c') etl run --no-checkpoint", "kind": "run"},
    {"id": "etl-closure", "label": "(d) etl run, Swift policy closure", "kind": "run"},
    {"id": "etl-functions", "label": "(d2) etl run, Swift functions", "kind": "run"},
    {"id": "grdb", "label": "(e) GRDB", "kind": "skipped", "status": SKIPPED_GRDB},
    {"id": "sqlite-v3", "label": "(f) sqlite3 CLI, v1 → v3 SQL script", "kind": "run", "task": "v1-v3"},
    {"id": "etl-v3", "label": "(g) etl run pipelines/books.json", "kind": "run", "task": "v1-v3"},
    {"id": "sqlite-convert", "label": "(h) sqlite3 CLI, conversion SQL script", "kind": "run", "task": "convert"},
    {"id": "etl-convert", "label": "(i) etl run, conversion pipeline", "kind": "run", "task": "convert"},
]
BASELINE = "sqlite"

# What each tool does: its task's source store, expected content, floor (the hand-written
# SQL script its ratio is taken to) and reference schema (its etl run's). A tool without
# "task" does the books v1 -> v2 step.
TASKS = {
    "v1-v2": {"title": "books v1 → v2", "floor": "sqlite", "etl": "etl"},
    "v1-v3": {"title": "books v1 → v3, the whole `pipelines/books.json`", "floor": "sqlite-v3",
              "etl": "etl-v3", "goal": 1.15},
    "convert": {"title": "conversion: text dates, flags and titles of N notes", "floor": "sqlite-convert",
                "etl": "etl-convert", "goal": 1.3},
}


def task_of(tool_id):
    return next((t.get("task", "v1-v2") for t in TOOLS if t["id"] == tool_id), "v1-v2")

# BENCH_CLOSURE_CMD, when set, measures (d) with that command instead of the default
# `etl-bench-closure run books-v1-v2-closure.json …`: a shell-style command line with
# {source}, {destination} (and {etl}) placeholders.
CLOSURE_ENV = "BENCH_CLOSURE_CMD"


def closure_tool(tool, etl):
    """Completes the (d) entry of TOOLS: the command it runs, or why it is missing."""
    tool = dict(tool)
    template = os.environ.get(CLOSURE_ENV) if tool["id"] == "etl-closure" else None
    if template:
        tool["template"] = template
        tool["program"] = f"{CLOSURE_ENV}={template}"
        return tool
    program = os.path.join(os.path.dirname(etl), CLOSURE_PROGRAM)
    shown = os.path.relpath(program, ROOT) if program.startswith(ROOT + os.sep) else program
    if not (os.path.isfile(program) and os.access(program, os.X_OK)):
        tool["kind"] = "missing"
        tool["status"] = (f"missing: no {CLOSURE_PROGRAM} beside the etl binary "
                          f"({shown}); build it with `swift build -c release` "
                          f"or set {CLOSURE_ENV}")
        return tool
    tool["command"] = [program, "run", CLOSURE_PIPELINE if tool["id"] == "etl-closure" else FUNCTIONS_PIPELINE]
    tool["program"] = shown
    return tool


# ----------------------------------------------------------------------------------
# Small helpers


def log(message):
    print(message, flush=True)


def die(message, status=2):
    print(f"run.py: {message}", file=sys.stderr, flush=True)
    sys.exit(status)


def capture(command):
    """Standard output of a command, stripped; None if it cannot run."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (done.stdout or done.stderr).strip()
    return text if done.returncode == 0 and text else None


def sha256_file(path):
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def remove_destination(path):
    """Removes a destination and every file beside it that starts with its name
    (-journal, -wal, .etl-tmp, .etl-checkpoint, .bak, ...), so that no run resumes or
    reuses anything of an earlier one."""
    folder, name = os.path.split(path)
    if not os.path.isdir(folder):
        return
    for entry in os.listdir(folder):
        if entry == name or entry.startswith(name + ".") or entry.startswith(name + "-"):
            full = os.path.join(folder, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.remove(full)


def leftovers(path):
    """Files beside a destination that start with its name, after a run."""
    folder, name = os.path.split(path)
    return sorted(e for e in os.listdir(folder)
                  if e != name and (e.startswith(name + ".") or e.startswith(name + "-")))


def read_only_uri(path):
    return "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"


def sql_literal(text):
    return "'" + text.replace("'", "''") + "'"


# ----------------------------------------------------------------------------------
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


# ----------------------------------------------------------------------------------
# The conversion benchmark's source: N notes whose dates, flags and titles are text, every
# value one that both etl and the SQL script convert (etl would reject any other).

NOTE_FLAGS = ["yes", "No", "TRUE", "false", "on", "OFF", "1", "0"]
NOTE_PADS = ["", "  ", "\t", " \t "]


def note_row(number):
    """The text values of note `number`, deterministic: four date forms (a day; a UTC
    time with a space or with Z; a time at an offset), eight flag spellings, titles with
    spaces and tabs around them."""
    instant = 1_500_000_000 + (number * 7919) % 300_000_000
    utc = datetime.datetime.fromtimestamp(instant, datetime.timezone.utc)
    form = number % 4
    if form == 0:
        created = utc.strftime("%Y-%m-%d")
    elif form == 1:
        created = utc.strftime("%Y-%m-%d %H:%M:%S")
    elif form == 2:
        created = utc.strftime("%Y-%m-%dT%H:%M:%SZ")
    else:
        minutes = ((number % 27) - 13) * 30
        local = utc + datetime.timedelta(minutes=minutes)
        sign = "+" if minutes >= 0 else "-"
        created = local.strftime("%Y-%m-%dT%H:%M:%S") + f"{sign}{abs(minutes) // 60:02d}:{abs(minutes) % 60:02d}"
    title = NOTE_PADS[number % 4] + f"Note {number:09d} of the archive" + NOTE_PADS[(number // 4) % 4]
    return number, title, created, NOTE_FLAGS[(number * 3) % 8]


def write_notes(path, rows):
    """The notes-v1 store (Benchmarks/pipelines/models/notes-v1.json, plain layout)."""
    if os.path.exists(path):
        os.remove(path)
    connection = sqlite3.connect(path)
    try:
        connection.execute('CREATE TABLE IF NOT EXISTS "Note" ("id" INTEGER PRIMARY KEY, '
                           '"title" VARCHAR, "createdAt" VARCHAR, "done" VARCHAR)')
        batch = []
        for number in range(1, rows + 1):
            batch.append(note_row(number))
            if len(batch) == 10_000:
                connection.executemany('INSERT INTO "Note" VALUES (?, ?, ?, ?)', batch)
                batch = []
        connection.executemany('INSERT INTO "Note" VALUES (?, ?, ?, ?)', batch)
        connection.commit()
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


# ----------------------------------------------------------------------------------
# Running one tool once


def tool_command(tool, etl, source, destination):
    tool_id = tool["id"]
    scripts = {"sqlite": SQL_SCRIPT, "sqlite-v3": V3_SQL_SCRIPT, "sqlite-convert": CONVERT_SQL_SCRIPT}
    if tool_id in scripts:
        # Double quotes around an SQL literal: the CLI's tokenizer removes the first,
        # `.parameter set` then reads the literal as SQL.
        parameter = '.parameter set $src "' + sql_literal(read_only_uri(source)) + '"'

        return ["sqlite3", "-bail", "-batch", "-cmd", parameter, destination], scripts[tool_id]
    if tool_id in ("etl-v3", "etl-convert"):
        pipeline = V3_PIPELINE if tool_id == "etl-v3" else CONVERT_PIPELINE
        return [etl, "run", pipeline, "--source", source, "--destination", destination,
                "--force", "--progress", "lines"], None
    if tool_id == "python":
        return [sys.executable, PY_SCRIPT, source, destination], None
    if tool_id in ("etl", "etl-nocheckpoint"):
        command = [etl, "run", PIPELINE, "--source", source, "--destination", destination,
                   "--force", "--progress", "lines"]
        if tool_id == "etl-nocheckpoint":
            command.append("--no-checkpoint")
        return command, None
    if tool_id in ("etl-closure", "etl-functions"):
        if "template" in tool:
            return [part.format(source=source, destination=destination, etl=etl)
                    for part in shlex.split(tool["template"])], None
        return tool["command"] + ["--source", source, "--destination", destination,
                                  "--force", "--progress", "lines"], None
    raise ValueError(tool_id)


STAGE_LINE = re.compile(r"step \d+/\d+ (\w+) (.*?): .* in ([0-9.]+) s\s*$")


def etl_stages(log_text):
    """Per-stage seconds from `etl run --progress lines`, e.g.
    "step 1/1 create Books (v1 to v2): 2000 rows in 0.01 s" -> ["create Books", 0.01]."""
    stages = []
    for line in log_text.splitlines():
        match = STAGE_LINE.search(line)
        if match:
            what = match.group(2)
            what = re.sub(r"\s*\([^)]*\)$", "", what)  # drop "(v1 to v2)"
            name = match.group(1) + (" " + what if what else "")
            stages.append([name, float(match.group(3))])
    return stages


def max_rss_kib(time_output):
    match = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", time_output)
    return int(match.group(1)) if match else None


def folder_bytes(folder, skip=()):
    """Apparent size (st_size) of every file in a folder and its subfolders, the names in
    `skip` (of the folder itself) left out. A file removed while it is looked at counts
    as absent."""
    total = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name in skip:
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        total += folder_bytes(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_size
                except FileNotFoundError:
                    pass
    except FileNotFoundError:
        pass
    return total


class DiskPeak:
    """The peak of folder_bytes(folder, skip) while the `with` block runs: a thread adds it
    up every DISK_INTERVAL seconds (one os.scandir of a folder of a few dozen files, well
    under a millisecond), once more at the end. A file that lives shorter than the interval
    can be missed: the peak is a lower bound, to within what a run writes in 0.1 s."""

    def __init__(self, folder, skip):
        self.folder, self.skip, self.peak = folder, set(skip), 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.sample_until_stopped, daemon=True)

    def sample(self):
        self.peak = max(self.peak, folder_bytes(self.folder, self.skip))

    def sample_until_stopped(self):
        while not self.stop.wait(DISK_INTERVAL):
            self.sample()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        self.thread.join()
        self.sample()
        return False


def run_once(tool, etl, source, destination, log_path):
    tool_id = tool["id"]
    remove_destination(destination)
    # Every run starts with the writes of the runs before it on disk: otherwise the
    # kernel flushes them during this one, and whoever comes next pays for them.
    os.sync()
    command, stdin_path = tool_command(tool, etl, source, destination)
    time_path = log_path + ".time"
    wrapped = [TIME, "-v", "-o", time_path] + command
    # Disk space beside the source: every file of the destination's folder that the run
    # makes (destination, journal or WAL, checkpoint, etl's work files); the files there
    # before it (the source stores, earlier logs) and its own log are not counted.
    folder = os.path.dirname(destination)
    skip = set(os.listdir(folder)) | {os.path.basename(log_path), os.path.basename(time_path)}
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        with open(log_path, "wb") as output, DiskPeak(folder, skip) as disk:
            started = time.perf_counter()
            done = subprocess.run(wrapped, stdin=stdin, stdout=output, stderr=subprocess.STDOUT,
                                  cwd=ROOT)
            seconds = time.perf_counter() - started
    finally:
        if stdin_path:
            stdin.close()
    with open(time_path, errors="replace") as handle:
        time_text = handle.read()
    with open(log_path, errors="replace") as handle:
        log_text = handle.read()
    shown = shlex.join(command) + (f" < {shlex.quote(stdin_path)}" if stdin_path else "")
    run = {"seconds": round(seconds, 4), "max_rss_kib": max_rss_kib(time_text),
           "peak_disk_bytes": disk.peak, "exit": done.returncode, "command": shown.replace(ROOT + os.sep, "")}
    if tool_id.startswith("etl"):
        run["stages"] = etl_stages(log_text)
    if done.returncode != 0:
        run["error"] = log_text[-2000:]
    return run


def check_destination(run, destination, expected, reference_schema, content=True, task="v1-v2"):
    """Adds schema_ok to a run, and with `content` hash, counts and content_ok; without
    it (rounds after the first) content_checked is False and content_ok None."""
    run["content_checked"] = content and run["exit"] == 0
    if run["exit"] != 0:
        run["content_ok"] = False
        return
    rest = leftovers(destination)
    if rest:
        run["leftovers"] = rest
    try:
        if content:
            started = time.perf_counter()
            digest, counts = content_hash(destination, task)
            run["check_seconds"] = round(time.perf_counter() - started, 3)
            run["hash"] = digest
            run["counts"] = counts
            run["content_ok"] = digest == expected
        else:
            run["content_ok"] = None
        schema = schema_of(destination)
        run["schema_ok"] = None if reference_schema is None else schema == reference_schema
        run["schema"] = schema
    except sqlite3.Error as error:
        run["content_ok"] = False
        run["error"] = f"cannot read the destination: {error}"


# ----------------------------------------------------------------------------------
# One size


def source_counts(path):
    connection = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        return {table: connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
                for table in ("User", "Book", "Book_users")}
    finally:
        connection.close()


def bench_size(rows, rounds, etl, work, tools):
    load_before = [round(x, 2) for x in os.getloadavg()]
    folder = os.path.join(work, f"rows-{rows}")
    os.makedirs(folder, exist_ok=True)
    source = os.path.join(folder, "books-v1.sqlite")
    log(f"== {rows} books: etl sample books --version 1 --rows {rows} --seed {SEED}")
    started = time.perf_counter()
    subprocess.run([etl, "sample", "books", "--version", "1", "--rows", str(rows), "--seed",
                    str(SEED), "--out", source, "--force"], check=True, cwd=ROOT,
                   stdout=subprocess.DEVNULL)
    sample_seconds = time.perf_counter() - started
    source_sha = sha256_file(source)
    expected, expected_counts = expected_hash(source)
    counts = source_counts(source)
    log(f"   source {os.path.getsize(source) / 2**20:.1f} MiB, {counts['Book']} books, "
        f"{counts['User']} users, {counts['Book_users']} links ({sample_seconds:.1f} s); "
        f"expected content {expected[:12]}")

    # The other tasks' sources and expected contents: v1 -> v3 from the same books; the
    # conversion from N notes written here.
    # Only for tasks a tool runs (`--tools`): at 50M books each costs minutes.
    tasks = {t.get("task", "v1-v2") for t in tools if t["kind"] == "run"}
    expected_v3, expected_v3_counts = expected_hash(source, EXPECTED_DUMP_V3) if "v1-v3" in tasks else (None, None)
    notes = os.path.join(folder, "notes-v1.sqlite")
    expected_convert, expected_convert_counts, notes_sha = None, None, None
    if "convert" in tasks:
        write_notes(notes, rows)
        notes_sha = sha256_file(notes)
        expected_convert, expected_convert_counts = expected_convert_hash(notes)
        log(f"   notes source {os.path.getsize(notes) / 2**20:.1f} MiB, {rows} notes")
    log(f"   expected content v1 → v3 {(expected_v3 or 'not needed')[:12]}, "
        f"conversion {(expected_convert or 'not needed')[:12]}")
    sources = {"v1-v2": source, "v1-v3": source, "convert": notes}
    expecteds = {"v1-v2": expected, "v1-v3": expected_v3, "convert": expected_convert}

    result = {"rows": rows,
              "source": {"books": counts["Book"], "users": counts["User"],
                         "book_user_links": counts["Book_users"],
                         "bytes": os.path.getsize(source), "sha256": source_sha,
                         "sample_seconds": round(sample_seconds, 3)},
              "expected_hash": expected, "expected_counts": expected_counts,
              "tasks": {"v1-v3": {"expected_hash": expected_v3, "expected_counts": expected_v3_counts},
                        "convert": {"expected_hash": expected_convert, "expected_counts": expected_convert_counts,
                                    "source_bytes": os.path.getsize(notes) if notes_sha else None,
                                    "source_sha256": notes_sha}},
              "tools": {}}
    measured = [t for t in tools if t["kind"] == "run"]
    for tool in tools:
        entry = {"label": tool["label"], "kind": tool["kind"], "runs": []}
        if tool["kind"] != "run":
            entry["status"] = tool["status"]
        result["tools"][tool["id"]] = entry

    # Rounds are interleaved (a b c c' d | a b c c' d | ...) so that drift of the machine
    # (other processes, page cache, thermal) spreads over all tools alike. The content of
    # each tool's destination is checked in the first round only (at 1M books a check
    # takes longer than most runs); later rounds are timed, their exit status and schema
    # checked, and their destinations deleted.
    # Per task, the schema its etl run writes.
    reference_schemas = {}
    for round_index in range(rounds):
        first = round_index == 0
        for tool in measured:
            task = tool.get("task", "v1-v2")
            destination = os.path.join(folder, f"v2-{tool['id']}.sqlite")
            log_path = os.path.join(folder, f"{tool['id']}.round{round_index + 1}.log")
            run = run_once(tool, etl, sources[task], destination, log_path)
            if tool["id"] == TASKS[task]["etl"] and run["exit"] == 0 and task not in reference_schemas:
                reference_schemas[task] = schema_of(destination)
            check_destination(run, destination, expecteds[task], reference_schemas.get(task),
                              content=first, task=task)
            result["tools"][tool["id"]]["runs"].append(run)
            if run["exit"]:
                verdict = f"FAILED (exit {run['exit']})"
            elif run["content_ok"] is None:
                verdict = "timed (content checked in round 1)"
            else:
                verdict = "ok" if run["content_ok"] else "WRONG RESULT"
            if run.get("content_ok") is not False and run.get("schema_ok") is False:
                verdict = "WRONG SCHEMA"
            if run.get("check_seconds") is not None:
                verdict += f", checked in {run['check_seconds']:.1f} s"
            rss = run["max_rss_kib"]
            log(f"   round {round_index + 1}/{rounds}  {tool['label']:<38} "
                f"{run['seconds']:9.2f} s  {rss / 1024 if rss else float('nan'):8.1f} MiB  "
                f"disk {run['peak_disk_bytes'] / 2**20:8.1f} MiB  {verdict}")
            if run.get("leftovers"):
                log(f"      files left beside the destination: {', '.join(run['leftovers'])}")
            remove_destination(destination)

    # Tools that ran before etl's first run in round 1 had no schema to compare with.
    etl_runs = result["tools"]["etl"]["runs"] if "etl" in result["tools"] else []
    reference_schema = reference_schemas.get("v1-v2")
    for tool_id, entry in result["tools"].items():
        reference = reference_schemas.get(task_of(tool_id))
        for run in entry["runs"]:
            if "schema" in run:
                if reference is not None:
                    run["schema_ok"] = run["schema"] == reference
                del run["schema"]
    result["reference_schema"] = reference_schema
    for task, schema in reference_schemas.items():
        if task in result["tasks"]:
            result["tasks"][task]["reference_schema"] = schema
    if not etl_runs or reference_schema is None:
        log("   no etl run succeeded: the schemas of the other tools were not compared")

    source_after = sha256_file(source)
    result["source"]["unchanged"] = source_after == source_sha and (notes_sha is None or sha256_file(notes) == notes_sha)
    if not result["source"]["unchanged"]:
        log("   A SOURCE STORE CHANGED during the runs")
    summarize_size(result)
    result["size_seconds"] = round(time.perf_counter() - started, 1)
    result["loadavg"] = {"before": load_before, "after": [round(x, 2) for x in os.getloadavg()]}
    log(f"   {rows} books done in {result['size_seconds']:.0f} s (sample, runs and checks)")
    return result


def summarize_size(result):
    """Adds per-tool summary: median seconds, rows/s, peak MiB, ratio, verdict."""
    rows = result["rows"]
    for entry in result["tools"].values():
        runs = entry["runs"]
        if entry["kind"] != "run":
            continue
        if not runs:
            entry["status"] = "not run"
            continue
        failed = [r for r in runs if r["exit"] != 0]
        # content_ok None: a later round, timed but not checked (older results.json files
        # have no content_checked and every run checked).
        wrong = [r for r in runs if r["exit"] == 0 and r.get("content_ok") is False]
        unchecked = not any(r.get("content_checked", True) for r in runs if r["exit"] == 0)
        bad_schema = [r for r in runs if r["exit"] == 0 and r.get("schema_ok") is False]
        if failed:
            entry["status"] = f"FAILED (exit {failed[0]['exit']})"
        elif wrong:
            entry["status"] = "WRONG RESULT"
        elif bad_schema:
            entry["status"] = "WRONG SCHEMA"
        elif unchecked:
            entry["status"] = "NOT CHECKED"
        else:
            entry["status"] = "ok"
        good = [r for r in runs if r["exit"] == 0]
        if good:
            entry["median_seconds"] = round(statistics.median(r["seconds"] for r in good), 4)
            entry["rows_per_second"] = round(rows / entry["median_seconds"]) if entry["median_seconds"] else None
            rss = [r["max_rss_kib"] for r in good if r["max_rss_kib"]]
            entry["peak_mib"] = round(max(rss) / 1024, 1) if rss else None
            disk = [r["peak_disk_bytes"] for r in good if r.get("peak_disk_bytes") is not None]
            entry["peak_disk_mib"] = round(max(disk) / 2**20, 1) if disk else None
            stage_lists = [r.get("stages") for r in good if r.get("stages")]
            if stage_lists:
                names = [name for name, _ in stage_lists[0]]
                entry["stage_median_seconds"] = [
                    [name, round(statistics.median(
                        dict(stages).get(name, 0.0) for stages in stage_lists), 3)]
                    for name in names]
    base = result["tools"].get(BASELINE, {}).get("median_seconds")
    for tool_id, entry in result["tools"].items():
        if task_of(tool_id) == "v1-v2":
            if base and entry.get("median_seconds") is not None:
                entry["ratio_to_a"] = round(entry["median_seconds"] / base, 3)
            continue
        # The other tasks: the ratio to their own hand-written SQL script.
        floor = result["tools"].get(TASKS[task_of(tool_id)]["floor"], {}).get("median_seconds")
        if floor and entry.get("median_seconds") is not None:
            entry["ratio_to_floor"] = round(entry["median_seconds"] / floor, 3)
    with_ck = result["tools"].get("etl", {}).get("median_seconds")
    without = result["tools"].get("etl-nocheckpoint", {}).get("median_seconds")
    if with_ck and without:
        result["checkpoint_overhead"] = round(with_ck / without - 1, 4)


# ----------------------------------------------------------------------------------
# (j) A batch of small stores


def bench_batch(etl, work, stores, rounds):
    """`etl batch` of `stores` small v1 books stores to v3, `rounds` times into a fresh
    folder: median seconds, stores/s, the mean cost per store part by part (from the batch
    report, every round), and in the first round every result checked against the v3
    content expected from its own source."""
    folder = os.path.join(work, "batch")
    shutil.rmtree(folder, ignore_errors=True)
    archive = os.path.join(folder, "archive")
    os.makedirs(archive)
    log(f"== batch: {stores} stores of {BATCH_BOOKS} books, etl batch pipelines/books.json --jobs {BATCH_JOBS}")
    expected = {}
    for index in range(stores):
        name = f"store-{index:04d}.sqlite"
        source = os.path.join(archive, name)
        subprocess.run([etl, "sample", "books", "--version", "1", "--rows", str(BATCH_BOOKS), "--seed",
                        str(index + 1), "--out", source, "--force"], check=True, cwd=ROOT,
                       stdout=subprocess.DEVNULL)
        expected[name] = expected_hash(source, EXPECTED_DUMP_V3)[0]

    def wrong_results(out):
        def matches(name, digest):
            try:
                return content_hash(os.path.join(out, name), "v1-v3")[0] == digest
            except sqlite3.Error:
                return False  # missing or not a store
        return [name for name, digest in expected.items() if not matches(name, digest)]

    result = {"stores": stores, "books_per_store": BATCH_BOOKS, "jobs": BATCH_JOBS}
    result.update(time_batch(etl, folder, archive, V3_PIPELINE, stores, rounds, wrong_results))
    shutil.rmtree(folder, ignore_errors=True)
    return result


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


def bench_coredata_batch(etl, work, stores, rounds):
    """(k) `etl batch` of `stores` Core Data stores — copies of Bookmarks V4 and V5 with
    their `-wal`, alternately — to the bundle's current version, `rounds` times into a
    fresh folder; in the first round every result is checked against `etl run` of its
    version's store alone (every table but Z_METADATA)."""
    corpus = os.path.join(FIXTURES, "coredata-corpus", "ddg-bookmarks")
    if not os.path.isdir(corpus):
        log(f"== (k) skipped: no fixtures at {corpus} (set ETL_FIXTURES)")
        return {"status": f"not measured: no fixtures at {corpus}", "stores": stores}
    folder = os.path.join(work, "coredata-batch")
    shutil.rmtree(folder, ignore_errors=True)
    archive = os.path.join(folder, "archive")
    os.makedirs(archive)
    shutil.copytree(os.path.join(corpus, "BookmarksModel.xcdatamodeld"), os.path.join(folder, "BookmarksModel.xcdatamodeld"))
    pipeline = os.path.join(folder, "bookmarks.json")
    with open(pipeline, "w") as handle:
        json.dump({"format": 1, "models": "BookmarksModel.xcdatamodeld",
                   "source": {"store": "source.sqlite", "layout": "coredata"},
                   "destination": {"store": "result.sqlite", "layout": "coredata"}}, handle, indent=2)
    log(f"== (k) batch: {stores} Core Data stores (Bookmarks V4/V5 with -wal) → BookmarksModel 6, --jobs {BATCH_JOBS}")
    expected_by_version = {}
    for version in CD_BATCH_VERSIONS:
        alone = os.path.join(folder, f"alone-V{version}")
        os.makedirs(alone)
        for suffix in ("", "-wal"):
            shutil.copy(os.path.join(corpus, f"Bookmarks_V{version}.sqlite{suffix}"), os.path.join(alone, f"source.sqlite{suffix}"))
        subprocess.run([etl, "run", pipeline, "--source", os.path.join(alone, "source.sqlite"),
                        "--destination", os.path.join(alone, "result.sqlite"), "--progress", "none"], check=True, cwd=folder,
                       stdout=subprocess.DEVNULL)
        expected_by_version[version] = store_dump(os.path.join(alone, "result.sqlite"))
    expected = {}
    for index in range(stores):
        version = CD_BATCH_VERSIONS[index % len(CD_BATCH_VERSIONS)]
        name = f"store-{index:04d}.sqlite"
        for suffix in ("", "-wal"):
            shutil.copy(os.path.join(corpus, f"Bookmarks_V{version}.sqlite{suffix}"), os.path.join(archive, name + suffix))
        expected[name] = expected_by_version[version]

    def wrong_results(out):
        def matches(name, digest):
            try:
                return store_dump(os.path.join(out, name)) == digest
            except sqlite3.Error:
                return False
        return [name for name, digest in expected.items() if not matches(name, digest)]

    result = {"stores": stores, "versions": [f"Bookmarks_V{v}" for v in CD_BATCH_VERSIONS], "jobs": BATCH_JOBS}
    result.update(time_batch(etl, folder, archive, pipeline, stores, rounds, wrong_results))
    shutil.rmtree(folder, ignore_errors=True)
    return result


def time_batch(etl, folder, archive, pipeline, stores, rounds, wrong_results):
    """Runs `etl batch PIPELINE --stores ARCHIVE --out …` `rounds` times into a fresh
    folder (a new process each, timed whole); `wrong_results(out)` checks the first round."""
    result = {"runs": []}
    costs = []
    for round_index in range(rounds):
        out = os.path.join(folder, "out")
        report_path = os.path.join(folder, "report.json")
        shutil.rmtree(out, ignore_errors=True)
        if os.path.exists(report_path):
            os.remove(report_path)
        os.sync()
        command = [etl, "batch", pipeline, "--stores", archive, "--out", out, "--jobs", str(BATCH_JOBS),
                   "--report", report_path, "--progress", "lines"]
        time_path = os.path.join(folder, f"batch.round{round_index + 1}.time")
        with open(os.path.join(folder, f"batch.round{round_index + 1}.log"), "wb") as output:
            started = time.perf_counter()
            done = subprocess.run([TIME, "-v", "-o", time_path] + command, stdout=output,
                                  stderr=subprocess.STDOUT, cwd=ROOT)
            seconds = time.perf_counter() - started
        with open(time_path, errors="replace") as handle:
            rss = max_rss_kib(handle.read())
        run = {"seconds": round(seconds, 4), "max_rss_kib": rss, "exit": done.returncode,
               "command": shlex.join(command).replace(ROOT + os.sep, "")}
        try:
            with open(report_path) as handle:
                report = json.load(handle)
            run["done"] = report["counts"].get("done", 0)
            costs += [entry["cost"] for entry in report["stores"] if entry.get("cost")]
        except (OSError, ValueError, KeyError) as error:
            run["done"] = 0
            run["error"] = f"no batch report: {error}"
        if round_index == 0 and done.returncode == 0:
            wrong = wrong_results(out)
            run["content_ok"] = not wrong
            if wrong:
                run["wrong"] = wrong[:5]
        result["runs"].append(run)
        verdict = ("FAILED (exit %d)" % done.returncode if done.returncode
                   else "ok" if run.get("content_ok", True) and run["done"] == stores else "WRONG RESULT")
        log(f"   round {round_index + 1}/{rounds}  etl batch  {seconds:9.2f} s  "
            f"{stores / seconds:8.1f} stores/s  {verdict}")
    good = [r for r in result["runs"] if r["exit"] == 0 and r["done"] == stores]
    checked = result["runs"][0].get("content_ok") if result["runs"] else None
    if len(good) != len(result["runs"]) or not result["runs"]:
        bad = next(r for r in result["runs"] if r not in good)
        result["status"] = f"FAILED (exit {bad['exit']}, {bad['done']} of {stores} stores done)"
    elif not checked:
        result["status"] = "WRONG RESULT"
    else:
        result["status"] = "ok"
    if good:
        result["median_seconds"] = round(statistics.median(r["seconds"] for r in good), 4)
        result["stores_per_second"] = round(stores / result["median_seconds"], 1)
        rss = [r["max_rss_kib"] for r in good if r["max_rss_kib"]]
        result["peak_mib"] = round(max(rss) / 1024, 1) if rss else None
    if costs:
        result["cost_ms_per_store"] = {part: round(statistics.mean(c.get(part, 0) for c in costs) * 1000, 2)
                                       for part in COST_PARTS}
    return result


# ----------------------------------------------------------------------------------
# Machine


def machine_info():
    info = {"nproc": os.cpu_count(), "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    nproc = capture(["nproc"])
    if nproc:
        info["nproc"] = int(nproc)
    info["sqlite_cli"] = capture(["sqlite3", "--version"])
    info["sqlite_python"] = sqlite3.sqlite_version
    info["python"] = platform.python_version()
    swift = capture(["swift", "--version"])
    info["swift"] = swift.splitlines()[0] if swift else None
    return info


def etl_info(etl):
    info = {"binary": os.path.relpath(os.path.abspath(etl), ROOT), "version": capture([etl, "--version"])}
    commit = capture(["git", "-C", ROOT, "rev-parse", "HEAD"])
    status = capture(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
    info["commit"] = commit
    info["modified_files"] = [line.split(None, 1)[1] for line in (status or "").splitlines()
                              if len(line.split(None, 1)) == 2]
    return info


# ----------------------------------------------------------------------------------
# Report: RESULTS.md and results.png from results.json

TARGETS_TEXT = """\
Targets of issue 6, and those of issue 18 (marked so in the table): the declarative run
at ≤ 1.0 × (a) at 1M and 5M books, the whole books pipeline at ≤ 1.15 × its hand-written
SQL script, the conversion at ≤ 1.3 × its own, a batch of small stores at ≥ 150 stores/s:

- declarative etl ≤ 1.15 × (a) time;
- closure etl ≤ 1.5 × (a) time;
- both ≥ 3 × faster than (b);
- etl's peak memory ≤ 100 MiB, and within 10 % between 1M and 5M books;
- checkpointing ≤ 5 % of the run time.

And at 50M books, from the scale run (`scale.json`, see Scale): etl's peak memory ≤ 100
MiB, its ratio to (a) the same as at 5M (within the run-to-run spread) or lower, and the
disk space it needed beside the source (a figure).
"""

METHOD_TEXT = """\
Every tool does the same books v1 → v2 step on the same store: copy Users and Books,
one Author per distinct non-null `authorName`, link Book ↔ Author, copy the Book ↔ User
many-to-many. The v1 store is written by `etl sample books --version 1 --rows N
--seed 1` (deterministic).

- **(a)** `sqlite3` CLI with one hand-written SQL script, `Benchmarks/sql/books-v1-v2.sql`
  (ATTACH the source read-only, INSERT … SELECT in one transaction, indexes built
  last): the SQLite floor for this work.
- **(b)** `Benchmarks/python/migrate_books_v1_v2.py`: Python's `sqlite3` module, row by
  row, `executemany` in batches of 10,000 rows, one transaction: the typical hand-written
  migration.
- **(c)** `etl run Benchmarks/pipelines/books-v1-v2.json` — the first step of
  `pipelines/books.json` as a one-step pipeline (chunk size 1000, 2 workers) — with
  checkpoints (the default), and **(c')** the same with `--no-checkpoint`.
- **(d)** etl with the Books mapping's attribute work as a Swift policy closure:
  `etl-bench-closure run Benchmarks/pipelines/books-v1-v2-closure.json` (checkpoints on,
  like (c)). `etl-bench-closure` (`Benchmarks/Closure/main.swift`, built with etl by
  `swift build -c release`) is the whole etl command line plus one policy,
  `booksInSwift`; the pipeline is (c)'s except that the Books mapping names that policy
  and declares no attributes, so its `create` closure computes title, fileURL, published
  and price of every Book from the source row. The closure makes one Book per source
  row under its key, so SQLite calls it from the Books mapping's own `INSERT … SELECT`
  (`PolicyInSQLite`, once per book, on the writer's connection); Users, Authors and every
  link are written inside SQLite as in (c), the links of Books found by key.{closure_override}
- **(d2)** the same attribute work as Swift closures of another kind: functions the
  program adds to the expression language (`ExpressionFunction`), called as
  `swiftText($source.title)` etc. (`Benchmarks/pipelines/books-v1-v2-functions.json`, same
  program). Functions are pure and cannot fail, so the step still runs inside SQLite,
  which calls each closure once per value.
- **(e)** GRDB, optional in the issue: skipped (no GRDB program in this repository;
  it would be one more hand-written baseline on Linux).

Two more pairs (issue 18), each an etl pipeline against a hand-written SQL script doing
the same, at the same N, each checked against its own independent content hash:

- **(f)** `sqlite3` CLI with `Benchmarks/sql/books-v1-v3.sql`: the whole books
  pipeline, v1 → v3, in one script (the v2 store in between skipped): its floor; **(g)**
  `etl run pipelines/books.json` on the same v1 store: its two steps run as one step
  inside SQLite (`StepFusion`: the second step's mappings rewritten over v1, after
  `FusionCheck` found no v1 row the first step would reject or leave invalid), Files'
  `forEach` (one File per (book, user) pair) included, so no v2 store is written either;
  the result is validated as every step's is.
- **(h)** `sqlite3` CLI with `Benchmarks/sql/notes-convert.sql`; **(i)** `etl run
  Benchmarks/pipelines/notes-convert.json`: N notes (written by `run.py`, every value
  valid) whose `createdAt` is ISO-8601 text in four forms, `done` a flag word or digit
  in eight spellings, and `title` text with spaces and tabs around it, converted with
  `date()`, `boolean()` and `trim()`; the script uses `unixepoch`, a `CASE` and `trim`.
  The expected content is computed in Python from the source text (datetime's ISO-8601
  parser), without either tool.
- **(j)** `etl batch pipelines/books.json --jobs 2` over 200 small v1 stores (50 books
  each), once per run (not per size): stores per second, and where a store's time goes,
  from each store's `cost` in the batch report.

Each round runs (a), (b), (c), (c'), (d), (d2), (f), (g), (h), (i) one after the other on the same source, each
into a fresh destination (deleted first); rounds are interleaved so that drift hits
every tool alike. Reported: the **median** wall time of the rounds (the whole process,
start-up included, measured by the driver), rows/s = source books ÷ median time, the
**highest** "Maximum resident set size" of `/usr/bin/time -v` over the rounds, and the
ratio of the median time to (a)'s, and **disk MiB**: the most disk space a run needed
beside the source, the highest over the rounds. While each run goes on, the driver adds up
the apparent size (`st_size`) of every file the run makes in the work folder —
destination, its journal or WAL, etl's checkpoint and work files — every 0.1 s (one
`os.scandir` of that folder, in a thread of the driver) and once at the end, the files
there before it (the source stores) left out; SQLite's own temporary files (sorting, in
the system's temporary folder, unlinked when made) are not counted, nor files that live
less than 0.1 s. The source store is in the page cache for all runs
(it was just written); destinations are on the same disk as the source. Before each run
the driver calls sync(), so no run pays for writing back the output of the one before.

{check_paragraph} Each table is dumped as a sorted list of
rows with keys replaced by natural values (User by userId, Book by title, Author by
name, Book ↔ User as (title, userId), Author ↔ Book as (name, title)), followed by
each table's row count, and hashed (SHA-256). The expected hash is computed once per
size from the v1 source directly, independently of every tool. Any difference marks the
tool **WRONG RESULT** (a fast wrong answer does not count) and the command exits
non-zero; so does a schema (`sqlite_master`) different from the one etl writes
(**WRONG SCHEMA**, checked every round) or a failed run in any round.

Regenerate this file and the plot from `results.json` with `make bench-report`.
"""

CHECK_FIRST_ROUND = """\
The content of every tool's destination is checked in the **first round of each size
only**: a check costs more than most runs at a million books (about 13 s per
destination at 1M), so later rounds only time the tools, check their exit status and
schema, and delete their destinations."""

CHECK_EVERY_ROUND = """\
Every destination was checked, every round (this `results.json` predates checking in
the first round only)."""


def method_text(results):
    closure = results.get("closure") or {}
    program = closure.get("program") or ""
    override = ""
    if "closure" not in results:
        override = " (This `results.json` predates `etl-bench-closure`: no figures for (d).)"
    elif program.startswith(CLOSURE_ENV + "="):
        override = (f" In this run (d) was measured with `{program}` instead (the "
                    f"`{CLOSURE_ENV}` override: a command line with `{{source}}` and "
                    f"`{{destination}}`).")
    elif closure.get("status"):
        override = f" In this run (d) was not measured ({closure['status']})."
    check = CHECK_FIRST_ROUND if results.get("content_check") else CHECK_EVERY_ROUND
    return METHOD_TEXT.format(closure_override=override, check_paragraph=check)


def fmt_seconds(value):
    return "—" if value is None else (f"{value:.3f}" if value < 10 else f"{value:.2f}")


def fmt_int(value):
    return "—" if value is None else f"{value:,}"


def fmt_mib(value):
    return "—" if value is None else f"{value:.1f}"


def fmt_ratio(value):
    return "—" if value is None else f"{value:.2f} ×"


def verdict_cell(entry):
    status = entry.get("status", "")
    if entry["kind"] != "run":
        return status
    if status == "ok":
        hashes = {r.get("hash") for r in entry["runs"] if r.get("hash")}
        digest = next(iter(hashes)) if len(hashes) == 1 else None
        return f"ok (`{digest[:12]}`)" if digest else "ok"
    return f"**{status}**"


def size_label(rows):
    if rows % 1_000_000 == 0:
        return f"{rows // 1_000_000}M"
    if rows % 1000 == 0:
        return f"{rows // 1000}k"
    return str(rows)


def speed_text(speedup):
    return f"{speedup:.2f} × faster" if speedup >= 1 else f"{1 / speedup:.2f} × slower"


def spread(entry):
    """(max - min) / median of a tool's successful run times, or None."""
    times = [r["seconds"] for r in entry.get("runs", []) if r["exit"] == 0]
    if len(times) < 2 or not statistics.median(times):
        return None
    return (max(times) - min(times)) / statistics.median(times)


def usable(size, tool):
    """A tool's summary at a size when it ran, was right and has a time; else None."""
    entry = size["tools"].get(tool, {})
    return entry if entry.get("status") == "ok" and entry.get("median_seconds") else None


def declarative_ratio(size):
    """(c)'s median time over (a)'s at a size, or None."""
    c, a = usable(size, "etl"), usable(size, BASELINE)
    return c["median_seconds"] / a["median_seconds"] if c and a else None


def targets(results, scale=()):
    """[(target, figures, verdict)] from the measurements (results.json) and the scale
    runs (scale.json)."""
    sizes = results["sizes"]
    lines = []

    def each_size(fn):
        parts, verdicts = [], []
        for size in sizes:
            figure, ok = fn(size)
            if figure is not None:
                parts.append(f"{size_label(size['rows'])}: {figure}")
                verdicts.append(ok)
        if not verdicts:
            return "not measured", "not measured"
        return "; ".join(parts), "**met**" if all(verdicts) else "**missed**"

    def declarative_vs_a(size):
        ratio = declarative_ratio(size)
        if ratio is None:
            return None, None
        return f"{ratio:.2f} ×", ratio <= 1.15

    figures, verdict = each_size(declarative_vs_a)
    lines.append(("declarative etl ≤ 1.15 × (a) time", figures, verdict))

    # Issue 18 asks more of the same run at 1M and 5M books: no slower than the floor.
    big = [size for size in sizes if size["rows"] >= 1_000_000]
    if big:
        parts, verdicts = [], []
        for size in big:
            ratio = declarative_ratio(size)
            if ratio is not None:
                parts.append(f"{size_label(size['rows'])}: {ratio:.2f} ×")
                verdicts.append(ratio <= 1.0)
        lines.append(("declarative etl ≤ 1.0 × (a) time at 1M and 5M books (issue 18)",
                      "; ".join(parts) or "not measured",
                      ("**met**" if all(verdicts) else "**missed**") if verdicts else "not measured"))

    closure_kinds = [("etl-closure", "closure etl (d, policy)"), ("etl-functions", "closure etl (d2, functions)")]

    def closure_absent(tool):
        """Why a closure variant has no figures: its status at the first size without a usable run."""
        for size in sizes:
            entry = size["tools"].get(tool)
            if entry and not usable(size, tool):
                return entry.get("status") or "not measured"
        return "not measured"

    def closure_ratio(tool, other, limit, speedup):
        def fn(size):
            d, x = usable(size, tool), usable(size, other)
            if not (d and x):
                return None, None
            if speedup:
                value = x["median_seconds"] / d["median_seconds"]
                return speed_text(value), value >= limit
            ratio = d["median_seconds"] / x["median_seconds"]
            return f"{ratio:.2f} ×", ratio <= limit
        return fn

    for tool, name in closure_kinds:
        if any(usable(s, tool) for s in sizes):
            figures, verdict = each_size(closure_ratio(tool, BASELINE, 1.5, False))
        else:
            figures, verdict = closure_absent(tool), "not measured"
        lines.append((f"{name} ≤ 1.5 × (a) time", figures, verdict))

    def declarative_vs_b(size):
        c, b = usable(size, "etl"), usable(size, "python")
        if not (c and b):
            return None, None
        speedup = b["median_seconds"] / c["median_seconds"]
        return speed_text(speedup), speedup >= 3
    figures, verdict = each_size(declarative_vs_b)
    lines.append(("declarative etl ≥ 3 × faster than (b)", figures, verdict))
    for tool, name in closure_kinds:
        if any(usable(s, tool) for s in sizes):
            figures, verdict = each_size(closure_ratio(tool, "python", 3, True))
        else:
            figures, verdict = closure_absent(tool), "not measured"
        lines.append((f"{name} ≥ 3 × faster than (b)", figures, verdict))

    def peak(size):
        entries = [usable(size, t) for t in ("etl", "etl-nocheckpoint")]
        values = [e["peak_mib"] for e in entries if e and e.get("peak_mib")]
        if not values:
            return None, None
        return f"{max(values):.1f} MiB", max(values) <= 100
    figures, verdict = each_size(peak)
    lines.append(("etl peak memory ≤ 100 MiB", figures, verdict))

    by_rows = {s["rows"]: s for s in sizes}
    one, five = by_rows.get(1_000_000), by_rows.get(5_000_000)
    c1 = usable(one, "etl") if one else None
    c5 = usable(five, "etl") if five else None
    if c1 and c5 and c1.get("peak_mib") and c5.get("peak_mib"):
        change = c5["peak_mib"] / c1["peak_mib"] - 1
        lines.append(("etl peak memory within 10 % between 1M and 5M",
                      f"{c1['peak_mib']:.1f} → {c5['peak_mib']:.1f} MiB ({change:+.1%})",
                      "**met**" if abs(change) <= 0.10 else "**missed**"))
    else:
        missing = [label for label, present in (("1M", c1), ("5M", c5)) if not present]
        lines.append(("etl peak memory within 10 % between 1M and 5M",
                      f"not measured: no {' and no '.join(missing)} run", "not measured"))

    def checkpoint(size):
        overhead = size.get("checkpoint_overhead")
        if overhead is None or not (usable(size, "etl") and usable(size, "etl-nocheckpoint")):
            return None, None
        noise = [spread(size["tools"][t]) for t in ("etl", "etl-nocheckpoint")]
        noise = max((n for n in noise if n is not None), default=None)
        figure = f"{overhead:+.1%}"
        if noise is not None:
            figure += f" (run-to-run spread {noise:.0%})"
            unresolved.append(noise > 0.05)
        return figure, overhead <= 0.05
    unresolved = []
    figures, verdict = each_size(checkpoint)
    if verdict == "**met**" and any(unresolved):
        verdict = ("**met** as measured, but not resolved: the spread between rounds is "
                   "larger than 5 %")
    lines.append(("checkpointing ≤ 5 %", figures, verdict))

    # Issue 18: each new etl contender against its own hand-written SQL script.
    for task in ("v1-v3", "convert"):
        about = TASKS[task]
        etl_id, floor_id = about["etl"], about["floor"]
        floor_label = next(t["label"] for t in TOOLS if t["id"] == floor_id).split(" ")[0]
        etl_label = next(t["label"] for t in TOOLS if t["id"] == etl_id).split(" ")[0]

        def against_floor(size, etl_id=etl_id, floor_id=floor_id, goal=about["goal"]):
            e, f = usable(size, etl_id), usable(size, floor_id)
            if not (e and f):
                return None, None
            ratio = e["median_seconds"] / f["median_seconds"]
            return f"{ratio:.2f} ×", ratio <= goal
        figures, verdict = each_size(against_floor)
        lines.append((f"{about['title']}: {etl_label} ≤ {about['goal']} × {floor_label} time (issue 18)",
                      figures, verdict))
    batch = results.get("batch")
    if batch and batch.get("status") == "ok" and batch.get("stores_per_second"):
        rate = batch["stores_per_second"]
        lines.append((f"etl batch of small stores ≥ {BATCH_GOAL} stores/s (issue 18)",
                      f"{rate:.1f} stores/s ({batch['stores']} stores, --jobs {batch['jobs']})",
                      "**met**" if rate >= BATCH_GOAL else "**missed**"))
    else:
        lines.append((f"etl batch of small stores ≥ {BATCH_GOAL} stores/s (issue 18)",
                      batch.get("status", "not measured") if batch else "not measured", "not measured"))
    return lines + scale_targets(results, scale)


def scale_targets(results, scale):
    """Issue 18's goals for the scale run at SCALE_ROWS books (scale.json): peak memory,
    the ratio to (a) against the one at 5M (results.json), the disk space it needed."""
    label = size_label(SCALE_ROWS)
    record = next((r for r in scale if r["rows"] == SCALE_ROWS), None)
    big = record["size"] if record else {"tools": {}}
    if record:
        why = f"(c) at {label}: {big['tools'].get('etl', {}).get('status', 'not run')}"
    else:
        why = f"no {label} scale run in {SCALE_FILE}"
    absent = f"not measured: {why}"
    lines = []

    c = usable(big, "etl")
    peak = c.get("peak_mib") if c else None
    lines.append((f"etl peak memory ≤ 100 MiB at {label} books (issue 18)",
                  f"{peak:.1f} MiB" if peak else absent,
                  ("**met**" if peak <= 100 else "**missed**") if peak else "not measured"))

    five = next((size for size in results["sizes"] if size["rows"] == 5_000_000), None)
    ratio5, ratio_big = declarative_ratio(five) if five else None, declarative_ratio(big)
    name = f"declarative etl: the same ratio to (a) at {label} as at 5M, or lower (issue 18)"
    if ratio5 is None or ratio_big is None:
        missing = ([] if ratio5 is not None else ["no 5M run in results.json"]) + \
                  ([] if ratio_big is not None else [why])
        lines.append((name, f"not measured: {'; '.join(missing)}", "not measured"))
    else:
        # The run-to-run spread of either tool at either size (one round has none).
        noise = [spread(size["tools"][t]) for size in (five, big) for t in ("etl", BASELINE)]
        noise = max((n for n in noise if n is not None), default=None)
        change = ratio_big / ratio5 - 1
        figures = (f"5M: {ratio5:.2f} ×; {label}: {ratio_big:.2f} × ({change:+.1%}"
                   + (f"; run-to-run spread {noise:.0%})" if noise is not None else ")"))
        commits = [(run.get("etl") or {}).get("commit") or "?" for run in (results, record)]
        if commits[0] != commits[1]:
            figures += f"; etl commit {commits[0][:12]} at 5M, {commits[1][:12]} at {label}"
        # The goal is that etl keeps its pace against the floor as the store grows: a ratio
        # lower at the larger size (etl gaining on the floor) meets it as well as an equal one.
        if noise is None:
            verdict = "not resolved: one round each, no spread to judge by"
        elif abs(change) <= noise:
            verdict = "**met**: the same, within the run-to-run spread"
        elif change < 0:
            verdict = f"**met**: lower at {label} (etl gains on (a)), beyond the run-to-run spread"
        else:
            verdict = "**missed**: higher, beyond the run-to-run spread"
        lines.append((name, figures, verdict))

    disks = [(t, big["tools"][t]) for t in ("etl", BASELINE) if usable(big, t)]
    disks = [(t, e["peak_disk_mib"]) for t, e in disks if e.get("peak_disk_mib") is not None]
    if disks:
        source_mib = big["source"]["bytes"] / 2**20
        figures = "; ".join(f"{'(c)' if t == 'etl' else '(a)'} {mib:,.1f} MiB ({mib / source_mib:.2f} × the source)"
                            for t, mib in disks) + f"; the source {source_mib:,.1f} MiB"
    else:
        figures = absent
    lines.append((f"disk space needed beside the source at {label} books (issue 18)", figures,
                  "a figure, no goal"))
    return lines


def result_table(entries, floor_label, ratio_key):
    """A table of tools' summaries (summarize_size), its ratios to `floor_label` taken from
    `ratio_key`; lines for RESULTS.md, a blank one last."""
    out = [f"| tool | median s | rows/s | peak MiB | disk MiB | × {floor_label} | result |",
           "|---|---:|---:|---:|---:|---:|---|"]
    for entry in entries:
        if entry["kind"] != "run" or entry.get("median_seconds") is None:
            out.append(f"| {entry['label']} | — | — | — | — | — | {verdict_cell(entry)} |")
            continue
        out.append(f"| {entry['label']} | {fmt_seconds(entry['median_seconds'])} | "
                   f"{fmt_int(entry.get('rows_per_second'))} | {fmt_mib(entry.get('peak_mib'))} | "
                   f"{fmt_mib(entry.get('peak_disk_mib'))} | {fmt_ratio(entry.get(ratio_key))} | "
                   f"{verdict_cell(entry)} |")
    out.append("")
    return out


def machine_line(machine):
    return (f"{machine.get('nproc')} cores (nproc), {machine.get('memory_gib')} GiB memory, "
            f"CPU: {machine.get('cpu')}; {machine.get('platform')}")


def etl_line(etl):
    modified = etl.get("modified_files") or []
    dirty = f" (uncommitted changes to {', '.join(modified)})" if modified else ""
    return (f"`{etl.get('binary')}`, version {etl.get('version')}, commit "
            f"`{(etl.get('commit') or '?')[:12]}`{dirty}, release build")


def source_line(size):
    src = size["source"]
    return (f"Source: {fmt_int(src['books'])} books, {fmt_int(src['users'])} users, "
            f"{fmt_int(src['book_user_links'])} book–user links, "
            f"{src['bytes'] / 2**20:.1f} MiB; expected content hash "
            f"`{size['expected_hash'][:12]}`"
            + ("" if src.get("unchanged", True) else "; **the source store changed**")
            + ".\n")


def stage_table(entry):
    """Where (c) spends its time, from its stage medians; lines for RESULTS.md."""
    stages = (entry or {}).get("stage_median_seconds")
    if not stages:
        return []
    total = entry["median_seconds"]
    out = ["Where (c) spends its time (`--progress lines`, median per stage):\n",
           "| stage | s | share of wall time |", "|---|---:|---:|"]
    out += [f"| {name} | {seconds:.2f} | {seconds / total:.0%} |" for name, seconds in stages]
    out.append("")
    return out


SCALE_TEXT = """\
(a) and (c) alone at a larger size (issue 18: 50M books), kept in `scale.json` whatever
sizes the tables above have: `make bench-scale ROWS=N` (`run.py scale`) measures them as
above (one round unless told; every destination's content checked in the first round,
outside the timed part), adds the record, replacing an older one of the same size, and
writes this file again. Each was measured in its own sitting, possibly on another commit
than the tables above. **disk MiB** is the most space the run needed beside the source
(see Method).
"""


def scale_section(scale):
    """RESULTS.md's Scale section: every record of scale.json."""
    out = ["## Scale\n", SCALE_TEXT]
    if not scale:
        out.append("No scale run recorded yet (`make bench-scale ROWS=50000000`).\n")
        return out
    for record in scale:
        size = record["size"]
        out.append(f"### {fmt_int(record['rows'])} books (scale run)\n")
        out.append(f"- command: `{record['command']}`")
        out.append(f"- date: {record['date']}; rounds: {record['rounds']}")
        out.append(f"- machine: {machine_line(record['machine'])}")
        out.append(f"- etl: {etl_line(record['etl'])}")
        out += [f"- note: {note}" for note in record.get("notes", [])]
        out.append("")
        out.append(source_line(size))
        out += result_table(list(size["tools"].values()), "(a)", "ratio_to_a")
        checks = [f"{e['label'].split(' ')[0]} {r['check_seconds']:.1f} s" for e in size["tools"].values()
                  for r in e["runs"] if r.get("check_seconds") is not None]
        if checks:
            out.append(f"Content checks (not timed): {', '.join(checks)}. Whole size, with the sample "
                       f"and the checks: {size.get('size_seconds', 0):,.0f} s.\n")
        out += stage_table(size["tools"].get("etl"))
    return out


def write_markdown(results, path, plot_note, scale=()):
    machine, etl = results["machine"], results["etl"]
    out = []
    out.append("# Benchmarks: the books v1 → v2 step\n")
    out.append("Written by `Benchmarks/run.py` (`make bench`); do not edit by hand — it is "
               "overwritten by every run.\n")
    out.append("## Method\n")
    out.append(method_text(results))
    out.append("## This run\n")
    out.append(f"- command: `{results['command']}`")
    out.append(f"- date: {results['date']}")
    out.append(f"- sizes: {', '.join(fmt_int(s['rows']) for s in results['sizes'])} books; "
               f"rounds: {results['rounds']} (median of {results['rounds']})")
    out.append(f"- machine: {machine_line(machine)}")
    out.append(f"- SQLite: CLI {(machine.get('sqlite_cli') or '?').split(' ')[0]}, "
               f"Python module {machine.get('sqlite_python')} (Python {machine.get('python')}); "
               f"etl links the system libsqlite3")
    out.append(f"- Swift: {machine.get('swift')}")
    out.append(f"- etl: {etl_line(etl)}")
    for note in results.get("notes", []):
        out.append(f"- note: {note}")
    out.append("")

    out.append("## Results\n")
    for size in results["sizes"]:
        out.append(f"### {fmt_int(size['rows'])} books\n")
        out.append(source_line(size))
        out += result_table([e for t, e in size["tools"].items() if task_of(t) == "v1-v2"], "(a)", "ratio_to_a")
        for task, about in TASKS.items():
            entries = [(t, e) for t, e in size["tools"].items() if task_of(t) == task]
            if task == "v1-v2" or not any(e["kind"] == "run" for _, e in entries):
                continue
            floor_label = size["tools"].get(about["floor"], {}).get("label", about["floor"]).split(" ")[0]
            expected = size.get("tasks", {}).get(task, {}).get("expected_hash") or ""
            out.append(f"{about['title'][0].upper() + about['title'][1:]}, on the same "
                       f"{fmt_int(size['rows'])} rows (expected content hash `{expected[:12]}`; "
                       f"goal: etl ≤ {about['goal']} × {floor_label}):\n")
            out += result_table([e for _, e in entries], floor_label, "ratio_to_floor")
        if size.get("checkpoint_overhead") is not None:
            out.append(f"Checkpoint overhead: {size['checkpoint_overhead'] * 100:+.1f} % "
                       f"((c) vs (c')).\n")
        if size.get("loadavg"):
            out.append(f"Load average (1, 5, 15 min) before this size: "
                       f"{', '.join(map(str, size['loadavg']['before']))}; after: "
                       f"{', '.join(map(str, size['loadavg']['after']))}. Whole size, with the "
                       f"checks: {size.get('size_seconds', 0):.0f} s.\n")
        runs_line = []
        for tool_id, entry in size["tools"].items():
            if entry["runs"]:
                times = ", ".join(f"{r['seconds']:.2f}" for r in entry["runs"])
                runs_line.append(f"{entry['label'].split(' ')[0]} {times}")
        if runs_line:
            out.append("Every round, seconds: " + "; ".join(runs_line) + ".\n")
        out += stage_table(size["tools"].get("etl"))

    batch = results.get("batch")
    if batch:
        out.append(f"### (j) etl batch of {fmt_int(batch['stores'])} small stores\n")
        out.append(f"`etl batch pipelines/books.json` (v1 → v3) over {fmt_int(batch['stores'])} stores of "
                   f"{batch['books_per_store']} books (`etl sample books --rows {batch['books_per_store']} "
                   f"--seed 1…{batch['stores']}`), `--jobs {batch['jobs']}`, into a fresh folder each round; "
                   f"every result of the first round checked against the v3 content expected from its "
                   f"source. Goal (issue 18): ≥ {BATCH_GOAL} stores/s.\n")
        out.append("| median s | stores/s | peak MiB | result |")
        out.append("|---:|---:|---:|---|")
        status = batch.get("status")
        out.append(f"| {fmt_seconds(batch.get('median_seconds'))} | {batch.get('stores_per_second') or '—'} | "
                   f"{fmt_mib(batch.get('peak_mib'))} | {status if status == 'ok' else f'**{status}**'} |")
        out.append("")
        cost = batch.get("cost_ms_per_store")
        if cost:
            total = sum(cost.values())
            out.append("Where a store's time goes (the report's `cost` of each store, mean over the "
                       "stores of every round):\n")
            out.append("| part | ms per store | share |")
            out.append("|---|---:|---:|")
            for part in COST_PARTS:
                out.append(f"| {part} | {cost.get(part, 0):.1f} | {cost.get(part, 0) / total:.0%} |"
                           if total else f"| {part} | {cost.get(part, 0):.1f} | — |")
            out.append("")

    cd_batch = results.get("coredata_batch")
    if cd_batch and cd_batch.get("runs"):
        out.append(f"### (k) etl batch of {fmt_int(cd_batch['stores'])} Core Data stores\n")
        out.append(f"`etl batch` of a bundle pipeline (BookmarksModel.xcdatamodeld, to its current version 6) over "
                   f"{fmt_int(cd_batch['stores'])} copies of the fixtures' {' and '.join(cd_batch.get('versions', []))} "
                   f"(each with its `-wal`), `--jobs {cd_batch['jobs']}`, into a fresh folder each round; every result "
                   f"of the first round checked against `etl run` of its version's store alone. Goal (issue 44): "
                   f"≥ {BATCH_GOAL_44} stores/s.\n")
        out.append("| median s | stores/s | peak MiB | result |")
        out.append("|---:|---:|---:|---|")
        status = cd_batch.get("status")
        out.append(f"| {fmt_seconds(cd_batch.get('median_seconds'))} | {cd_batch.get('stores_per_second') or '—'} | "
                   f"{fmt_mib(cd_batch.get('peak_mib'))} | {status if status == 'ok' else f'**{status}**'} |")
        out.append("")

    out += scale_section(scale)
    out.append("## Targets\n")
    out.append(TARGETS_TEXT)
    out.append("| target | measured | verdict |")
    out.append("|---|---|---|")
    for target, figures, verdict in targets(results, scale):
        out.append(f"| {target} | {figures} | {verdict} |")
    out.append("")
    out.append("## Plot\n")
    out.append(plot_note + "\n")
    with open(path, "w") as handle:
        handle.write("\n".join(out) + "\n")


def write_plot(results, path):
    """Time and peak memory against size, two panels, log x. Returns a note for
    RESULTS.md."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return ("No plot: matplotlib is not installed (`pip install matplotlib`, then "
                "`make bench-report`).")
    sizes = sorted(results["sizes"], key=lambda s: s["rows"])
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    markers = {"sqlite": "o", "python": "s", "etl": "^", "etl-nocheckpoint": "v", "etl-closure": "D", "etl-functions": "P"}
    for tool in [t for t in TOOLS if t.get("task", "v1-v2") == "v1-v2"]:
        points = [(s["rows"], s["tools"].get(tool["id"], {})) for s in sizes]
        points = [(n, e) for n, e in points if e.get("median_seconds") is not None]
        if not points:
            continue
        xs = [n for n, _ in points]
        label = tool["label"] + ("" if all(e.get("status") == "ok" for _, e in points) else " (WRONG)")
        left.plot(xs, [e["median_seconds"] for _, e in points], marker=markers.get(tool["id"], "x"),
                  label=label)
        right.plot(xs, [e.get("peak_mib") for _, e in points], marker=markers.get(tool["id"], "x"),
                   label=label)
    for axis, title, unit in ((left, "wall time (median)", "seconds"),
                              (right, "peak resident memory", "MiB")):
        axis.set_xscale("log")
        axis.set_xlabel("source books")
        axis.set_ylabel(unit)
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
        axis.set_xticks([s["rows"] for s in sizes])
        axis.set_xticklabels([size_label(s["rows"]) for s in sizes])
        axis.minorticks_off()
    left.set_yscale("log")
    left.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    left.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    left.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    absent_tools = [t for t in TOOLS if t.get("task", "v1-v2") == "v1-v2"
                    and not any(s["tools"].get(t["id"], {}).get("median_seconds") for s in sizes)]
    absent_ids = [t["label"].split(" ")[0] for t in absent_tools]
    absent = []
    for tool in absent_tools:
        entries = [s["tools"].get(tool["id"], {}) for s in sizes]
        status = next((e.get("status") for e in entries if e.get("status")), tool.get("status"))
        absent.append(f"{tool['label']}: {status or 'no runs'}")
    if absent:
        figure.text(0.5, 0.01, "; ".join(absent), ha="center", fontsize=8, color="dimgrey")
    right.axhline(100, color="grey", linestyle="--", linewidth=1, label="target: 100 MiB")
    right.set_ylim(bottom=0)
    right.legend(fontsize=8, loc="best")
    figure.suptitle(f"books v1 → v2, {results['machine'].get('nproc')} cores, "
                    f"{results['date'][:10]}")
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return (f"![time and peak memory against size]({os.path.basename(path)})\n\n"
            "`results.png`: median wall time (log scale) and peak resident memory against the "
            "number of source books (log scale)."
            + (f" {' and '.join(absent_ids)} {'have' if len(absent_ids) > 1 else 'has'} no points."
               if absent_ids else ""))


def load_scale(folder):
    """The records of scale.json in a folder, by size; [] when there is none."""
    try:
        with open(os.path.join(folder, SCALE_FILE)) as handle:
            return sorted(json.load(handle), key=lambda record: record["rows"])
    except FileNotFoundError:
        return []


def report(results, folder, plot):
    json_path = os.path.join(folder, "results.json")
    md_path = os.path.join(folder, "RESULTS.md")
    png_path = os.path.join(folder, "results.png")
    if plot:
        note = write_plot(results, png_path)
    else:
        note = "No plot in this run (smoke mode or --no-plot)."
    write_markdown(results, md_path, note, load_scale(folder))
    return json_path, md_path, png_path if plot and os.path.exists(png_path) else None


def failures(results):
    bad = []
    for size in results["sizes"]:
        for entry in size["tools"].values():
            if entry["kind"] == "run" and entry.get("status") not in ("ok",):
                bad.append(f"{size_label(size['rows'])} {entry['label']}: {entry.get('status')}")
        if not size["source"].get("unchanged", True):
            bad.append(f"{size_label(size['rows'])}: the source store changed")
    batch = results.get("batch")
    if batch and batch.get("status") != "ok":
        bad.append(f"(j) etl batch of {batch['stores']} stores: {batch.get('status')}")
    cd_batch = results.get("coredata_batch")
    if cd_batch and cd_batch.get("runs") and cd_batch.get("status") != "ok":
        bad.append(f"(k) etl batch of {cd_batch['stores']} Core Data stores: {cd_batch.get('status')}")
    return bad


# ----------------------------------------------------------------------------------
# Commands


def check_tools(etl):
    if not os.path.isfile(etl) or not os.access(etl, os.X_OK):
        die(f"{etl}: no etl binary; build it first (swift build -c release)")
    if not shutil.which("sqlite3"):
        die("sqlite3: not found; install it (apt-get install sqlite3)")
    if not os.access(TIME, os.X_OK):
        die(f"{TIME}: not found; install it (apt-get install time)")


def bench_tools(etl, only=None):
    """TOOLS completed for this etl binary; with `only` (tool ids), the others not run."""
    tools = [closure_tool(t, etl) if t["id"] in ("etl-closure", "etl-functions") else dict(t) for t in TOOLS]
    if only:
        known = [t["id"] for t in TOOLS]
        unknown = [name for name in only if name not in known]
        if unknown:
            die(f"--tools: unknown {', '.join(unknown)}; the tools are {', '.join(known)}")
        for tool in tools:
            if tool["id"] not in only and tool["kind"] == "run":
                tool["kind"], tool["status"] = "skipped", "not run (--tools)"
    return tools


def invocation():
    """The command to show for this run: BENCH_COMMAND (set by the Makefile) or argv."""
    return os.environ.get("BENCH_COMMAND") or shlex.join(["python3", "Benchmarks/run.py"] + sys.argv[1:])


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def write_json(path, data):
    with open(path, "w") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")


def command_run(args, smoke):
    etl = os.path.abspath(args.etl)
    check_tools(etl)
    tools = bench_tools(etl, getattr(args, "tools", None))
    closure = next(t for t in tools if t["id"] == "etl-closure")
    if closure["kind"] == "run":
        log(f"(d) measured with {closure['program']}")
    else:
        log(f"(d) {closure['status']}")
    if smoke:
        sizes, rounds, plot = [2000], 1, False
        output = tempfile.mkdtemp(prefix="etl-bench-smoke-")
        work = os.path.join(output, "work")
    else:
        sizes, rounds, plot = args.sizes, args.rounds, not args.no_plot
        output = os.path.abspath(args.output)
        work = os.path.abspath(args.work)
    if any(n < 1 for n in sizes) or rounds < 1:
        die("sizes and rounds must be at least 1")
    os.makedirs(output, exist_ok=True)
    os.makedirs(work, exist_ok=True)

    command = "make bench-smoke" if smoke else invocation()
    results = {"format": RESULTS_FORMAT,
               "command": command,
               "date": utc_now(),
               "rounds": rounds,
               "machine": machine_info(),
               "etl": etl_info(etl),
               "closure": {"program": closure.get("program"), "status": closure.get("status")},
               # Format 1 files without this key checked every round.
               "content_check": "first round of each size",
               "notes": list(args.note or []) + (
                   ["smoke mode: 2,000 books, one round, to check that the tools agree; the "
                    "figures say nothing about speed and the targets are not meaningful here"]
                   if smoke else []),
               "sizes": []}
    log(f"etl benchmark: sizes {' '.join(map(str, sizes))}, {rounds} round(s), work folder {work}")
    started = time.perf_counter()
    for rows in sizes:
        results["sizes"].append(bench_size(rows, rounds, etl, work, tools))
        # Keep what was measured so far, should a later size fail or be stopped.
        write_json(os.path.join(output, "results.json"), results)
        if not args.keep:
            shutil.rmtree(os.path.join(work, f"rows-{rows}"), ignore_errors=True)
    if smoke or not args.no_batch:
        results["batch"] = bench_batch(etl, work, BATCH_SMOKE_STORES if smoke else BATCH_STORES, rounds)
        results["coredata_batch"] = bench_coredata_batch(etl, work, BATCH_SMOKE_STORES if smoke else BATCH_STORES, rounds)
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    write_json(os.path.join(output, "results.json"), results)
    json_path, md_path, png_path = report(results, output, plot)
    if smoke and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    log(f"wrote {md_path}, {json_path}" + (f", {png_path}" if png_path else "")
        + f" ({results['total_seconds']} s)")
    print_summary(results)
    return exit_status(results)


def exit_status(results):
    """1, each failure logged, when a tool failed or was wrong; else 0."""
    bad = failures(results)
    for line in bad:
        log(f"FAILED: {line}")
    if bad:
        return 1
    log("all tools produced the expected content and schema")
    return 0


def print_summary(results):
    for size in results["sizes"]:
        log(f"-- {size['rows']} books")
        for tool_id, entry in size["tools"].items():
            if entry.get("median_seconds") is None:
                log(f"   {entry['label']:<38} {entry.get('status')}")
            else:
                task = TASKS[task_of(tool_id)]
                floor = "(a)" if task["floor"] == BASELINE else size["tools"].get(task["floor"], {}).get("label", "?").split(" ")[0]
                ratio = entry.get("ratio_to_a") if task["floor"] == BASELINE else entry.get("ratio_to_floor")
                log(f"   {entry['label']:<38} {entry['median_seconds']:9.2f} s "
                    f"{entry.get('rows_per_second') or 0:>11,} rows/s "
                    f"{entry.get('peak_mib') or 0:8.1f} MiB  disk {entry.get('peak_disk_mib') or 0:8.1f} MiB  "
                    f"{ratio or 0:5.2f} × {floor}  {entry.get('status')}")
        if size.get("checkpoint_overhead") is not None:
            log(f"   checkpoint overhead: {size['checkpoint_overhead'] * 100:+.1f} %")
    batch = results.get("batch")
    if batch:
        rate = batch.get("stores_per_second")
        cost = batch.get("cost_ms_per_store") or {}
        log(f"-- (j) etl batch of {batch['stores']} stores: "
            + (f"{rate} stores/s" if rate else "no rate") + f", {batch.get('status')}"
            + ("; ms per store: " + ", ".join(f"{p} {cost[p]:.1f}" for p in COST_PARTS if p in cost) if cost else ""))


def command_batches(args):
    """(j) and (k) alone: for a base-against-branch comparison of the batch figures."""
    etl = os.path.abspath(args.etl)
    check_tools(etl)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.output, exist_ok=True)
    results = {"etl": etl_info(etl), "machine": machine_info(),
               "load_before": os.getloadavg(),
               "batch": bench_batch(etl, args.work, args.stores, args.rounds),
               "coredata_batch": bench_coredata_batch(etl, args.work, args.stores, args.rounds),
               "load_after": os.getloadavg()}
    write_json(os.path.join(args.output, "batches.json"), results)
    for key, label in (("batch", "(j) plain books v1 → v3"), ("coredata_batch", "(k) Core Data Bookmarks V4/V5 → 6")):
        entry = results[key]
        cost = entry.get("cost_ms_per_store") or {}
        log(f"-- {label}: {entry.get('median_seconds')} s median, {entry.get('stores_per_second')} stores/s, "
            f"{entry.get('status')}" + ("; ms per store: " + ", ".join(f"{p} {cost[p]:.1f}" for p in COST_PARTS if p in cost) if cost else ""))
    return 0


def command_scale(args):
    """(a) and (c) alone at one size: the record kept in scale.json (a new one replaces
    an older one of the same size), then RESULTS.md again from results.json and scale.json."""
    etl = os.path.abspath(args.etl)
    check_tools(etl)
    rows, rounds = args.rows, args.rounds
    if rows < 1 or rounds < 1:
        die("rows and rounds must be at least 1")
    output, work = os.path.abspath(args.output), os.path.abspath(args.work)
    os.makedirs(output, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    log(f"etl scale run: {rows} books, (a) and (c), {rounds} round(s), work folder {work} "
        f"({shutil.disk_usage(work).free / 2**30:.0f} GiB free)")
    record = {"rows": rows, "command": invocation(), "date": utc_now(), "rounds": rounds,
              "machine": machine_info(), "etl": etl_info(etl), "notes": list(args.note or [])}
    size = bench_size(rows, rounds, etl, work, bench_tools(etl, SCALE_TOOLS))
    if not args.keep:
        shutil.rmtree(os.path.join(work, f"rows-{rows}"), ignore_errors=True)
    # Only what ran, without the schema (the same as etl's, or the run says WRONG SCHEMA).
    size["tools"] = {tool: entry for tool, entry in size["tools"].items() if entry["kind"] == "run"}
    for key in ("tasks", "reference_schema"):
        size.pop(key, None)
    record["ratio_to_a"] = size["tools"].get("etl", {}).get("ratio_to_a")
    record["size"] = size
    scale_path = os.path.join(output, SCALE_FILE)
    write_json(scale_path, sorted([r for r in load_scale(output) if r["rows"] != rows] + [record],
                                  key=lambda r: r["rows"]))
    results = read_results(output)
    if results:
        _, md_path, png_path = report(results, output, not args.no_plot)
        log(f"wrote {scale_path}, {md_path}" + (f", {png_path}" if png_path else ""))
    else:
        log(f"wrote {scale_path}; no results.json in {output}, so no RESULTS.md "
            f"(`make bench`, or `make bench-report` once there is one)")
    print_summary({"sizes": [size]})
    return exit_status({"sizes": [size]})


def read_results(folder):
    """results.json of a folder, or None when there is none."""
    try:
        with open(os.path.join(folder, "results.json")) as handle:
            return json.load(handle)
    except FileNotFoundError:
        return None


def command_report(args):
    folder = os.path.abspath(args.output)
    path = os.path.join(folder, "results.json")
    results = read_results(folder)
    if results is None:
        die(f"{path}: no such file; run `make bench` first")
    if args.note:
        results.setdefault("notes", []).extend(args.note)
        write_json(path, results)
    json_path, md_path, png_path = report(results, folder, not args.no_plot)
    log(f"wrote {md_path}" + (f", {png_path}" if png_path else ""))
    print_summary(results)
    return 1 if failures(results) else 0


def main():
    parser = argparse.ArgumentParser(description="Benchmark harness of etl (issue 6).")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure every tool at every size")
    run.add_argument("--etl", default=os.path.join(ROOT, ".build", "release", "etl"))
    run.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000], metavar="N")
    run.add_argument("--rounds", type=int, default=3)
    run.add_argument("--work", default=os.path.join(ROOT, "out", "bench"),
                     help="folder for the stores (default out/bench)")
    run.add_argument("--output", default=HERE, help="folder for RESULTS.md, results.json, results.png")
    run.add_argument("--no-plot", action="store_true")
    run.add_argument("--tools", nargs="+", metavar="ID",
                     help="run only these tools (the others are listed as not run): "
                          + ", ".join(t["id"] for t in TOOLS))
    run.add_argument("--no-batch", action="store_true", help="skip (j), the batch of small stores")
    run.add_argument("--keep", action="store_true", help="keep the stores and logs of the work folder")
    run.add_argument("--note", action="append", help="a line for RESULTS.md (repeatable)")
    smoke = sub.add_parser("smoke", help="2,000 books, one round, in a temporary folder")
    smoke.add_argument("--etl", default=os.path.join(ROOT, ".build", "release", "etl"))
    smoke.add_argument("--keep", action="store_true", help="keep the stores and logs")
    smoke.add_argument("--note", action="append", help=argparse.SUPPRESS)
    rep = sub.add_parser("report", help="RESULTS.md and results.png again from results.json")
    rep.add_argument("--output", default=HERE)
    rep.add_argument("--no-plot", action="store_true")
    rep.add_argument("--note", action="append",
                     help="add a line to the notes of results.json and RESULTS.md (repeatable)")
    scale = sub.add_parser("scale", help=f"(a) and (c) alone at one size (issue 18: "
                           f"{SCALE_ROWS:,} books), kept in {SCALE_FILE}; RESULTS.md again")
    scale.add_argument("--etl", default=os.path.join(ROOT, ".build", "release", "etl"))
    scale.add_argument("--rows", type=int, default=SCALE_ROWS, metavar="N",
                       help=f"source books (default {SCALE_ROWS:,})")
    scale.add_argument("--rounds", type=int, default=1, help="rounds (default 1)")
    scale.add_argument("--work", default=os.path.join(ROOT, "out", "bench"),
                       help="folder for the stores (default out/bench)")
    scale.add_argument("--output", default=HERE,
                       help=f"folder of {SCALE_FILE}, results.json, RESULTS.md, results.png (default Benchmarks)")
    scale.add_argument("--no-plot", action="store_true")
    scale.add_argument("--keep", action="store_true", help="keep the stores and logs of the work folder")
    scale.add_argument("--note", action="append", help="a line for the record and RESULTS.md (repeatable)")
    batches = sub.add_parser("batches", help="(j) and (k) alone, the two archives (issue 44): printed and "
                             "written to OUTPUT/batches.json, RESULTS.md left as it is")
    batches.add_argument("--etl", default=os.path.join(ROOT, ".build", "release", "etl"))
    batches.add_argument("--rounds", type=int, default=5, help="rounds (default 5)")
    batches.add_argument("--stores", type=int, default=BATCH_STORES, help=f"stores per archive (default {BATCH_STORES})")
    batches.add_argument("--work", default=os.path.join(ROOT, "out", "bench"), help="folder for the stores (default out/bench)")
    batches.add_argument("--output", required=True, help="folder for batches.json")
    args = parser.parse_args()
    if args.command == "batches":
        return command_batches(args)
    if args.command == "report":
        return command_report(args)
    if args.command == "scale":
        return command_scale(args)
    return command_run(args, smoke=args.command == "smoke")


if __name__ == "__main__":
    sys.exit(main())
