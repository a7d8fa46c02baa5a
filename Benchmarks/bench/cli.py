"""run.py's command line: run, smoke, report, scale and batches."""

import argparse
import datetime
import os
import shutil
import sys
import tempfile
import time

from .batches import BATCH_SMOKE_STORES, BATCH_STORES, bench_batches
from .console import UsageError, log
from .machine import etl_info, machine_info
from .measuring import TIME
from .records import RESULTS_FORMAT, SCALE_FILE, SCALE_ROWS, SCALE_TOOLS, keep_scale_record, read_results, write_json
from .report import report
from .settings import BENCHMARKS, ROOT, Settings
from .sizes import bench_size
from .summary import costs_text, exit_status, failures, print_summary
from .tools import TOOLS, bench_tools


def check_tools(etl):
    """The programs every command that measures needs: etl, sqlite3, GNU time."""
    if not os.path.isfile(etl) or not os.access(etl, os.X_OK):
        raise UsageError(f"{etl}: no etl binary; build it first (swift build -c release)")
    if not shutil.which("sqlite3"):
        raise UsageError("sqlite3: not found; install it (apt-get install sqlite3)")
    if not os.access(TIME, os.X_OK):
        raise UsageError(f"{TIME}: not found; install it (apt-get install time)")


def utc_now():
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def command_run(args, settings, smoke):
    """Every tool at every size, then (j) and (k): results.json, RESULTS.md, results.png;
    `smoke`: 2,000 books, one round, no plot, in a temporary folder."""
    etl = os.path.abspath(args.etl)
    check_tools(etl)
    tools = bench_tools(etl, settings.closure_command, getattr(args, "tools", None))
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
        raise UsageError("sizes and rounds must be at least 1")
    os.makedirs(output, exist_ok=True)
    os.makedirs(work, exist_ok=True)

    command = "make bench-smoke" if smoke else settings.invocation
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
        stores = BATCH_SMOKE_STORES if smoke else BATCH_STORES
        results.update(bench_batches(etl, work, stores, rounds, settings.fixtures))
    results["total_seconds"] = round(time.perf_counter() - started, 1)
    write_json(os.path.join(output, "results.json"), results)
    json_path, md_path, png_path = report(results, output, plot)
    if smoke and not args.keep:
        shutil.rmtree(work, ignore_errors=True)
    log(f"wrote {md_path}, {json_path}" + (f", {png_path}" if png_path else "")
        + f" ({results['total_seconds']} s)")
    print_summary(results)
    return exit_status(results)


def command_batches(args, settings):
    """(j) and (k) alone: for a base-against-branch comparison of the batch figures."""
    etl = os.path.abspath(args.etl)
    check_tools(etl)
    os.makedirs(args.work, exist_ok=True)
    os.makedirs(args.output, exist_ok=True)
    results = {"etl": etl_info(etl), "machine": machine_info(), "load_before": os.getloadavg()}
    results.update(bench_batches(etl, args.work, args.stores, args.rounds, settings.fixtures))
    results["load_after"] = os.getloadavg()
    write_json(os.path.join(args.output, "batches.json"), results)
    for key, label in (("batch", "(j) plain books v1 → v3"), ("coredata_batch", "(k) Core Data Bookmarks V4/V5 → 6")):
        entry = results[key]
        cost = entry.get("cost_ms_per_store") or {}
        log(f"-- {label}: {entry.get('median_seconds')} s median, {entry.get('stores_per_second')} stores/s, "
            f"{entry.get('status')}" + costs_text(cost))
    return 0


def command_scale(args, settings):
    """(a) and (c) alone at one size: the record kept in scale.json (a new one replaces
    an older one of the same size), then RESULTS.md again from results.json and scale.json."""
    etl = os.path.abspath(args.etl)
    check_tools(etl)
    rows, rounds = args.rows, args.rounds
    if rows < 1 or rounds < 1:
        raise UsageError("rows and rounds must be at least 1")
    output, work = os.path.abspath(args.output), os.path.abspath(args.work)
    os.makedirs(output, exist_ok=True)
    os.makedirs(work, exist_ok=True)
    log(f"etl scale run: {rows} books, (a) and (c), {rounds} round(s), work folder {work} "
        f"({shutil.disk_usage(work).free / 2**30:.0f} GiB free)")
    record = {"rows": rows, "command": settings.invocation, "date": utc_now(), "rounds": rounds,
              "machine": machine_info(), "etl": etl_info(etl), "notes": list(args.note or [])}
    size = bench_size(rows, rounds, etl, work, bench_tools(etl, settings.closure_command, SCALE_TOOLS))
    if not args.keep:
        shutil.rmtree(os.path.join(work, f"rows-{rows}"), ignore_errors=True)
    # Only what ran, without the schema (the same as etl's, or the run says WRONG SCHEMA).
    size["tools"] = {tool: entry for tool, entry in size["tools"].items() if entry["kind"] == "run"}
    for key in ("tasks", "reference_schema"):
        size.pop(key, None)
    record["ratio_to_a"] = size["tools"].get("etl", {}).get("ratio_to_a")
    record["size"] = size
    scale_path = keep_scale_record(output, record)
    results = read_results(output)
    if results:
        _, md_path, png_path = report(results, output, not args.no_plot)
        log(f"wrote {scale_path}, {md_path}" + (f", {png_path}" if png_path else ""))
    else:
        log(f"wrote {scale_path}; no results.json in {output}, so no RESULTS.md "
            f"(`make bench`, or `make bench-report` once there is one)")
    print_summary({"sizes": [size]})
    return exit_status({"sizes": [size]})


def command_report(args):
    """RESULTS.md and results.png again from results.json (and scale.json)."""
    folder = os.path.abspath(args.output)
    path = os.path.join(folder, "results.json")
    results = read_results(folder)
    if results is None:
        raise UsageError(f"{path}: no such file; run `make bench` first")
    if args.note:
        results.setdefault("notes", []).extend(args.note)
        write_json(path, results)
    json_path, md_path, png_path = report(results, folder, not args.no_plot)
    log(f"wrote {md_path}" + (f", {png_path}" if png_path else ""))
    print_summary(results)
    return 1 if failures(results) else 0


def command_line():
    """run.py's parser: the commands run, smoke, report, scale and batches."""
    parser = argparse.ArgumentParser(description="Benchmark harness of etl (issue 6).")
    sub = parser.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="measure every tool at every size")
    run.add_argument("--etl", default=os.path.join(ROOT, ".build", "release", "etl"))
    run.add_argument("--sizes", type=int, nargs="+", default=[100_000, 1_000_000], metavar="N")
    run.add_argument("--rounds", type=int, default=3)
    run.add_argument("--work", default=os.path.join(ROOT, "out", "bench"),
                     help="folder for the stores (default out/bench)")
    run.add_argument("--output", default=BENCHMARKS, help="folder for RESULTS.md, results.json, results.png")
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
    rep.add_argument("--output", default=BENCHMARKS)
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
    scale.add_argument("--output", default=BENCHMARKS,
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
    return parser


def main():
    """Runs the command of sys.argv; its exit status (2 on bad usage)."""
    args = command_line().parse_args()
    settings = Settings.from_environment()
    try:
        if args.command == "batches":
            return command_batches(args, settings)
        if args.command == "report":
            return command_report(args)
        if args.command == "scale":
            return command_scale(args, settings)
        return command_run(args, settings, smoke=args.command == "smoke")
    except UsageError as error:
        print(f"run.py: {error}", file=sys.stderr, flush=True)
        return 2
