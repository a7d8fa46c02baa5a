#!/usr/bin/env python3
"""The module order of Sources, then the layers of Sources/ETLEngine, checked. Run by
`make test-fast`.

Modules, bottom up (docs/architecture.md): ETLStore, ETLDocument → ETLModel → ETLExpression →
ETLCoreData → ETLPipeline → ETLEngine → ETL → ETLBatch → ETLCommandLine → etl. A module's
dependencies in Package.swift and its files' imports name only modules below it.

In ETLEngine, a folder uses only types of folders in layers below its own (or of its own folder).

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
MODULES = {"ETLStore": 0, "ETLDocument": 0, "ETLModel": 1, "ETLExpression": 2, "ETLCoreData": 3, "ETLPipeline": 4,
           "ETLEngine": 5, "ETL": 6, "ETLBatch": 7, "ETLCommandLine": 8, "etl": 9}
sources = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources")
package = open(os.path.join(sources, "..", "Package.swift"), encoding="utf-8").read()
against_order = []
for module, rank in MODULES.items():
    target = re.search(r'\.(?:executableTarget|target)\(name: "' + module + r'"(?:, dependencies: \[(.*?)\])?', package, re.S)
    if target is None:
        sys.exit(f"engine-layers: no target {module} in Package.swift: update MODULES in {__file__}")
    for dependency in re.findall(r'"(\w+)"', target.group(1) or ""):
        if MODULES.get(dependency, -1) >= rank:
            against_order.append(f"Package.swift: {module} depends on {dependency}")
    for folder, _, names in os.walk(os.path.join(sources, module)):
        for name in sorted(n for n in names if n.endswith(".swift")):
            text = open(os.path.join(folder, name), encoding="utf-8").read()
            for imported in re.findall(r"^\s*(?:@_exported\s+|@testable\s+)?import\s+(\w+)", text, re.M):
                if MODULES.get(imported, -1) >= rank and imported != module:
                    against_order.append(f"{os.path.relpath(os.path.join(folder, name), sources)} imports {imported}")
print("modules: " + " → ".join(sorted(MODULES, key=lambda m: (MODULES[m], m))))
if against_order:
    print("\n".join(["against the module order:"] + against_order))
    sys.exit(1)

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
