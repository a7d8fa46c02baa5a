"""The tools measured at every size, (a)…(i): their order and labels, the task each does,
and the command line that runs each once."""

import os
import shlex
import sys

from .console import UsageError
from .content import read_only_uri
from .settings import BENCHMARKS, CLOSURE_ENV, ROOT

PIPELINE = os.path.join(BENCHMARKS, "pipelines", "books-v1-v2.json")
CLOSURE_PIPELINE = os.path.join(BENCHMARKS, "pipelines", "books-v1-v2-closure.json")
FUNCTIONS_PIPELINE = os.path.join(BENCHMARKS, "pipelines", "books-v1-v2-functions.json")
# (d): built by `swift build -c release` (Package.swift target etl-bench-closure) into
# the same folder as etl.
CLOSURE_PROGRAM = "etl-bench-closure"
SQL_SCRIPT = os.path.join(BENCHMARKS, "sql", "books-v1-v2.sql")
V3_PIPELINE = os.path.join(ROOT, "pipelines", "books.json")
V3_SQL_SCRIPT = os.path.join(BENCHMARKS, "sql", "books-v1-v3.sql")
CONVERT_PIPELINE = os.path.join(BENCHMARKS, "pipelines", "notes-convert.json")
CONVERT_SQL_SCRIPT = os.path.join(BENCHMARKS, "sql", "notes-convert.sql")
PY_SCRIPT = os.path.join(BENCHMARKS, "python", "migrate_books_v1_v2.py")

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


def closure_tool(tool, etl, closure_command):
    """Completes the (d) entry of TOOLS: the command it runs (`closure_command`, the
    BENCH_CLOSURE_CMD template, when given), or why it is missing."""
    tool = dict(tool)
    template = closure_command if tool["id"] == "etl-closure" else None
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


def bench_tools(etl, closure_command, only=None):
    """TOOLS completed for this etl binary; with `only` (tool ids), the others not run."""
    tools = [closure_tool(t, etl, closure_command) if t["id"] in ("etl-closure", "etl-functions") else dict(t)
             for t in TOOLS]
    if only:
        known = [t["id"] for t in TOOLS]
        unknown = [name for name in only if name not in known]
        if unknown:
            raise UsageError(f"--tools: unknown {', '.join(unknown)}; the tools are {', '.join(known)}")
        for tool in tools:
            if tool["id"] not in only and tool["kind"] == "run":
                tool["kind"], tool["status"] = "skipped", "not run (--tools)"
    return tools


def sql_literal(text):
    return "'" + text.replace("'", "''") + "'"


def tool_command(tool, etl, source, destination):
    """(command, the file to give it on standard input or None) that runs `tool` once."""
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
