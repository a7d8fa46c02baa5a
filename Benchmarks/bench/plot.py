"""results.png: time and peak memory against size (matplotlib, when it is importable)."""

import os

from .formatting import size_label
from .tools import TOOLS


def write_plot(results, path):
    """Time and peak memory against size, two panels, log x. Returns a note for
    RESULTS.md."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError:
        return ("No plot: matplotlib is not installed (`pip install matplotlib`, then "
                "`make bench-report`).")
    sizes = sorted(results["sizes"], key=lambda s: s["rows"])
    figure, (left, right) = plt.subplots(1, 2, figsize=(11, 4.5))
    markers = {"sqlite": "o", "python": "s", "etl": "^", "etl-nocheckpoint": "v", "etl-closure": "D", "etl-functions": "P"}
    for tool in [t for t in TOOLS if t.get("task", "v1-v2") == "v1-v2"]:
        points = [(s["rows"], s["tools"].get(tool["id"], {})) for s in sizes]
        points = [(n, e) for n, e in points if e.get("median_seconds") is not None]
        if not points:
            continue
        xs = [n for n, _ in points]
        label = tool["label"] + ("" if all(e.get("status") == "ok" for _, e in points) else " (WRONG)")
        left.plot(xs, [e["median_seconds"] for _, e in points], marker=markers.get(tool["id"], "x"),
                  label=label)
        right.plot(xs, [e.get("peak_mib") for _, e in points], marker=markers.get(tool["id"], "x"),
                   label=label)
    for axis, title, unit in ((left, "wall time (median)", "seconds"),
                              (right, "peak resident memory", "MiB")):
        axis.set_xscale("log")
        axis.set_xlabel("source books")
        axis.set_ylabel(unit)
        axis.set_title(title)
        axis.grid(True, which="both", alpha=0.3)
        axis.set_xticks([s["rows"] for s in sizes])
        axis.set_xticklabels([size_label(s["rows"]) for s in sizes])
        axis.minorticks_off()
    left.set_yscale("log")
    left.yaxis.set_major_locator(matplotlib.ticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    left.yaxis.set_major_formatter(matplotlib.ticker.FuncFormatter(lambda value, _: f"{value:g}"))
    left.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    absent_tools = [t for t in TOOLS if t.get("task", "v1-v2") == "v1-v2"
                    and not any(s["tools"].get(t["id"], {}).get("median_seconds") for s in sizes)]
    absent_ids = [t["label"].split(" ")[0] for t in absent_tools]
    absent = []
    for tool in absent_tools:
        entries = [s["tools"].get(tool["id"], {}) for s in sizes]
        status = next((e.get("status") for e in entries if e.get("status")), tool.get("status"))
        absent.append(f"{tool['label']}: {status or 'no runs'}")
    if absent:
        figure.text(0.5, 0.01, "; ".join(absent), ha="center", fontsize=8, color="dimgrey")
    right.axhline(100, color="grey", linestyle="--", linewidth=1, label="target: 100 MiB")
    right.set_ylim(bottom=0)
    right.legend(fontsize=8, loc="best")
    figure.suptitle(f"books v1 → v2, {results['machine'].get('nproc')} cores, "
                    f"{results['date'][:10]}")
    figure.tight_layout(rect=(0, 0.04, 1, 1))
    figure.savefig(path, dpi=110)
    plt.close(figure)
    return (f"![time and peak memory against size]({os.path.basename(path)})\n\n"
            "`results.png`: median wall time (log scale) and peak resident memory against the "
            "number of source books (log scale)."
            + (f" {' and '.join(absent_ids)} {'have' if len(absent_ids) > 1 else 'has'} no points."
               if absent_ids else ""))
