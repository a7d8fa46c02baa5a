#!/usr/bin/env python3
"""Hostile source stores by the thousand, against the etl binary.

    make fuzz-stores N=5000                      build (debug), then N mutants
    python3 scripts/fuzz-stores.py --etl .build/debug/etl --count 500 [--seed 1] [--jobs 2]
    python3 scripts/fuzz-stores.py --only 1234   re-create mutant 1234 of seed 1 and run it alone

Each mutant is a copy of a 300-book v1 store (`etl sample books`), or of a Core Data
fixture store of ../shared/fixtures/coredata-rename-chain when it is there (copied first;
nothing is written there), changed one way: flipped bytes, truncated at or inside a page,
a lying header field (page size, database size, encoding, freelist...), a lying schema
(rewritten with writable_schema on the copy), a view or trigger named like an entity
table, a damaged WAL beside the store, a damaged Core Data metadata plist. Every mutant
runs through

    timeout 30 s:  etl run PIPELINE --source MUTANT --destination DIR/v3.sqlite --force --progress none

and ends as one of:

    ok        exit 0
    error     exit 1 or 2 and stderr names the mutant's path      (a clear error)
    unclear   exit 1 or 2, and stderr does not name the path
    crash     killed by a signal other than SIGINT/SIGTERM, or an exit code >= 128 other than 130/143
    timeout   still running after --timeout seconds (then killed)
    modified  the mutant's bytes (or its WAL's) changed, or files were left beside it

Crashes, timeouts, unclear errors and modified sources are kept under --keep
(default out/fuzz-stores/) with the command and its output, and make the script exit 1.
Mutant N of a seed is always the same file: --only N re-creates it.
"""

import argparse
import concurrent.futures
import hashlib
import json
import os
import random
import shutil
import signal
import sqlite3
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
FIXTURES = os.path.normpath(os.path.join(ROOT, "..", "shared", "fixtures", "coredata-rename-chain"))
BAD = ("unclear", "crash", "timeout", "modified")


# ---------------------------------------------------------------- mutations

def page_size(data):
    raw = struct.unpack(">H", data[16:18])[0]
    return 65536 if raw == 1 else (raw or 4096)


def flip(data, rng):
    data = bytearray(data)
    first_page = rng.random() < 0.5
    limit = min(page_size(data), len(data)) if first_page else len(data)
    for _ in range(rng.randint(1, 4)):
        data[rng.randrange(limit)] ^= rng.randint(1, 255)
    return bytes(data), "flip-%s" % ("first-page" if first_page else "anywhere")


