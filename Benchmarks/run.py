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

Standard library only; matplotlib is optional. The code is the package bench/ beside this
file (bench/__init__.py lists its modules); this file only starts it.
"""

import sys

from bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
