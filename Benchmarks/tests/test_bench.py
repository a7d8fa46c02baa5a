"""The pure parts of the benchmark harness (Benchmarks/bench): the content check, a tool's
summary, the report's tables and targets, etl's stage lines. No etl binary, no timing.

    python3 -m unittest discover -s Benchmarks/tests
"""

import os
import sqlite3
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from bench.content import content_hash, expected_convert_hash  # noqa: E402
from bench.measuring import etl_stages, folder_bytes  # noqa: E402
from bench.report import result_table  # noqa: E402
from bench.settings import Settings  # noqa: E402
from bench.sizes import summarize_size  # noqa: E402
from bench.targets import targets  # noqa: E402
from bench.tools import bench_tools, tool_command  # noqa: E402


def write_store(path, create, rows):
    connection = sqlite3.connect(path)
    try:
        connection.execute(create)
        connection.executemany(f"INSERT INTO \"Note\" VALUES ({', '.join('?' * len(rows[0]))})", rows)
        connection.commit()
    finally:
        connection.close()


class ContentCheckTests(unittest.TestCase):
    """A destination's hash against the one expected from its source, computed apart."""

    NOTES = [(1, "  Buy milk\t", "2020-01-01", "yes"),
             (2, "Call", "2020-01-01T01:00:00+01:00", "OFF")]
    CONVERTED = [("Buy milk", 1577836800, 1), ("Call", 1577836800, 0)]

    def setUp(self):
        self.folder = tempfile.TemporaryDirectory()
        self.source = os.path.join(self.folder.name, "notes-v1.sqlite")
        write_store(self.source, 'CREATE TABLE "Note" ("id" INTEGER PRIMARY KEY, "title" VARCHAR, '
                    '"createdAt" VARCHAR, "done" VARCHAR)', self.NOTES)

    def tearDown(self):
        self.folder.cleanup()

    def destination(self, name, rows):
        path = os.path.join(self.folder.name, name)
        # Columns without a type: no affinity turns '1' or 1.0 into 1 before the check sees it.
        write_store(path, 'CREATE TABLE "Note" ("id" INTEGER PRIMARY KEY, "title", "createdAt", "done")',
                    [(40 + i,) + row for i, row in enumerate(rows)])
        return content_hash(path, "convert")

    def test_a_correct_conversion_matches_whatever_its_keys_and_order(self):
        expected, counts = expected_convert_hash(self.source)
        self.assertEqual(counts, {"Note": {"dumped": 2, "in_table": 2}})
        self.assertEqual(self.destination("a.sqlite", self.CONVERTED)[0], expected)
        self.assertEqual(self.destination("b.sqlite", self.CONVERTED[::-1])[0], expected)

    def test_a_value_of_another_type_or_a_missing_row_does_not_match(self):
        expected, _ = expected_convert_hash(self.source)
        as_text = [("Buy milk", "1577836800", 1), self.CONVERTED[1]]
        as_real = [("Buy milk", 1577836800.0, 1), self.CONVERTED[1]]
        self.assertNotEqual(self.destination("text.sqlite", as_text)[0], expected)
        self.assertNotEqual(self.destination("real.sqlite", as_real)[0], expected)
        self.assertNotEqual(self.destination("short.sqlite", self.CONVERTED[:1])[0], expected)


def run(seconds, exit=0, content_ok=True, hash_=None, rss=None):
    return {"seconds": seconds, "exit": exit, "content_ok": content_ok, "content_checked": content_ok is not None,
            "max_rss_kib": rss, "peak_disk_bytes": 2**20, "hash": hash_}


def size_of(tools, rows=1000):
    result = {"rows": rows, "tools": {}}
    for tool_id, runs in tools.items():
        result["tools"][tool_id] = {"label": tool_id, "kind": "run", "runs": runs}
    summarize_size(result)
    return result


class SummaryTests(unittest.TestCase):
    def test_median_rate_memory_and_ratio_to_a(self):
        size = size_of({"sqlite": [run(1.0), run(3.0, content_ok=None), run(2.0, content_ok=None)],
                        "etl": [run(2.0, rss=50 * 1024), run(5.0, content_ok=None, rss=80 * 1024),
                                run(4.0, content_ok=None)]})
        etl = size["tools"]["etl"]
        self.assertEqual((etl["status"], etl["median_seconds"], etl["rows_per_second"], etl["peak_mib"]),
                         ("ok", 4.0, 250, 80.0))
        self.assertEqual(etl["ratio_to_a"], 2.0)

    def test_a_wrong_result_or_a_failed_run_is_the_verdict(self):
        size = size_of({"sqlite": [run(1.0), run(1.0, exit=1)], "etl": [run(1.0, content_ok=False)],
                        "python": [run(1.0, content_ok=None)]})
        self.assertEqual(size["tools"]["sqlite"]["status"], "FAILED (exit 1)")
        self.assertEqual(size["tools"]["etl"]["status"], "WRONG RESULT")
        self.assertEqual(size["tools"]["python"]["status"], "NOT CHECKED")


