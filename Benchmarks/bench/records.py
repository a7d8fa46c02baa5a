"""The files that keep the measurements: results.json (`run`), scale.json (`scale`, one
record per size) and batches.json (`batches`), read and written."""

import json
import os

RESULTS_FORMAT = 1
# The scale run (issue 18): (a) and (c) only, at 50M books, kept in scale.json beside
# results.json, one record per size.
SCALE_FILE = "scale.json"
SCALE_ROWS = 50_000_000
SCALE_TOOLS = ["sqlite", "etl"]


def write_json(path, data):
    with open(path, "w") as handle:
        json.dump(data, handle, indent=1)
        handle.write("\n")


def read_results(folder):
    """results.json of a folder, or None when there is none."""
    try:
        with open(os.path.join(folder, "results.json")) as handle:
            return json.load(handle)
    except FileNotFoundError:
        return None


def load_scale(folder):
    """The records of scale.json in a folder, by size; [] when there is none."""
    try:
        with open(os.path.join(folder, SCALE_FILE)) as handle:
            return sorted(json.load(handle), key=lambda record: record["rows"])
    except FileNotFoundError:
        return []


def keep_scale_record(folder, record):
    """Adds a scale run's record to the folder's scale.json, replacing an older one of the
    same size; returns the file's path."""
    path = os.path.join(folder, SCALE_FILE)
    write_json(path, sorted([r for r in load_scale(folder) if r["rows"] != record["rows"]] + [record],
                            key=lambda r: r["rows"]))
    return path
