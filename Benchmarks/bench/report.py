"""RESULTS.md from results.json and scale.json (and results.png beside it, see plot.py)."""

import os

from .batches import COST_PARTS
from .formatting import fmt_int, fmt_mib, fmt_ratio, fmt_seconds
from .plot import write_plot
from .records import load_scale
from .settings import CLOSURE_ENV
from .targets import BATCH_GOAL, BATCH_GOAL_44, TARGETS_TEXT, targets
from .tools import TASKS, task_of

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


def verdict_cell(entry):
    status = entry.get("status", "")
    if entry["kind"] != "run":
        return status
    if status == "ok":
        hashes = {r.get("hash") for r in entry["runs"] if r.get("hash")}
        digest = next(iter(hashes)) if len(hashes) == 1 else None
        return f"ok (`{digest[:12]}`)" if digest else "ok"
    return f"**{status}**"


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
