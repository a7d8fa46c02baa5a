"""Where the benchmark's files are, and the one value a run depends on beyond its command
line: the environment, read once by the command line and passed down."""

import os
import shlex
import sys
from dataclasses import dataclass

BENCHMARKS = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(BENCHMARKS)

# BENCH_CLOSURE_CMD, when set, measures (d) with that command instead of the default
# `etl-bench-closure run books-v1-v2-closure.json …`: a shell-style command line with
# {source}, {destination} (and {etl}) placeholders.
CLOSURE_ENV = "BENCH_CLOSURE_CMD"


@dataclass(frozen=True)
class Settings:
    fixtures: str
    """Where (k) finds the fixtures' coredata-corpus: ETL_FIXTURES, default /work/shared/fixtures."""
    closure_command: str | None
    """BENCH_CLOSURE_CMD: the command measured as (d) instead of etl-bench-closure, or None."""
    invocation: str
    """The command to show for this run: BENCH_COMMAND (set by the Makefile) or argv."""

    @classmethod
    def from_environment(cls, environ=None, argv=None):
        environ = os.environ if environ is None else environ
        argv = sys.argv if argv is None else argv
        return cls(fixtures=environ.get("ETL_FIXTURES", "/work/shared/fixtures"),
                   closure_command=environ.get(CLOSURE_ENV) or None,
                   invocation=environ.get("BENCH_COMMAND")
                   or shlex.join(["python3", "Benchmarks/run.py"] + argv[1:]))
