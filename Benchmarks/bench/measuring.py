"""Measuring one process: its wall time, its peak resident memory (`/usr/bin/time -v`),
the disk space it needs beside the source, and etl's time per stage from its log."""

import os
import re
import shlex
import shutil
import subprocess
import threading
import time

from .settings import ROOT

TIME = "/usr/bin/time"
# Disk space beside the source: how often run_once adds up the work folder's files.
DISK_INTERVAL = 0.1  # s


def remove_destination(path):
    """Removes a destination and every file beside it that starts with its name
    (-journal, -wal, .etl-tmp, .etl-checkpoint, .bak, ...), so that no run resumes or
    reuses anything of an earlier one."""
    folder, name = os.path.split(path)
    if not os.path.isdir(folder):
        return
    for entry in os.listdir(folder):
        if entry == name or entry.startswith(name + ".") or entry.startswith(name + "-"):
            full = os.path.join(folder, entry)
            if os.path.isdir(full) and not os.path.islink(full):
                shutil.rmtree(full)
            else:
                os.remove(full)


def leftovers(path):
    """Files beside a destination that start with its name, after a run."""
    folder, name = os.path.split(path)
    return sorted(e for e in os.listdir(folder)
                  if e != name and (e.startswith(name + ".") or e.startswith(name + "-")))


STAGE_LINE = re.compile(r"step \d+/\d+ (\w+) (.*?): .* in ([0-9.]+) s\s*$")


def etl_stages(log_text):
    """Per-stage seconds from `etl run --progress lines`, e.g.
    "step 1/1 create Books (v1 to v2): 2000 rows in 0.01 s" -> ["create Books", 0.01]."""
    stages = []
    for line in log_text.splitlines():
        match = STAGE_LINE.search(line)
        if match:
            what = match.group(2)
            what = re.sub(r"\s*\([^)]*\)$", "", what)  # drop "(v1 to v2)"
            name = match.group(1) + (" " + what if what else "")
            stages.append([name, float(match.group(3))])
    return stages


def max_rss_kib(time_output):
    match = re.search(r"Maximum resident set size \(kbytes\):\s*(\d+)", time_output)
    return int(match.group(1)) if match else None


def folder_bytes(folder, skip=()):
    """Apparent size (st_size) of every file in a folder and its subfolders, the names in
    `skip` (of the folder itself) left out. A file removed while it is looked at counts
    as absent."""
    total = 0
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if entry.name in skip:
                    continue
                try:
                    if entry.is_dir(follow_symlinks=False):
                        total += folder_bytes(entry.path)
                    else:
                        total += entry.stat(follow_symlinks=False).st_size
                except FileNotFoundError:
                    pass
    except FileNotFoundError:
        pass
    return total


class DiskPeak:
    """The peak of folder_bytes(folder, skip) while the `with` block runs: a thread adds it
    up every DISK_INTERVAL seconds (one os.scandir of a folder of a few dozen files, well
    under a millisecond), once more at the end. A file that lives shorter than the interval
    can be missed: the peak is a lower bound, to within what a run writes in 0.1 s."""

    def __init__(self, folder, skip):
        self.folder, self.skip, self.peak = folder, set(skip), 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self.sample_until_stopped, daemon=True)

    def sample(self):
        self.peak = max(self.peak, folder_bytes(self.folder, self.skip))

    def sample_until_stopped(self):
        while not self.stop.wait(DISK_INTERVAL):
            self.sample()

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *_):
        self.stop.set()
        self.thread.join()
        self.sample()
        return False


def run_once(command, stdin_path, destination, log_path, stages=False):
    """Runs `command` once (`stdin_path` on its standard input, when given) into a fresh
    `destination`, its output to `log_path`: seconds, peak memory, peak disk, exit status,
    the command as shown, with `stages` etl's seconds per stage, and the log's end when it
    failed."""
    remove_destination(destination)
    # Every run starts with the writes of the runs before it on disk: otherwise the
    # kernel flushes them during this one, and whoever comes next pays for them.
    os.sync()
    time_path = log_path + ".time"
    wrapped = [TIME, "-v", "-o", time_path] + command
    # Disk space beside the source: every file of the destination's folder that the run
    # makes (destination, journal or WAL, checkpoint, etl's work files); the files there
    # before it (the source stores, earlier logs) and its own log are not counted.
    folder = os.path.dirname(destination)
    skip = set(os.listdir(folder)) | {os.path.basename(log_path), os.path.basename(time_path)}
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        with open(log_path, "wb") as output, DiskPeak(folder, skip) as disk:
            started = time.perf_counter()
            done = subprocess.run(wrapped, stdin=stdin, stdout=output, stderr=subprocess.STDOUT,
                                  cwd=ROOT)
            seconds = time.perf_counter() - started
    finally:
        if stdin_path:
            stdin.close()
    with open(time_path, errors="replace") as handle:
        time_text = handle.read()
    with open(log_path, errors="replace") as handle:
        log_text = handle.read()
    shown = shlex.join(command) + (f" < {shlex.quote(stdin_path)}" if stdin_path else "")
    run = {"seconds": round(seconds, 4), "max_rss_kib": max_rss_kib(time_text),
           "peak_disk_bytes": disk.peak, "exit": done.returncode, "command": shown.replace(ROOT + os.sep, "")}
    if stages:
        run["stages"] = etl_stages(log_text)
    if done.returncode != 0:
        run["error"] = log_text[-2000:]
    return run
