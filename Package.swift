// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way: CSQLite/CZstd/CZlib → ETLStore, ETLDocument → ETLModel → ETLExpression → ETLCoreData → ETLPipeline
// → ETLEngine → ETL → ETLBatch → ETLCommandLine → etl. A module never imports one listed after it.
let package = Package(
    name: "etl",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ETL", targets: ["ETL"]),
        .library(name: "ETLBatch", targets: ["ETLBatch"]),
        .library(name: "ETLCommandLine", targets: ["ETLCommandLine"]),
        .executable(name: "etl", targets: ["etl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        // Raw deflate, for the model a Core Data store keeps in Z_MODELCACHE.
        .systemLibrary(name: "CZlib", path: "Sources/CZlib", pkgConfig: "zlib",
                       providers: [.apt(["zlib1g-dev"]), .brew(["zlib"])]),
        .target(name: "ETLStore", dependencies: ["CSQLite"]),
        // JSON documents with the line, column and path of every value, for errors that point.
        .target(name: "ETLDocument"),
        .target(name: "ETLModel", dependencies: ["ETLStore", "ETLDocument"]),
        // The expression language of mappings: lexer, parser, syntax trees, types, evaluation,
        // and the reading rule of stored values.
        .target(name: "ETLExpression", dependencies: ["ETLModel", "ETLStore"]),
        // What is Core Data's own: Xcode models and bundles, version hashes, the Z-table
        // layout, property lists and keyed archives, Xcode mapping models.
        .target(name: "ETLCoreData", dependencies: ["ETLModel", "ETLExpression", "ETLStore", "ETLDocument", "CZlib"]),
        .target(name: "ETLPipeline", dependencies: ["ETLModel", "ETLExpression", "ETLCoreData"]),
        .target(name: "ETLEngine", dependencies: ["ETLPipeline", "CZstd"]),
        .target(name: "ETL", dependencies: ["ETLEngine"]),
        // `etl batch`: many stores through one pipeline (scheduler, manifest, shards, report, metrics).
        .target(name: "ETLBatch", dependencies: ["ETL", .product(name: "Prometheus", package: "swift-prometheus")]),
        // The whole `etl` command line as a library: a program of the user's own runs
        // `ETLCommand.main(policies:)` and becomes `etl` with its policies.
        .target(name: "ETLCommandLine", dependencies: [
            "ETL", "ETLBatch", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "etl", dependencies: ["ETLCommandLine"]),
        // The policy example of the README: v2 Posts become v3 Posts with a Section each.
        .target(name: "PostSectionsPolicy", dependencies: ["ETL"], path: "Examples/PostSections/Policy"),
        .executableTarget(name: "post-sections", dependencies: ["PostSectionsPolicy", "ETLCommandLine"], path: "Examples/PostSections/Sources"),
        // The mapping-model example: CoreDataPlus's V2to3MakerPolicy ported, for V2toV3.xcmappingmodel.
        .target(name: "CarMakersPolicy", dependencies: ["ETL"], path: "Examples/CarMakers/Policy"),
        .executableTarget(name: "car-makers", dependencies: ["CarMakersPolicy", "ETLCommandLine"], path: "Examples/CarMakers/Sources"),
        // Benchmark (d) of Benchmarks/run.py: `etl` plus a policy doing the Books mapping's
        // attribute work in Swift (Benchmarks/pipelines/books-v1-v2-closure.json).
        .executableTarget(name: "etl-bench-closure", dependencies: ["ETL", "ETLCommandLine"], path: "Benchmarks/Closure"),
        // What every test target shares: the fixtures (copy, skip or fail), temporary folders,
        // the `etl` process, store dumps, seeds.
        .target(name: "ETLTestSupport", dependencies: ["ETLStore"], path: "Tests/ETLTestSupport"),
        // Unit level (`make test-fast`): one target per module, each test on its own parts,
        // the whole level in seconds.
        .testTarget(name: "ETLStoreTests", dependencies: ["ETLStore", "ETLTestSupport"]),
        .testTarget(name: "ETLDocumentTests", dependencies: ["ETLDocument"]),
        .testTarget(name: "ETLModelTests", dependencies: ["ETLModel", "ETLTestSupport"]),
        .testTarget(name: "ETLExpressionTests", dependencies: ["ETLExpression", "ETLTestSupport"]),
        .testTarget(name: "ETLCoreDataTests", dependencies: ["ETLCoreData", "ETLTestSupport"]),
        .testTarget(name: "ETLPipelineTests", dependencies: ["ETLPipeline", "ETLTestSupport"]),
        .testTarget(name: "ETLEngineTests", dependencies: ["ETLEngine", "ETL", "ETLTestSupport"]),
        .testTarget(name: "ETLBatchTests", dependencies: ["ETL", "ETLBatch", "ETLTestSupport"]),
        // The command line's parts: flags, tables, progress lines, error endings (no `etl` process).
        .testTarget(name: "ETLCommandLineTests", dependencies: ["ETLCommandLine", "ETL", "ETLBatch", "ETLTestSupport",
                                                                .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // End-to-end level (`make test` runs both): whole migrations in the process (every kind
        // of step, resume, damaged and hostile stores), and the `etl` executable itself
        // (command line, kills, batches).
        .testTarget(name: "ETLMigrationTests", dependencies: ["ETLEngine", "ETL", "ETLBatch", "PostSectionsPolicy", "CarMakersPolicy", "ETLTestSupport"]),
        .testTarget(name: "etlTests", dependencies: ["ETL", "ETLBatch", "ETLTestSupport"]),
    ]
)
