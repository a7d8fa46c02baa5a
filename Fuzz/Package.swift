// swift-tools-version:6.0
import PackageDescription

// libFuzzer targets for the pipeline decoder + planner and the expression compiler +
// evaluator (`make fuzz-pipelines`), and for the binary property list + keyed archive
// readers and mapping-model XML (`make fuzz-archives`), a source's `-wal` check (`make fuzz-wal`),
// and the model a store keeps (`make fuzz-keptmodels`). Built and run by scripts/fuzz-pipelines.sh:
//   swift build -c debug -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library
let package = Package(
    name: "etl-fuzz",
    platforms: [.macOS(.v13)],
    dependencies: [
        .package(name: "etl", path: ".."),
    ],
    targets: [
        .target(name: "FuzzSupport", dependencies: [.product(name: "ETL", package: "etl")]),
        .executableTarget(name: "PipelineFuzzer", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "ExpressionFuzzer", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "PropertyListFuzzer", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "MappingModelFuzzer", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "WALFuzzer", dependencies: ["FuzzSupport"]),
        .executableTarget(name: "KeptModelFuzzer", dependencies: ["FuzzSupport"]),
    ]
)
