"""The end of a command: the figures printed, every failure named, the exit status."""

from .batches import COST_PARTS
from .console import log
from .formatting import size_label
from .tools import BASELINE, TASKS, task_of


def costs_text(cost):
    """"; ms per store: open 1.0, plan 2.0, …" for a batch's cost_ms_per_store, or ""."""
    return "; ms per store: " + ", ".join(f"{p} {cost[p]:.1f}" for p in COST_PARTS if p in cost) if cost else ""


def failures(results):
    """A line for each tool, source or batch that failed or was wrong."""
    bad = []
    for size in results["sizes"]:
        for entry in size["tools"].values():
            if entry["kind"] == "run" and entry.get("status") not in ("ok",):
                bad.append(f"{size_label(size['rows'])} {entry['label']}: {entry.get('status')}")
        if not size["source"].get("unchanged", True):
            bad.append(f"{size_label(size['rows'])}: the source store changed")
    batch = results.get("batch")
    if batch and batch.get("status") != "ok":
        bad.append(f"(j) etl batch of {batch['stores']} stores: {batch.get('status')}")
    cd_batch = results.get("coredata_batch")
    if cd_batch and cd_batch.get("runs") and cd_batch.get("status") != "ok":
        bad.append(f"(k) etl batch of {cd_batch['stores']} Core Data stores: {cd_batch.get('status')}")
    return bad


def exit_status(results):
    """1, each failure logged, when a tool failed or was wrong; else 0."""
    bad = failures(results)
    for line in bad:
        log(f"FAILED: {line}")
    if bad:
        return 1
    log("all tools produced the expected content and schema")
    return 0


def print_summary(results):
    """Each size's figures, tool by tool, and (j)'s, on the terminal."""
    for size in results["sizes"]:
        log(f"-- {size['rows']} books")
        for tool_id, entry in size["tools"].items():
            if entry.get("median_seconds") is None:
                log(f"   {entry['label']:<38} {entry.get('status')}")
            else:
                task = TASKS[task_of(tool_id)]
                floor = "(a)" if task["floor"] == BASELINE else size["tools"].get(task["floor"], {}).get("label", "?").split(" ")[0]
                ratio = entry.get("ratio_to_a") if task["floor"] == BASELINE else entry.get("ratio_to_floor")
                log(f"   {entry['label']:<38} {entry['median_seconds']:9.2f} s "
                    f"{entry.get('rows_per_second') or 0:>11,} rows/s "
                    f"{entry.get('peak_mib') or 0:8.1f} MiB  disk {entry.get('peak_disk_mib') or 0:8.1f} MiB  "
                    f"{ratio or 0:5.2f} × {floor}  {entry.get('status')}")
        if size.get("checkpoint_overhead") is not None:
            log(f"   checkpoint overhead: {size['checkpoint_overhead'] * 100:+.1f} %")
    batch = results.get("batch")
    if batch:
        rate = batch.get("stores_per_second")
        cost = batch.get("cost_ms_per_store") or {}
        log(f"-- (j) etl batch of {batch['stores']} stores: "
            + (f"{rate} stores/s" if rate else "no rate") + f", {batch.get('status')}"
            + costs_text(cost))