class ReportTests(unittest.TestCase):
    def test_result_table_rows(self):
        ok = size_of({"sqlite": [run(12.5, hash_="0123456789abcdef", rss=2048)]})["tools"]["sqlite"]
        missing = {"label": "(d) closure", "kind": "missing", "status": "missing: no program", "runs": []}
        self.assertEqual(result_table([ok, missing], "(a)", "ratio_to_a"), [
            "| tool | median s | rows/s | peak MiB | disk MiB | × (a) | result |",
            "|---|---:|---:|---:|---:|---:|---|",
            "| sqlite | 12.50 | 80 | 2.0 | 1.0 | 1.00 × | ok (`0123456789ab`) |",
            "| (d) closure | — | — | — | — | — | missing: no program |",
            ""])

    def test_the_declarative_target_is_met_or_missed_by_its_ratio(self):
        def verdict(etl_seconds):
            size = size_of({"sqlite": [run(1.0)], "etl": [run(etl_seconds)]}, rows=100_000)
            line = next(t for t in targets({"sizes": [size]}) if t[0] == "declarative etl ≤ 1.15 × (a) time")
            return line[1:]
        self.assertEqual(verdict(1.1), ("100k: 1.10 ×", "**met**"))
        self.assertEqual(verdict(1.2), ("100k: 1.20 ×", "**missed**"))


class SettingsTests(unittest.TestCase):
    def test_the_environment_read_once(self):
        settings = Settings.from_environment({"ETL_FIXTURES": "/f", "BENCH_CLOSURE_CMD": "prog {source} {destination}"},
                                             ["run.py", "run", "--sizes", "1000"])
        self.assertEqual(settings, Settings(fixtures="/f", closure_command="prog {source} {destination}",
                                            invocation="python3 Benchmarks/run.py run --sizes 1000"))
        bare = Settings.from_environment({"BENCH_COMMAND": "make bench", "BENCH_CLOSURE_CMD": ""}, ["run.py"])
        self.assertEqual((bare.fixtures, bare.closure_command, bare.invocation),
                         ("/work/shared/fixtures", None, "make bench"))

    def test_the_closure_command_replaces_d_alone(self):
        tools = {t["id"]: t for t in bench_tools("/nowhere/etl", "prog --in {source} --out {destination}",
                                                 only=["etl-closure", "etl-functions"])}
        closure = tools["etl-closure"]
        self.assertEqual((closure["kind"], closure["program"]),
                         ("run", "BENCH_CLOSURE_CMD=prog --in {source} --out {destination}"))
        self.assertEqual(tool_command(closure, "/nowhere/etl", "/s/a b.sqlite", "/d/v2.sqlite"),
                         (["prog", "--in", "/s/a b.sqlite", "--out", "/d/v2.sqlite"], None))
        self.assertEqual(tools["etl-functions"]["kind"], "missing")  # no etl-bench-closure in /nowhere
        self.assertEqual(tools["sqlite"]["status"], "not run (--tools)")


class MeasuringTests(unittest.TestCase):
    def test_stage_lines_of_etl_run(self):
        log = ("opening\nstep 1/2 create Books (v1 to v2): 2000 rows in 0.01 s\n"
               "step 2/2 relate Book.users: 3 links in 1.50 s\n")
        self.assertEqual(etl_stages(log), [["create Books", 0.01], ["relate Book.users", 1.5]])

    def test_folder_bytes_leaves_out_the_files_named(self):
        with tempfile.TemporaryDirectory() as folder:
            os.makedirs(os.path.join(folder, "sub"))
            for name, size in (("source.sqlite", 1000), ("dest.sqlite", 300), ("sub/work", 20)):
                with open(os.path.join(folder, name), "wb") as handle:
                    handle.write(b"x" * size)
            self.assertEqual(folder_bytes(folder, {"source.sqlite"}), 320)


if __name__ == "__main__":
    unittest.main()
