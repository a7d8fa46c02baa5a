"""One size: the source stores written, every tool run every round, each destination
checked, and each tool's runs summarized (median time, rows/s, peak memory and disk,
ratio to its floor, verdict)."""

import os
import sqlite3
import statistics
import subprocess
import time

from .console import log
from .content import (EXPECTED_DUMP_V3, content_hash, expected_convert_hash, expected_hash, read_only_uri,
                      schema_of, sha256_file)
from .measuring import leftovers, remove_destination, run_once
from .notes import write_notes
from .settings import ROOT
from .tools import BASELINE, TASKS, task_of, tool_command

# `etl sample books --seed`: the same source store at a size every time.
SEED = 1


def source_counts(path):
    connection = sqlite3.connect(read_only_uri(path), uri=True)
    try:
        return {table: connection.execute(f'SELECT count(*) FROM "{table}"').fetchone()[0]
                for table in ("User", "Book", "Book_users")}
    finally:
        connection.close()


def bench_size(rows, rounds, etl, work, tools):
    """Every tool of `tools` (bench_tools) `rounds` times on a source of `rows` books (and
    `rows` notes) in `work`: the size's part of results.json."""
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
            command, stdin_path = tool_command(tool, etl, sources[task], destination)
            run = run_once(command, stdin_path, destination, log_path, stages=tool["id"].startswith("etl"))
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
