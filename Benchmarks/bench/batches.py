"""(j) and (k): `etl batch` over an archive of small stores, timed whole, its batch report
read for each store's cost, every result of the first round checked."""

import json
import os
import shlex
import shutil
import sqlite3
import statistics
import subprocess
import time

from .console import log
from .content import EXPECTED_DUMP_V3, content_hash, expected_hash, store_dump
from .measuring import TIME, max_rss_kib
from .settings import ROOT
from .tools import V3_PIPELINE

# (j): the batch of small stores.
BATCH_STORES = 200
BATCH_SMOKE_STORES = 20
BATCH_BOOKS = 50
BATCH_JOBS = 2
# (k): the batch of Core Data stores (issue 44): DuckDuckGo's Bookmarks V4 and V5 (with
# their -wal) from the fixtures' coredata-corpus, half each, to the bundle's current
# version (BookmarksModel 6).
CD_BATCH_VERSIONS = (4, 5)
# The parts of a store's `cost` in the batch report.
COST_PARTS = ["open", "plan", "check", "copy", "validate", "rename"]


def bench_batches(etl, work, stores, rounds, fixtures):
    """(j) then (k): {"batch": …, "coredata_batch": …}. Their folders are removed after
    both, not between them: files removed just before a timed run slow its own file
    creations on this VM (see `time_batch`)."""
    results = {"batch": bench_batch(etl, work, stores, rounds),
               "coredata_batch": bench_coredata_batch(etl, work, stores, rounds, fixtures)}
    for name in ("batch", "coredata-batch"):
        shutil.rmtree(os.path.join(work, name), ignore_errors=True)
    return results


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
    return result


def bench_coredata_batch(etl, work, stores, rounds, fixtures):
    """(k) `etl batch` of `stores` Core Data stores — copies of Bookmarks V4 and V5 with
    their `-wal`, alternately — to the bundle's current version, `rounds` times into a
    fresh folder; in the first round every result is checked against `etl run` of its
    version's store alone (every table but Z_METADATA). The stores are the coredata-corpus
    of `fixtures` (ETL_FIXTURES)."""
    corpus = os.path.join(fixtures, "coredata-corpus", "ddg-bookmarks")
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
    return result


def time_batch(etl, folder, archive, pipeline, stores, rounds, wrong_results):
    """Runs `etl batch PIPELINE --stores ARCHIVE --out …` `rounds` times, each into a
    folder of its own (a new process each, timed whole), all removed after the last round;
    `wrong_results(out)` checks the first round.

    Not one folder emptied before each round: on an ext4 file system without a journal
    (this VM's), every file created in the seconds after a removal looks past each inode
    freed in that time (`recently_deleted`), so the 200 results removed just before a round
    made each of its new files several times slower to create: a cost of the removal,
    billed to the run being timed, and to the faster run the more."""
    result = {"runs": []}
    costs = []
    outs = [os.path.join(folder, f"out-{index + 1}") for index in range(rounds)]
    for out in outs:
        shutil.rmtree(out, ignore_errors=True)
    for round_index in range(rounds):
        out = outs[round_index]
        report_path = os.path.join(folder, "report.json")
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
