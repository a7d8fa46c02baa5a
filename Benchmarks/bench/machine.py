"""The machine and the etl binary a run measured, as results.json keeps them."""

import os
import platform
import sqlite3
import subprocess

from .settings import ROOT


def capture(command):
    """Standard output of a command, stripped; None if it cannot run."""
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.SubprocessError):
        return None
    text = (done.stdout or done.stderr).strip()
    return text if done.returncode == 0 and text else None


def machine_info():
    info = {"nproc": os.cpu_count(), "platform": platform.platform()}
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    info["cpu"] = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemTotal:"):
                    info["memory_gib"] = round(int(line.split()[1]) / 2**20, 1)
                    break
    except OSError:
        pass
    nproc = capture(["nproc"])
    if nproc:
        info["nproc"] = int(nproc)
    info["sqlite_cli"] = capture(["sqlite3", "--version"])
    info["sqlite_python"] = sqlite3.sqlite_version
    info["python"] = platform.python_version()
    swift = capture(["swift", "--version"])
    info["swift"] = swift.splitlines()[0] if swift else None
    return info


def etl_info(etl):
    info = {"binary": os.path.relpath(os.path.abspath(etl), ROOT), "version": capture([etl, "--version"])}
    commit = capture(["git", "-C", ROOT, "rev-parse", "HEAD"])
    status = capture(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"])
    info["commit"] = commit
    info["modified_files"] = [line.split(None, 1)[1] for line in (status or "").splitlines()
                              if len(line.split(None, 1)) == 2]
    return info
