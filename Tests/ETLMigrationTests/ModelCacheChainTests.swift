import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETL
import ETLTestSupport

/// Every store etl writes keeps its model in `Z_MODELCACHE`, as Core Data does (facts §6),
/// so that upgrades without a bundle can follow one another: each hop's source brings the
/// model etl kept in it.
final class ModelCacheChainTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Bookmarks V1 upgraded three times, one version a run (BookmarksModel 2, 3, 4): once with
    /// the bundle, once without (each source's kept model, each target the model kept in an
    /// empty store etl wrote for that version). The two chains write the same stores, and
    /// `etl model from-store` of each result is the hop's target version.
    func testThreeHopsWithoutABundleWriteWhatTheBundleWrites() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let bundleURL = bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld")
        let bundle = try ModelBundle.load(path: bundleURL.path)
        let targets = ["BookmarksModel 2", "BookmarksModel 3", "BookmarksModel 4"]
        // 2 → 3 removes isFavorite: the pipeline says so.
        let drops = ["", #", "drop": ["BookmarkEntity.isFavorite"]"#, ""]

        var byBundle = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path
        var byStores = byBundle
        for (hop, target) in targets.enumerated() {
            let version = try XCTUnwrap(bundle.version(named: target))
            let bundleOut = folder.path("by-bundle-\(hop + 1).sqlite")
            _ = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundleURL, source: URL(fileURLWithPath: byBundle),
                                                                    destination: bundleOut, version: target, extra: drops[hop])).run()
            let reference = folder.path("reference-\(hop + 1).sqlite")
            try writeEmptyCoreDataStore(of: version, to: reference)
            let storesOut = folder.path("by-stores-\(hop + 1).sqlite")
            let pipeline = try folder.pipeline("hop-\(hop + 1).json", """
                { "format": 1,
                  "source": { "store": "\(byStores)", "layout": "coredata" },
                  "destination": { "store": "\(storesOut)", "layout": "coredata", "modelFrom": "\(reference)" }\(drops[hop]) }
                """)
            let migration = Migration(pipeline: pipeline)
            XCTAssertEqual(try migration.plan().steps.count, 1, target)
            _ = try migration.run()
            byBundle = bundleOut
            byStores = storesOut

            try assertSameStore(byStores, byBundle)
            for store in [byBundle, byStores] {
                var kept = try StoreModel.read(path: store, version: target)
                XCTAssertEqual(kept.versionIdentifiers, [""], "the metadata's identifiers, as Core Data's archive has them")
                kept.versionIdentifiers = version.versionIdentifiers
                XCTAssertEqual(kept, version, "\(store) keeps \(target)")
                let agreement = try XCTUnwrap(ModelCacheAgreement.check(try Database(path: store, mode: .readOnly),
                                                                         metadata: try CoreDataMetadata.read(try Database(path: store, mode: .readOnly))))
                XCTAssertTrue(agreement.agrees, agreement.summary)
            }
        }
        // The rows came through: 3 hops lost no bookmark.
        let count = "SELECT count(*) FROM ZBOOKMARKENTITY"
        XCTAssertEqual(try Database(path: byStores, mode: .readOnly).scalarInt(count),
                       try Database(path: bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path, mode: .readOnly).scalarInt(count))
    }
}
