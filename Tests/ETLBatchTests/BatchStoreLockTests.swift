import Foundation
import XCTest
import ETL
import ETLExpression
import ETLTestSupport
import ETLBatch

/// Given a store of an archive whose batch lock another batch holds, when a batch migrates
/// the archive in place, then that store is left as it is and reported "taken by another
/// batch" (skipped, not failed, and not recorded, so a later run looks at it again).
final class BatchStoreLockTests: XCTestCase {
    func testAStoreTakenByAnotherBatchIsLeftToIt() throws {
        let folder = try TemporaryFolder()
        let archive = folder.path("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        for name in ["a", "b"] { try BooksSample.write(rows: 200, seed: 1, to: archive + "/\(name).sqlite") }
        let taken = archive + "/a.sqlite"
        let before = try bytes(taken)
        let held = try XCTUnwrap(try RunLock.take(destination: taken, path: taken + ".etl-batch-lock"))
        defer { held.release() }
        XCTAssertNil(try RunLock.take(destination: taken, path: taken + ".etl-batch-lock"), "a second taker is refused")

        let manifest = folder.path("manifest.jsonl.zst")
        let stores = try BatchStoreList.find(archive, currentDirectory: folder.url.path, excluding: []).stores
        let options = BatchOptions(pipeline: repositoryPath("pipelines/books.json"), stores: stores, output: .inPlace(backupDirectory: nil),
                                   manifest: manifest, jobs: 1)
        let report = try Batch(options: options).run()
        let a = try XCTUnwrap(report.stores.first { $0.path == "a.sqlite" })
        XCTAssertEqual(a.status, .skipped)
        XCTAssertEqual(a.notes, ["taken by another batch (process \(getpid())), which migrates it in place; left to that batch"])
        XCTAssertEqual(report.stores.first { $0.path == "b.sqlite" }?.status, .done)
        XCTAssertEqual(try bytes(taken), before, "the taken store was touched")
        XCTAssertFalse(try BatchManifest.read(path: manifest).entries.contains { $0.path == "a.sqlite" }, "recorded as if this batch had handled it")
    }

    /// A plain pipeline names its versions instead of detecting them: a store already
    /// upgraded in place (by another batch, or before a `--retry-failed`) is found at the
    /// target version by its schema, and skipped, not migrated again into a failure.
    func testAStoreUpgradedInPlaceIsUpToDateForTheNextBatch() throws {
        let folder = try TemporaryFolder()
        let archive = folder.path("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        try BooksSample.write(rows: 200, seed: 1, to: archive + "/a.sqlite")
        let stores = try BatchStoreList.find(archive, currentDirectory: folder.url.path, excluding: []).stores
        for (run, expected) in [(1, BatchStatus.done), (2, .skipped)] {
            let options = BatchOptions(pipeline: repositoryPath("pipelines/books.json"), stores: stores, output: .inPlace(backupDirectory: nil),
                                       manifest: folder.path("manifest-\(run).jsonl.zst"), jobs: 1)
            let entry = try XCTUnwrap(try Batch(options: options).run().stores.first)
            XCTAssertEqual(entry.status, expected, "batch \(run): \(entry.error ?? "")")
            if run == 2 { XCTAssertEqual(entry.notes, ["up to date: already at books-v3; left as it is"]) }
        }
    }
}
