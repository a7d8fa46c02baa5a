import XCTest
import Foundation
import ETLTestSupport

/// Every number a user hands `etl` — flags and the shard variables of the environment —
/// at the edges of what it can be: NaN, infinities, negatives, 2⁶³−1, −2⁶³. Each one is
/// refused with exit code 2 and a message naming it, before any work: never a trap.
final class NumericOptionTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-numbers") }
    override func tearDown() { temporary = nil }

    var pipeline: String { KillResumeTests.pipeline }

    /// Runs etl with `environment` added to a copy of this process's, without shard variables.
    func etl(_ arguments: [String], environment: [String: String] = [:]) throws -> (status: Int32, stderr: String) {
        var env = ProcessInfo.processInfo.environment
        for name in ["JOB_COMPLETION_INDEX", "ETL_SHARD_COUNT"] + env.keys.filter({ $0.hasPrefix("SLURM_") }) { env[name] = nil }
        let run = try ToolProcess.run(arguments, in: folder, environment: env.merging(environment) { $1 })
        return (run.status, run.stderr)
    }

    func assertRefused(_ arguments: [String], environment: [String: String] = [:], naming name: String,
                       file: StaticString = #filePath, line: UInt = #line) throws {
        let result = try etl(arguments, environment: environment)
        XCTAssertEqual(result.status, 2, "\(arguments) \(environment): \(result.stderr)", file: file, line: line)
        XCTAssertTrue(result.stderr.contains(name), "\(arguments) \(environment): the message does not name \(name):\n\(result.stderr)",
                      file: file, line: line)
    }

    static let extremes = ["nan", "inf", "-inf", "-1", "0", "3000000", "1e300", "9223372036854775807", "-9223372036854775808"]

    func testRunRefusesEveryOutOfRangeNumber() throws {
        let run = ["run", pipeline, "--source", folder.appendingPathComponent("none.sqlite").path]
        for value in Self.extremes where value != "0" {
            try assertRefused(run + ["--lock-timeout=\(value)"], naming: "--lock-timeout")
        }
        for value in ["0", "-1", "1000001", "9223372036854775807", "-9223372036854775808"] {
            try assertRefused(run + ["--chunk-size=\(value)"], naming: "--chunk-size")
        }
        for value in ["0", "-1", "257", "9223372036854775807"] {
            try assertRefused(run + ["--workers=\(value)"], naming: "--workers")
        }
        for value in ["nan", "1.5", "99999999999999999999"] {
            try assertRefused(run + ["--chunk-size=\(value)"], naming: "chunk-size")
        }
    }

    func testBatchRefusesEveryOutOfRangeNumber() throws {
        let batch = ["batch", pipeline, "--stores", folder.path, "--out", folder.appendingPathComponent("out").path]
        for value in ["0", "-1", "1025", "9223372036854775807"] {
            try assertRefused(batch + ["--jobs=\(value)"], naming: "--jobs")
        }
        for value in ["0", "257", "-9223372036854775808"] {
            try assertRefused(batch + ["--workers=\(value)"], naming: "--workers")
        }
        for value in ["0", "1000001", "9223372036854775807"] {
            try assertRefused(batch + ["--chunk-size=\(value)"], naming: "--chunk-size")
        }
        for value in Self.extremes.filter({ $0 != "3000000" }) + ["40000000"] {
            try assertRefused(batch + ["--store-timeout=\(value)"], naming: "--store-timeout")
        }
        for value in ["0", "-1", "10000001", "9223372036854775807"] {
            try assertRefused(batch + ["--shard", "auto", "--shard-count=\(value)"], naming: "--shard-count")
        }
        for value in ["0/9223372036854775807", "9223372036854775807/9223372036854775807", "-9223372036854775808/4", "1/0"] {
            try assertRefused(batch + ["--shard", value], naming: "shard")
        }
    }

    func testShardVariablesAtTheirExtremesAreRefused() throws {
        let batch = ["batch", pipeline, "--stores", folder.path, "--out", folder.appendingPathComponent("out").path, "--shard", "auto"]
        let min = "-9223372036854775808", max = "9223372036854775807"
        try assertRefused(batch, environment: ["SLURM_ARRAY_TASK_ID": min, "SLURM_ARRAY_TASK_COUNT": "4"], naming: "SLURM_ARRAY_TASK_ID")
        try assertRefused(batch, environment: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": max], naming: "SLURM_ARRAY_TASK_COUNT")
        try assertRefused(batch, environment: ["SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "4",
                                               "SLURM_ARRAY_TASK_MIN": min, "SLURM_ARRAY_TASK_MAX": max], naming: "SLURM_ARRAY_TASK_MIN")
        try assertRefused(batch, environment: ["SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "4",
                                               "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": max], naming: "SLURM_ARRAY_TASK_MAX")
        try assertRefused(batch, environment: ["JOB_COMPLETION_INDEX": min, "ETL_SHARD_COUNT": "4"], naming: "JOB_COMPLETION_INDEX")
        try assertRefused(batch, environment: ["JOB_COMPLETION_INDEX": "0", "ETL_SHARD_COUNT": max], naming: "ETL_SHARD_COUNT")
        try assertRefused(batch, environment: ["JOB_COMPLETION_INDEX": "0", "ETL_SHARD_COUNT": "nan"], naming: "ETL_SHARD_COUNT")
    }

    func testSampleRefusesEveryOutOfRangeNumber() throws {
        for value in ["-1", "100000001", "9223372036854775807", "-9223372036854775808"] {
            try assertRefused(["sample", "books", "--rows=\(value)", "--out", folder.appendingPathComponent("s.sqlite").path], naming: "--rows")
        }
        for value in ["-1", "18446744073709551616", "nan"] {
            try assertRefused(["sample", "books", "--seed=\(value)", "--out", folder.appendingPathComponent("s.sqlite").path], naming: "seed")
        }
    }
}