def truncate(data, rng):
    size = page_size(data)
    pages = max(1, len(data) // size)
    k = rng.randrange(pages)
    if rng.random() < 0.4:
        return data[:k * size], "truncated-page-%d" % k
    return data[:k * size + rng.randint(1, size - 1)], "truncated-mid-page-%d" % k


def header(data, rng):
    data = bytearray(data)
    pages = max(1, len(data) // page_size(data))
    be32 = lambda v: struct.pack(">I", v & 0xFFFFFFFF)
    choices = [
        ("page-size", 16, struct.pack(">H", rng.choice([0, 1, 2, 3, 256, 512, 1024, 2048, 8192, 16384, 32768, 4097, 0xFFFF]))),
        ("db-size", 28, be32(rng.choice([0, 1, pages - 1, pages + 1, pages * 1000, 0x7FFFFFFF, 0xFFFFFFFF, rng.getrandbits(32)]))),
        ("magic", rng.randrange(16), bytes([rng.randrange(256)])),
        ("read-version", 18, bytes([rng.choice([0, 3, 255])])),
        ("write-version", 19, bytes([rng.choice([0, 3, 255])])),
        ("reserved", 20, bytes([rng.choice([1, 8, 32, 64, 255])])),
        ("payload-fractions", 21 + rng.randrange(3), bytes([rng.randrange(256)])),
        ("change-counter", 24, be32(rng.getrandbits(32))),
        ("freelist-trunk", 32, be32(rng.choice([1, pages, pages + 1, 0x7FFFFFF0, rng.getrandbits(32)]))),
        ("freelist-count", 36, be32(rng.choice([1, pages * 2, 0xFFFFFFFF, rng.getrandbits(32)]))),
        ("schema-cookie", 40, be32(rng.getrandbits(32))),
        ("schema-format", 44, be32(rng.choice([0, 5, 255, rng.getrandbits(32)]))),
        ("cache-size", 48, be32(rng.getrandbits(32))),
        ("autovacuum-root", 52, be32(rng.choice([1, pages + 7, rng.getrandbits(32)]))),
        ("encoding", 56, be32(rng.choice([0, 2, 3, 9, rng.getrandbits(32)]))),
        ("incremental-vacuum", 64, be32(rng.choice([1, rng.getrandbits(32)]))),
        ("version-valid-for", 92, be32(rng.getrandbits(32))),
    ]
    name, offset, value = rng.choice(choices)
    if name == "db-size" and rng.random() < 0.5:
        data[92:96] = data[24:28]  # a size SQLite believes: change counter == version-valid-for
        name += "-believed"
    data[offset:offset + len(value)] = value
    return bytes(data), "header-" + name


def quote(name):
    return '"' + name.replace('"', '""') + '"'


def schema_lie(path, rng, table, columns, other):
    """Rewrites `table`'s CREATE statement or root page on the copy at `path`."""
    cols = [quote(c) for c in columns]
    shuffled = cols[:]
    rng.shuffle(shuffled)
    t = quote(table)
    lies = {
        "renamed-column": "CREATE TABLE %s (%s, \"renamed\")" % (t, ", ".join(cols[:-1])),
        "shuffled-columns": "CREATE TABLE %s (%s)" % (t, ", ".join(shuffled)),
        "fewer-columns": "CREATE TABLE %s (%s)" % (t, ", ".join(cols[:2])),
        "more-columns": "CREATE TABLE %s (%s, extra1, extra2 DEFAULT (zeroblob(1000000000)))" % (t, ", ".join(cols)),
        "strict": "CREATE TABLE %s (%s INTEGER PRIMARY KEY, %s) STRICT" % (t, cols[0], ", ".join(c + " BLOB NOT NULL" for c in cols[1:])),
        "without-rowid": "CREATE TABLE %s (%s INTEGER PRIMARY KEY, %s) WITHOUT ROWID" % (t, cols[0], ", ".join(cols[1:])),
        "unparsable": "CREATE TABLE %s (%s INTEGER PRIMARY KEY," % (t, cols[0]),
        "not-a-create": "SELECT 1",
        "generated-load-extension": "CREATE TABLE %s (%s, evil AS (load_extension('/nonexistent/evil.so')))" % (t, ", ".join(cols)),
        "check-load-extension": "CREATE TABLE %s (%s, CHECK (load_extension('/nonexistent/evil.so')))" % (t, ", ".join(cols)),
        "deep-check": "CREATE TABLE %s (%s, CHECK (%s))" % (t, ", ".join(cols), " + ".join(["1"] * 900)),
        "random-sql": "CREATE TABLE %s (%s)" % (t, "".join(rng.choice("(),' \"abcXYZ019") for _ in range(rng.randint(1, 80)))),
    }
    roots = {"root-of-other": "(SELECT rootpage FROM sqlite_schema WHERE name = '%s')" % other.replace("'", "''"),
             "root-0": "0", "root-1": "1", "root-beyond": "999999", "root-negative": "-5",
             "root-random": str(rng.randint(-10, 100))}
    name = rng.choice(sorted(lies) + sorted(roots) + ["duplicate-entry"])
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.execute("PRAGMA writable_schema = ON")
        if name in lies:
            db.execute("UPDATE sqlite_schema SET sql = ? WHERE name = ?", (lies[name], table))
        elif name in roots:
            db.execute("UPDATE sqlite_schema SET rootpage = %s WHERE name = ?" % roots[name], (table,))
        else:
            db.execute("INSERT INTO sqlite_schema SELECT * FROM sqlite_schema WHERE name = ?", (table,))
        db.execute("PRAGMA writable_schema = OFF")
    finally:
        db.close()
    return "lie-%s-%s" % (table, name)


def run_sql(path, sql):
    db = sqlite3.connect(path, isolation_level=None)
    try:
        db.executescript(sql)
    finally:
        db.close()


class Base:
    """One store mutants are made of, with what its layout needs."""

    def __init__(self, name, path, pipeline, tables, extra_kinds):
        self.name = name
        self.path = path
        self.pipeline = pipeline
        self.data = open(path, "rb").read()
        self.tables = tables            # [(table, [columns], other table)]
        self.extra_kinds = extra_kinds  # kind -> function(path, rng) -> label
        self.wal = None                 # (main bytes, wal bytes) of a WAL-mode copy


def books_views(path, rng):
    columns = "1 AS id, 'from a view' AS title, 'nobody' AS authorName, NULL AS fileURL, 0 AS published, 1.0 AS price"
    forever = ("WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n AS id, 'x' AS title, "
               "'y' AS authorName, NULL AS fileURL, 0 AS published, 1.0 AS price FROM c")
    choices = {
        "view-Book": "DROP TABLE Book; CREATE VIEW Book AS SELECT %s;" % columns,
        "view-Book-renamed-table": "ALTER TABLE Book RENAME TO Book_real; CREATE VIEW Book AS SELECT * FROM Book_real;",
        "view-Book-forever": "DROP TABLE Book; CREATE VIEW Book AS %s;" % forever,
        "view-Book_users": "DROP TABLE Book_users; CREATE VIEW Book_users AS SELECT id AS source_id, 1 AS target_id FROM Book;",
        "view-User": "ALTER TABLE User RENAME TO u; CREATE VIEW User AS SELECT * FROM u;",
        "trigger-Book": "CREATE TRIGGER Book AFTER UPDATE ON User BEGIN DELETE FROM Book; END;",
        "trigger-on-Book": "CREATE TRIGGER hostile BEFORE DELETE ON Book BEGIN SELECT RAISE(FAIL, 'hostile'); END;",
        "virtual-Book": "DROP TABLE Book; CREATE VIRTUAL TABLE Book USING fts5(title, authorName, fileURL, published, price);",
        "temp-trigger": "CREATE TABLE t(x); CREATE TRIGGER tt AFTER INSERT ON t BEGIN SELECT 1; END;",
        "index-expression": "CREATE INDEX hostile_index ON Book(substr(title, 1, 3), length(authorName));",
    }
    name = rng.choice(sorted(choices))
    run_sql(path, choices[name])
    return name


def coredata_metadata(path, rng):
    db = sqlite3.connect(path, isolation_level=None)
    try:
        row = db.execute("SELECT Z_PLIST FROM Z_METADATA").fetchone()
        plist = bytearray(row[0]) if row and row[0] else bytearray(b"bplist00")
        kind = rng.choice(["flip", "flip", "flip", "truncate", "null", "text", "xml-nested", "empty", "twice", "primarykey", "zent"])
        if kind == "flip":
            for _ in range(rng.randint(1, 4)):
                plist[rng.randrange(len(plist))] ^= rng.randint(1, 255)
            db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", (bytes(plist),))
        elif kind == "truncate":
            db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", (bytes(plist[:rng.randrange(len(plist))]),))
        elif kind == "null":
            db.execute("UPDATE Z_METADATA SET Z_PLIST = NULL")
        elif kind == "text":
            db.execute("UPDATE Z_METADATA SET Z_PLIST = 'not a plist'")
        elif kind == "xml-nested":
            depth = rng.choice([100, 5000, 50000])
            xml = '<?xml version="1.0"?><plist version="1.0">' + "<array>" * depth + "</array>" * depth + "</plist>"
            db.execute("UPDATE Z_METADATA SET Z_PLIST = ?", (xml.encode(),))
        elif kind == "empty":
            db.execute("DELETE FROM Z_METADATA")
        elif kind == "twice":
            db.execute("INSERT INTO Z_METADATA SELECT Z_VERSION + 1, Z_UUID, Z_PLIST FROM Z_METADATA")
        elif kind == "primarykey":
            db.execute("UPDATE Z_PRIMARYKEY SET Z_ENT = ?, Z_MAX = ?", (rng.randint(-5, 5), rng.choice([-1, 0, 2**63 - 1])))
        else:
            db.execute("UPDATE ZBASICENTITY SET Z_ENT = ?", (rng.randint(-5, 99),))
    finally:
        db.close()
    return "coredata-" + kind


def make_wal(base, folder):
    """A WAL-mode copy of the base whose -wal holds committed transactions."""
    work = os.path.join(folder, "wal-base")
    os.makedirs(work, exist_ok=True)
    path = os.path.join(work, "store.sqlite")
    with open(path, "wb") as f:
        f.write(base.data)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode = WAL")
    db.execute("PRAGMA wal_autocheckpoint = 0")
    if base.name == "books":
        db.executescript("""
            UPDATE Book SET title = title || ' (from the WAL)' WHERE id % 3 = 0;
            DELETE FROM Book_users WHERE source_id % 7 = 0;
            INSERT INTO User (id, userId, name) VALUES (1000, 91000, 'Only In The WAL');""")
    else:
        db.execute("UPDATE ZBASICENTITY SET Z_OPT = Z_OPT + 1")
    # Copied while the writer is open: closing would checkpoint the WAL away.
    main = open(path, "rb").read()
    wal = open(path + "-wal", "rb").read()
    db.close()
    shutil.rmtree(work, ignore_errors=True)
    return main, wal


def wal_mutation(base, rng):
    main, wal = base.wal
    wal = bytearray(wal)
    size = page_size(main)
    kind = rng.choice(["flip", "flip", "flip", "truncate", "header", "garbage", "intact"])
    if kind == "flip":
        frames = max(1, (len(wal) - 32) // (size + 24))
        for _ in range(rng.randint(1, 3)):
            frame = 32 + rng.randrange(frames) * (size + 24)
            offset = rng.choice([rng.randrange(32), min(len(wal) - 1, frame + rng.randrange(24)), rng.randrange(len(wal))])
            wal[offset] ^= rng.randint(1, 255)
    elif kind == "truncate":
        wal = wal[:rng.randrange(len(wal))]
    elif kind == "header":
        wal[:32] = bytes(rng.getrandbits(8) for _ in range(32))
    elif kind == "garbage":
        wal = bytearray(rng.getrandbits(8) for _ in range(len(wal)))
    return main, bytes(wal), "wal-" + kind


def make_mutant(base, index, seed, folder):
    """Writes mutant `index` into `folder`; returns (label, [files])."""
    rng = random.Random(seed * 1_000_003 + index)
    os.makedirs(folder, exist_ok=True)
    path = os.path.join(folder, "store.sqlite")
    kinds = [("flip", 40), ("truncate", 12), ("header", 16), ("lie", 12), ("extra", 10), ("wal", 10)]
    kind = rng.choices([k for k, _ in kinds], weights=[w for _, w in kinds])[0]
    files = [path]
    if kind == "flip":
        data, label = flip(base.data, rng)
    elif kind == "truncate":
        data, label = truncate(base.data, rng)
    elif kind == "header":
        data, label = header(base.data, rng)
    elif kind == "wal":
        data, wal, label = wal_mutation(base, rng)
        with open(path + "-wal", "wb") as f:
            f.write(wal)
        files.append(path + "-wal")
    else:
        data, label = base.data, None
    with open(path, "wb") as f:
        f.write(data)
    if kind == "lie":
        table, columns, other = rng.choice(base.tables)
        label = schema_lie(path, rng, table, columns, other)
    elif kind == "extra":
        extra = rng.choice(sorted(base.extra_kinds))
        label = base.extra_kinds[extra](path, rng)
    # A WAL-mode copy edited through sqlite3 checkpoints on close; the mutant is its files.
    for leftover in (path + "-wal", path + "-shm"):
        if leftover not in files and os.path.exists(leftover):
            os.remove(leftover)
    return "%s/%s" % (base.name, label), files


# ---------------------------------------------------------------- running

def digest(files):
    h = hashlib.sha256()
    for f in files:
        with open(f, "rb") as handle:
            h.update(handle.read())
        h.update(b"\0")
    return h.hexdigest()


def run_one(args, bases, index, work):
    # One mutant in five of a Core Data fixture, when they are there.
    base = bases[1 + (index // 5) % (len(bases) - 1)] if len(bases) > 1 and index % 5 == 4 else bases[0]
    folder = os.path.join(work, "m%06d" % index)
    label, files = make_mutant(base, index, args.seed, folder)
    path = files[0]
    before = digest(files)
    siblings = sorted(os.listdir(folder))
    out = os.path.join(work, "o%06d" % index)
    os.makedirs(out, exist_ok=True)
    command = [args.etl, "run", base.pipeline, "--source", path, "--destination", os.path.join(out, "v3.sqlite"),
               "--force", "--progress", "none"]
    started = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, start_new_session=True)
    try:
        stdout, stderr = process.communicate(timeout=args.timeout)
        code = process.returncode
        timed_out = False
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        stdout, stderr = process.communicate()
        code = process.returncode
        timed_out = True
    seconds = time.monotonic() - started
    stderr_text = stderr.decode("utf-8", "replace")
    if timed_out:
        outcome = "timeout"
    elif code < 0 and code not in (-signal.SIGINT, -signal.SIGTERM) or code >= 128 and code not in (130, 143):
        outcome = "crash"
    elif code == 0:
        outcome = "ok"
    elif code in (1, 2) and path in stderr_text:
        outcome = "error"
    else:
        outcome = "unclear"
    if outcome not in ("timeout", "crash") and (digest(files) != before or sorted(os.listdir(folder)) != siblings):
        outcome = "modified"
    result = {"index": index, "mutant": label, "outcome": outcome, "exit": code, "seconds": round(seconds, 3),
              "stderr": stderr_text[-2000:]}
    if outcome in BAD:
        keep = os.path.join(args.keep, "%s-%06d" % (outcome, index))
        shutil.rmtree(keep, ignore_errors=True)
        shutil.copytree(folder, keep)
        with open(os.path.join(keep, "result.json"), "w") as f:
            json.dump(dict(result, command=command, stdout=stdout.decode("utf-8", "replace")[-2000:],
                           rerun="python3 scripts/fuzz-stores.py --etl %s --seed %d --only %d" % (args.etl, args.seed, index)), f, indent=2)
    shutil.rmtree(folder, ignore_errors=True)
    shutil.rmtree(out, ignore_errors=True)
    return result


def prepare_bases(args, work):
    bases = []
    books = os.path.join(work, "books-v1.sqlite")
    subprocess.run([args.etl, "sample", "books", "--version", "1", "--rows", str(args.rows), "--seed", "1", "--out", books, "--force"],
                   check=True, stdout=subprocess.DEVNULL)
    base = Base("books", books, os.path.join(ROOT, "pipelines", "books.json"),
                [("Book", ["id", "title", "authorName", "fileURL", "published", "price"], "User"),
                 ("Book_users", ["source_id", "target_id"], "User"), ("User", ["id", "userId", "name"], "Book")],
                {"views": books_views})
    base.wal = make_wal(base, work)
    bases.append(base)
    if args.coredata and os.path.isdir(FIXTURES):
        chain = os.path.join(work, "chain")
        shutil.copytree(FIXTURES, chain)
        for dirpath, dirnames, filenames in os.walk(chain):
            for name in dirnames + filenames:
                os.chmod(os.path.join(dirpath, name), 0o755)
        pipeline = os.path.join(work, "coredata.json")
        with open(pipeline, "w") as f:
            json.dump({"format": 1, "models": os.path.join(chain, "Model.xcdatamodeld"),
                       "source": {"store": os.path.join(chain, "Example_v1.0.0.sqlite"), "layout": "coredata"},
                       "destination": {"store": os.path.join(work, "unused.sqlite"), "layout": "coredata"}}, f)
        for version in ["v1.0.0", "v1.1.0", "v1.1.2", "v1.2.0", "v2.0.0"]:
            path = os.path.join(chain, "Example_%s.sqlite" % version)
            db = sqlite3.connect("file:%s?mode=ro" % path, uri=True)
            columns = [r[1] for r in db.execute("PRAGMA table_info(ZBASICENTITY)")]
            db.close()
            for leftover in (path + "-wal", path + "-shm"):
                if os.path.exists(leftover):
                    os.remove(leftover)
            base = Base("coredata-" + version, path, pipeline,
                        [("ZBASICENTITY", columns, "Z_METADATA"), ("Z_METADATA", ["Z_VERSION", "Z_UUID", "Z_PLIST"], "ZBASICENTITY"),
                         ("Z_PRIMARYKEY", ["Z_ENT", "Z_NAME", "Z_SUPER", "Z_MAX"], "ZBASICENTITY")],
                        {"metadata": coredata_metadata})
            base.wal = make_wal(base, work)
            bases.append(base)
    elif args.coredata:
        print("note: %s is missing: books mutants only" % FIXTURES)
    return bases


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--etl", default=os.path.join(ROOT, ".build", "debug", "etl"))
    parser.add_argument("--count", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--rows", type=int, default=300)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--keep", default=os.path.join(ROOT, "out", "fuzz-stores"))
    parser.add_argument("--no-coredata", dest="coredata", action="store_false", help="books mutants only")
    parser.add_argument("--only", type=int, help="run this one mutant (its number) and keep it")
    parser.add_argument("--json", help="write every result to this file (JSON lines)")
    args = parser.parse_args()
    args.etl = os.path.abspath(args.etl)
    if not os.access(args.etl, os.X_OK):
        sys.exit("no etl binary at %s: build it first (swift build)" % args.etl)

    work = tempfile.mkdtemp(prefix="etl-fuzz-stores-")
    try:
        bases = prepare_bases(args, work)
        indices = [args.only] if args.only is not None else list(range(args.count))
        counts = {k: 0 for k in ("ok", "error") + BAD}
        kinds = {}
        slowest = []
        bad = []
        lock = threading.Lock()
        log = open(args.json, "w") if args.json else None
        started = time.monotonic()
        done = 0
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            futures = [pool.submit(run_one, args, bases, i, work) for i in indices]
            for future in concurrent.futures.as_completed(futures):
                r = future.result()
                with lock:
                    done += 1
                    counts[r["outcome"]] += 1
                    kind = r["mutant"].split("/")[1].split("-")[0]
                    kinds.setdefault(kind, {}).setdefault(r["outcome"], 0)
                    kinds[kind][r["outcome"]] += 1
                    slowest.append((r["seconds"], r["index"], r["mutant"]))
                    if r["outcome"] in BAD:
                        bad.append(r)
                        print("%-8s #%d %s (exit %s, %.1f s): %s" % (r["outcome"], r["index"], r["mutant"], r["exit"], r["seconds"],
                                                                   r["stderr"].strip().splitlines()[-1:] if r["stderr"].strip() else ""), flush=True)
                    if log:
                        log.write(json.dumps(r) + "\n")
                    if done % 100 == 0 and not args.only:
                        print("%d/%d mutants, %.0f s" % (done, len(indices), time.monotonic() - started), flush=True)
        elapsed = time.monotonic() - started
        if args.only is not None:
            r = bad[0] if bad else None
            print(json.dumps(r or {"index": args.only, "outcome": "ok or a clear error"}, indent=2))
        print()
        print("%d mutants in %.0f s (%d jobs, seed %d, %s)" % (len(indices), elapsed, args.jobs, args.seed, args.etl))
        print("  successes     %6d" % counts["ok"])
        print("  clear errors  %6d" % counts["error"])
        print("  unclear errors%6d   (exit 1/2 without the mutant's path)" % counts["unclear"])
        print("  crashes       %6d   (signals, exit >= 128 other than 130/143)" % counts["crash"])
        print("  timeouts      %6d   (> %g s)" % (counts["timeout"], args.timeout))
        print("  modified      %6d   (the mutant changed, or files left beside it)" % counts["modified"])
        print("by kind: " + ", ".join("%s %s" % (k, "/".join("%s %d" % (o, n) for o, n in sorted(v.items())))
                                      for k, v in sorted(kinds.items())))
        slowest.sort(reverse=True)
        print("slowest: " + ", ".join("#%d %s %.1f s" % (i, m, s) for s, i, m in slowest[:5]))
        if bad:
            print("kept in %s (each with result.json and the command to rerun it)" % args.keep)
        if log:
            log.close()
        return 1 if bad else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
