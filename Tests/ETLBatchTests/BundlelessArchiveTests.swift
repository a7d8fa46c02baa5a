import Foundation
import XCTest
import ETL
import ETLExpression
import ETLTestSupport
import ETLBatch

/// docs/swiftdata.md §3: an archive whose stores keep their own models, no bundle, upgraded
/// by one pipeline — `modelFrom` a reference store and one `"drop"` list. DuckDuckGo's
/// Bookmarks V1 … V5: V1 and V2 lose `isFavorite` as the list says, V3 and V4 (which never
/// had it) get a note, V5 (the reference's model) is up to date; none fails.
final class BundlelessArchiveTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder(prefix: "etl-bundleless") }
    override func tearDown() { folder = nil }

    func testOneModelFromPipelineUpgradesBookmarksV1ToV5() throws {
        let archive = folder.url.appendingPathComponent("archive")
        for v in 1...5 {
            for suffix in ["", "-wal"] {
                _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V\(v).sqlite\(suffix)", into: archive)
            }
        }
        let reference = folder.url.appendingPathComponent("reference")
        for suffix in ["", "-wal"] {
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V5.sqlite\(suffix)", into: reference)
        }
        let pipeline = try folder.pipeline("upgrade.json", """
            { "format": 1, "drop": ["BookmarkEntity.isFavorite"],
              "source": { "store": "x.sqlite", "layout": "coredata" },
              "destination": { "store": "y.sqlite", "layout": "coredata", "modelFrom": "reference/Bookmarks_V5.sqlite" } }
            """)
        let referenceHashes = try CoreDataMetadata.read(try Database(path: reference.appendingPathComponent("Bookmarks_V5.sqlite").path, mode: .readOnly)).versionHashes
        XCTAssertFalse(referenceHashes.isEmpty)
        let stores = try BatchStoreList.find(archive.path).stores
        XCTAssertEqual(stores.count, 5)
        let output = BatchOptions.Output.directory(folder.path("out"))
        let options = BatchOptions(pipeline: pipeline, stores: stores, output: output, manifest: folder.path("out/manifest.jsonl.zst"), jobs: 2)
        let dry = try Batch(options: options).dryRun()
        XCTAssertEqual(dry.map(\.decision), [.migrate, .migrate, .migrate, .migrate, .skip], "\(dry.map { $0.reason ?? "" })")

        let report = try Batch(options: options).run()
        XCTAssertEqual(report.stores.map(\.status), [.done, .done, .done, .done, .skipped], "\(report.stores.map { $0.error ?? "" })")
        for store in report.stores {
            let hadIt = store.path.contains("V1") || store.path.contains("V2")
            XCTAssertEqual(store.dropped?.keys.contains { $0.hasSuffix("BookmarkEntity.isFavorite") } ?? false, hadIt, "\(store.path): \(store.dropped ?? [:])")
            if !hadIt, store.status == .done {
                XCTAssertTrue(store.notes.contains { $0.contains("'BookmarkEntity.isFavorite'") && $0.contains("nothing of it to drop") }, "\(store.path): \(store.notes)")
            }
            guard store.status == .done else {
                XCTAssertTrue(store.notes.contains { $0.contains("up to date") }, "\(store.notes)")
                continue
            }
            // At the reference's model: Core Data's version hashes are the reference store's.
            let result = try Database(path: try XCTUnwrap(store.output), mode: .readOnly)
            XCTAssertEqual(try CoreDataMetadata.read(result).versionHashes, referenceHashes, store.path)
            XCTAssertEqual(try result.scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10, store.path)
        }
    }
}
