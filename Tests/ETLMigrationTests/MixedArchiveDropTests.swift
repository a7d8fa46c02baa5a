import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import ETLBatch

/// Given an archive of DuckDuckGo's Bookmarks stores at versions 1 … 5 and one bundle
/// pipeline whose `"drop"` lists what the 2 → 3 hop removes, when `etl batch` runs it over
/// the archive, then every store is upgraded: a store whose path does not take that hop gets a
/// note, not an error; an entry naming nothing of any version stays an error.
final class MixedArchiveDropTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func archive() throws -> [BatchStore] {
        let archive = folder.url.appendingPathComponent("archive")
        for v in 1...5 {
            for suffix in ["", "-wal", "-shm"] {
                _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V\(v).sqlite\(suffix)", into: archive)
            }
        }
        _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", into: folder.url)
        return try BatchStoreList.find(archive.path, currentDirectory: folder.url.path, excluding: []).stores
    }

    func pipeline(drop: String) throws -> String {
        try folder.pipeline("bookmarks.json", """
            { "format": 1, "models": "BookmarksModel.xcdatamodeld", "drop": \(drop),
              "source": { "store": "archive/Bookmarks_V1.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" } }
            """)
    }

    func testOnePipelineWithADropListUpgradesTheWholeArchive() throws {
        let stores = try archive()
        XCTAssertEqual(stores.count, 5)
        let sources = try stores.map { try bytes($0.path) }
        let batch = Batch(options: BatchOptions(pipeline: try pipeline(drop: #"["BookmarkEntity.isFavorite"]"#), stores: stores,
                                                output: .directory(folder.path("out")), manifest: folder.path("batch.jsonl.zst"), jobs: 1))
        let report = try batch.run()
        XCTAssertEqual(report.stores.map(\.status), Array(repeating: .done, count: 5), "\(report.stores.map { $0.error ?? "" })")
        for store in report.stores {
            let takesTheHop = store.path.contains("V1") || store.path.contains("V2")
            XCTAssertEqual(store.dropped?.keys.contains { $0.hasSuffix("BookmarkEntity.isFavorite") } ?? false, takesTheHop, "\(store.path): \(store.dropped ?? [:])")
            XCTAssertEqual(store.notes.contains { $0.contains("'BookmarkEntity.isFavorite' applies to no step of this store's path") }, !takesTheHop,
                           "\(store.path): \(store.notes)")
            let out = try Database(path: store.output!, mode: .readOnly)
            XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10, store.path)
        }
        XCTAssertEqual(try stores.map { try bytes($0.path) }, sources, "the sources are byte-identical")
    }

    func testAnEntryNamingNothingOfAnyVersionIsAnError() throws {
        let stores = try archive()
        let batch = Batch(options: BatchOptions(pipeline: try pipeline(drop: #"["BookmarkEntity.isFavourite"]"#), stores: Array(stores.suffix(1)),
                                                output: .directory(folder.path("out")), manifest: folder.path("batch.jsonl.zst"), jobs: 1))
        let report = try batch.run()
        XCTAssertEqual(report.stores.map(\.status), [.failed])
        XCTAssertTrue(report.stores[0].error?.contains("'BookmarkEntity.isFavourite' is no entity or property of any model version of the pipeline") ?? false,
                      report.stores[0].error ?? "")
    }
}
