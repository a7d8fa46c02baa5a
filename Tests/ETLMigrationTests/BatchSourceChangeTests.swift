import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import ETLBatch

/// Given an archive of three books stores migrated by `etl batch --out`, when the batch
/// runs again, then nothing is migrated again; when one source was replaced in between
/// (last night's result now stale), then exactly that store is migrated again, its new
/// result replacing the old one, and the others are served from the manifest.
final class BatchSourceChangeTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func testARerunAfterOneSourceChangedMigratesExactlyThatStore() throws {
        let archive = folder.path("archive")
        try FileManager.default.createDirectory(atPath: archive, withIntermediateDirectories: true)
        for seed in 1...3 { try BooksSample.write(rows: 20, seed: UInt64(seed), to: archive + "/\(seed).sqlite") }
        let stores = try BatchStoreList.find(archive, currentDirectory: folder.url.path, excluding: []).stores
        func batch() throws -> BatchReport {
            try Batch(options: BatchOptions(pipeline: repositoryPath("pipelines/books.json"), stores: stores,
                                            output: .directory(folder.path("out")), manifest: folder.path("batch.jsonl.zst"), jobs: 1)).run()
        }
        let first = try batch()
        XCTAssertEqual(first.stores.map(\.status), [.done, .done, .done])
        XCTAssertTrue(first.stores.allSatisfy { $0.source != nil }, "each source's identity is in the manifest")
        let outputs = first.stores.map { $0.output! }
        let before = try outputs.map { try bytes($0) }

        let again = try batch()
        XCTAssertEqual(again.stores.map(\.time), first.stores.map(\.time), "served from the manifest: nothing migrated again")
        XCTAssertEqual(try outputs.map { try bytes($0) }, before)

        // Store 2 replaced by another one (more books): its old result is stale.
        try FileManager.default.removeItem(atPath: archive + "/2.sqlite")
        try BooksSample.write(rows: 35, seed: 9, to: archive + "/2.sqlite")
        let rerun = try batch()
        XCTAssertEqual(rerun.stores.map(\.status), [.done, .done, .done], "\(rerun.stores.map { $0.error ?? "" })")
        let migrated = zip(rerun.stores, first.stores).filter { $0.time != $1.time }.map { $0.0.path }
        XCTAssertEqual(migrated, ["2.sqlite"], "exactly the changed store")
        XCTAssertTrue(rerun.stores[1].notes.contains { $0.hasPrefix("migrated again: the source changed since it was migrated (") }, "\(rerun.stores[1].notes)")
        XCTAssertEqual(try bytes(outputs[0]), before[0])
        XCTAssertEqual(try bytes(outputs[2]), before[2])
        XCTAssertNotEqual(try bytes(outputs[1]), before[1], "the new result replaced the old one")
        let reference = folder.path("reference.sqlite")
        try migrateBooks(source: archive + "/2.sqlite", destination: reference)
        try assertSameStore(outputs[1], reference)
    }
}
