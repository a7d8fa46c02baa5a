// swift-tools-version:6.0
import PackageDescription

// Dependencies point one way: CSQLite/CZstd → ETLStore → ETLModel → ETLPipeline
// → ETLEngine → ETL → etl. A module never imports one listed after it.
let package = Package(
    name: "etl",
    platforms: [.macOS(.v13)],
    products: [
        .library(name: "ETL", targets: ["ETL"]),
        .executable(name: "etl", targets: ["etl"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
    ],
    targets: [
        .systemLibrary(name: "CSQLite", path: "Sources/CSQLite", pkgConfig: "sqlite3",
                       providers: [.apt(["libsqlite3-dev"]), .brew(["sqlite"])]),
        .systemLibrary(name: "CZstd", path: "Sources/CZstd", pkgConfig: "libzstd",
                       providers: [.apt(["libzstd-dev"]), .brew(["zstd"])]),
        .target(name: "ETLStore", dependencies: ["CSQLite"]),
        .target(name: "ETLModel", dependencies: ["ETLStore"]),
        .target(name: "ETLPipeline", dependencies: ["ETLModel"]),
        .target(name: "ETLEngine", dependencies: ["ETLPipeline", "CZstd"]),
        .target(name: "ETL", dependencies: ["ETLEngine"]),
        .executableTarget(name: "etl", dependencies: [
            "ETL", .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .testTarget(name: "ETLStoreTests", dependencies: ["ETLStore"]),
        .testTarget(name: "ETLModelTests", dependencies: ["ETLModel"]),
        .testTarget(name: "ETLPipelineTests", dependencies: ["ETLPipeline"]),
        .testTarget(name: "ETLEngineTests", dependencies: ["ETLEngine", "ETL"]),
        .testTarget(name: "etlTests", dependencies: ["ETL"]),
    ]
)
