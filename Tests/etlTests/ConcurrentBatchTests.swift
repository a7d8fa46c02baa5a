import XCTest
import Foundation
import ETL
import ETLExpression
import ETLBatch
import ETLTestSupport

/// Two `etl batch --in-place` started together on one archive: each store is taken, under
/// its lock, by one of them and upgraded once; the other leaves it to that batch and says
/// so (or later finds it up to date) — never a failure. Both exit 0, and a rerun with
/// `--retry-failed` finds every store at the target version.
final class ConcurrentBatchTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws {
        temporary = try TemporaryFolder(prefix: "etl-two-batches")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("archive"), withIntermediateDirectories: true)
    }

    override func tearDown() { temporary = nil }

    func path(_ relative: String) -> String { folder.appendingPathComponent(relative).path }

    static let stores = (1...6).map { "s\($0).sqlite" }

    /// Both batches share one manifest, in the test's folder (by default it goes beside the pipeline).
    static func arguments(_ folder: URL, _ extra: [String]) -> [String] {
        ["batch", KillResumeTests.pipeline, "--stores", "archive", "--in-place", "--jobs", "2", "--progress", "none",
         "--manifest", folder.appendingPathComponent("manifest.jsonl.zst").path] + extra
    }

    func batch(_ extra: [String]) throws -> BatchCommandTests.Outcome {
        try BatchCommandTests.etl(Self.arguments(folder, extra), in: folder)
    }

    func testTwoInPlaceBatchesUpgradeEveryStoreOnce() throws {
        for (index, name) in Self.stores.enumerated() {
            try BooksSample.write(rows: 1500, seed: UInt64(index + 1), to: path("archive/" + name))
        }
        let originals = try Dictionary(uniqueKeysWithValues: Self.stores.map { ($0, try Data(contentsOf: URL(fileURLWithPath: path("archive/" + $0)))) })
        let outcomes = Outcomes()
        let folder = self.folder!
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            outcomes.set(index, try? BatchCommandTests.etl(Self.arguments(folder, ["--report", "report-\(index).json"]), in: folder))
        }
        for (index, outcome) in outcomes.all.enumerated() {
            let outcome = try XCTUnwrap(outcome)
            XCTAssertEqual(outcome.status, 0, "batch \(index): \(outcome.stdout)\n\(outcome.stderr)")
        }
        let reports = try (0..<2).map { try BatchReport.read(path: path("report-\($0).json")) }
        for name in Self.stores {
            let entries = reports.compactMap { $0.stores.first { $0.path == name } }
            XCTAssertEqual(entries.filter { $0.status == .done }.count, 1, "\(name) upgraded by exactly one batch: \(entries)")
            for entry in entries where entry.status != .done {
                XCTAssertEqual(entry.status, .skipped, "\(name): \(entry.error ?? "")")
                XCTAssertTrue(entry.notes.contains { $0.hasPrefix("taken by another batch") || $0.hasPrefix("up to date") }, "\(name): \(entry.notes)")
            }
            // Upgraded once: the backup is the original, byte for byte.
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path("archive/" + name + ".bak"))), originals[name], name)
            XCTAssertEqual(try Database(path: path("archive/" + name), mode: .readOnly).scalarInt("SELECT count(*) FROM sqlite_master WHERE name = 'File'"), 1)
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: path("archive")).filter { $0.contains(".etl-") }
        XCTAssertEqual(left, [], "work or lock files left in the archive")

        let retry = try batch(["--retry-failed", "--report", "report-retry.json"])
        XCTAssertEqual(retry.status, 0, retry.stdout + retry.stderr)
        let again = try BatchReport.read(path: path("report-retry.json"))
        XCTAssertEqual(again.count(.failed), 0)
        XCTAssertEqual(again.count(.done) + again.count(.skipped), Self.stores.count)
    }
}

/// The two batches' outcomes, set from their threads.
final class Outcomes: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [BatchCommandTests.Outcome?] = [nil, nil]
    func set(_ index: Int, _ outcome: BatchCommandTests.Outcome?) { lock.lock(); values[index] = outcome; lock.unlock() }
    var all: [BatchCommandTests.Outcome?] { lock.lock(); defer { lock.unlock() }; return values }
}
