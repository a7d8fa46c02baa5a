import Foundation
import XCTest
import ETL
import ETLExpression
import ETLTestSupport
import ETLBatch

/// A batch plans each kind of Core Data store once: stores of one version (same schema,
/// entity numbers, kept model, version hashes), with or without a `-wal`, share a plan;
/// each result is still its own store's, metadata and UUID included, equal to the result
/// of a run of that store alone.
final class BatchPlanSharingTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder(prefix: "etl-plan-sharing") }
    override func tearDown() { folder = nil }

    final class Counter: @unchecked Sendable {
        private let lock = NSLock()
        private var count = 0
        func add() { lock.withLock { count += 1 } }
        var value: Int { lock.withLock { count } }
    }

    func testThreeKindsOfCoreDataStoresArePlannedThreeTimes() throws {
        let archive = folder.url.appendingPathComponent("archive")
        let originals = folder.url.appendingPathComponent("originals")
        for v in 3...5 {
            for suffix in ["", "-wal"] {
                _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V\(v).sqlite\(suffix)", into: originals)
            }
            // Three stores of each version: two with their -wal, one with it folded in; each its own UUID.
            for copy in 0..<3 {
                let store = archive.appendingPathComponent("V\(v)/user-\(copy).sqlite").path
                try FileManager.default.createDirectory(atPath: (store as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
                try FileManager.default.copyItem(atPath: originals.path + "/Bookmarks_V\(v).sqlite", toPath: store)
                try FileManager.default.copyItem(atPath: originals.path + "/Bookmarks_V\(v).sqlite-wal", toPath: store + "-wal")
                let db = try Database(path: store, mode: .readWrite)
                try db.execute("UPDATE Z_METADATA SET Z_UUID = 'STORE-V\(v)-\(copy)'")
                if copy == 2 { try db.execute("PRAGMA wal_checkpoint(TRUNCATE)") }
                db.close()
                if copy == 2 { try? FileManager.default.removeItem(atPath: store + "-wal") }
                try? FileManager.default.removeItem(atPath: store + "-shm")
            }
        }
        _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", into: folder.url)
        let pipeline = try folder.pipeline("upgrade.json", """
            { "format": 1, "models": "BookmarksModel.xcdatamodeld",
              "source": { "store": "x.sqlite", "layout": "coredata" },
              "destination": { "store": "y.sqlite", "layout": "coredata" } }
            """)
        let stores = try BatchStoreList.find(archive.path).stores
        XCTAssertEqual(stores.count, 9)
        let plans = Counter()
        var options = BatchOptions(pipeline: pipeline, stores: stores, output: .directory(folder.path("out")),
                                   manifest: folder.path("out/manifest.jsonl.zst"), jobs: 2)
        options.run.tuning.observe = { if $0 == .planned { plans.add() } }
        let report = try Batch(options: options).run()
        XCTAssertEqual(report.stores.map(\.status), Array(repeating: .done, count: 9), "\(report.stores.map { $0.error ?? "" })")
        XCTAssertEqual(plans.value, 3, "one plan per kind of store")

        // Each store alone, planned on its own: the same result, its own UUID and metadata.
        for store in report.stores {
            let alone = folder.path("alone/" + store.path)
            var migration = Migration(pipeline: pipeline)
            migration.source = store.store
            migration.destination = alone
            migration.workers = 1
            _ = try migration.run()
            try assertSameStore(try XCTUnwrap(store.output), alone)
            let uuid = try Database(path: alone, mode: .readOnly).rows("SELECT Z_UUID FROM Z_METADATA").first?.first
            XCTAssertEqual(uuid, .text("STORE-" + store.path.prefix(2) + "-" + String(store.path.dropLast(".sqlite".count).suffix(1))), store.path)
        }
    }

    /// Stores of one kind with different rows (Core Data books v1, each its own seed and
    /// size): one plan, and each result still that of its own store run alone — nothing a
    /// run works out from its store's rows is shared with the next store.
    func testCoreDataStoresOfOneKindWithDifferentRowsShareAPlan() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder.path("archive"), withIntermediateDirectories: true)
        for i in 0..<4 {
            _ = try BooksSample.write(rows: 20 + 17 * i, seed: UInt64(40 + i), to: folder.path("archive/user-\(i).sqlite"), layout: .coredata)
        }
        let data = try Data(contentsOf: repositoryRoot.appendingPathComponent("pipelines/books-coredata.json"))
        var json = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        json["models"] = repositoryRoot.appendingPathComponent("pipelines/models/Books.xcdatamodeld").path
        let pipeline = folder.path("upgrade.json")
        try JSONSerialization.data(withJSONObject: json).write(to: URL(fileURLWithPath: pipeline))
        let plans = Counter()
        var options = BatchOptions(pipeline: pipeline, stores: try BatchStoreList.find(folder.path("archive")).stores,
                                   output: .directory(folder.path("out")), manifest: folder.path("out/manifest.jsonl.zst"), jobs: 2)
        options.run.tuning.observe = { if $0 == .planned { plans.add() } }
        let report = try Batch(options: options).run()
        XCTAssertEqual(report.stores.map(\.status), Array(repeating: .done, count: 4), "\(report.stores.map { $0.error ?? "" })")
        XCTAssertEqual(plans.value, 1)
        for store in report.stores {
            let alone = folder.path("alone/" + store.path)
            var migration = Migration(pipeline: pipeline)
            migration.source = store.store
            migration.destination = alone
            migration.workers = 1
            _ = try migration.run()
            try assertSameStore(try XCTUnwrap(store.output), alone)
        }
    }
}
