#!/usr/bin/env python3
"""The layers of Sources/ETLEngine, checked: a folder uses only types of folders in layers
below its own (or of its own folder). Run by `make test-fast`.

Layers, bottom up (docs/architecture.md, "Inside the engine"):
  0  Support, Policies   utilities; the policy API
  1  Core                what every stage shares: the step's context, options, counters,
                         checkpoint position, errors, progress, reasons, the executor contract
  2  Extract, WorkDatabase   reading the source; the step's work tables
  3  Rejects, Checkpoint     rejected rows; checkpoint files and rollback
  4  RowByRow            the row-by-row executor
  5  Pushdown, Validate  the executor inside SQLite (it hands policy mappings to RowByRow);
                         validation of whatever was built
  6  Run                 orchestration: the Engine, strategy, fusion, finalize

A use is a top-level type, function or constant of another folder named in a file (comments
left out); nested names are not tracked. Prints the graph; exits 1 on a use against the layers.
"""
import os, re, sys, collections

LAYERS = {"Support": 0, "Policies": 0, "Core": 1, "Extract": 2, "WorkDatabase": 2, "Rejects": 3, "Checkpoint": 3,
          "RowByRow": 4, "Pushdown": 5, "Validate": 5, "Run": 6}
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "ETLEngine")
top_level = re.compile(r"^(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|private|fileprivate|internal|final|nonisolated)\s+)*"
                       r"(?:struct|class|enum|protocol|typealias|actor|func|let|var)\s+(\w+)", re.M)
defined, texts = {}, {}
for folder in sorted(os.listdir(root)):
    if folder not in LAYERS:
        sys.exit(f"engine-layers: folder {folder} has no layer: add it to LAYERS in {__file__}")
    for name in sorted(os.listdir(os.path.join(root, folder))):
        text = open(os.path.join(root, folder, name), encoding="utf-8").read()
        texts[(folder, name)] = re.sub(r"//.*", "", text)
        for match in top_level.finditer(text):
            defined.setdefault(match.group(1), folder)
uses = collections.defaultdict(set)
wrong = []
for (folder, name), text in texts.items():
    for symbol, home in defined.items():
        if home != folder and re.search(r"\b" + re.escape(symbol) + r"\b", text):
            uses[folder].add(home)
            if LAYERS[home] >= LAYERS[folder]:
                wrong.append(f"{folder}/{name} uses {symbol} of {home} (layer {LAYERS[home]} ≥ {LAYERS[folder]})")
for folder in sorted(LAYERS, key=lambda f: (LAYERS[f], f)):
    print(f"{LAYERS[folder]} {folder:<13} → {', '.join(sorted(uses[folder], key=lambda f: (LAYERS[f], f))) or '—'}")
if wrong:
    print("\n".join(["", "against the layers:"] + wrong))
    sys.exit(1)
