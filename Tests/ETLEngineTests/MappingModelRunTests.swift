import XCTest
import Foundation
import ETLStore
import ETL
import ETLTestSupport

/// Xcode mapping models run as pipeline steps: `{ "from", "to", "mappingModel" }` in a
/// bundle pipeline, on the real stores and mapping models of the corpus.
final class MappingModelRunTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func copy(_ set: String) throws -> URL {
        try FixtureSet.copy("coredata-corpus/\(set)", into: folder.url.appendingPathComponent("fixtures"))
    }

    /// A bundle pipeline from `source` to `version` with `steps` (JSON).
    func pipeline(bundle: URL, source: URL, version: String, out: String, steps: String) throws -> String {
        try folder.pipeline("upgrade-\(UUID().uuidString.prefix(6)).json", """
            { "format": 1, "models": "\(bundle.path)",
              "source": { "store": "\(source.path)", "layout": "coredata" },
              "destination": { "store": "\(folder.path(out))", "layout": "coredata", "version": "\(version)" },
              "steps": [ \(steps) ] }
            """)
    }

    // MARK: ctdatastoremanager

    func testTestMigrationStoreUpgradesThroughBothMappingModelsLikeTheHandWrittenPipeline() throws {
        let set = try copy("ctdatastoremanager")
        let bundle = set.appendingPathComponent("TestMigrationStore.xcdatamodeld")
        let store = set.appendingPathComponent("TestMigrationStore_version_1.sqlite")
        let before = try bytes(store.path)
        let byMappingModels = try pipeline(bundle: bundle, source: store, version: "TestMigrationStore 3", out: "by-mapping-models.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_1_2.xcmappingmodel" },
            { "from": "TestMigrationStore 2", "to": "TestMigrationStore 3", "mappingModel": "\(set.path)/TestMigrationStore_2_3.xcmappingmodel" }
            """)
        let byHand = try pipeline(bundle: bundle, source: store, version: "TestMigrationStore 3", out: "by-hand.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappings": [
                { "source": "Entity", "destination": "Entity", "attributes": { "date": "$source.date" } } ] },
            { "from": "TestMigrationStore 2", "to": "TestMigrationStore 3", "mappings": [
                { "source": "Entity", "destination": "Entity", "attributes": { "date": "$source.date", "name": "$source.name" } } ] }
            """)
        let summary = try Migration(pipeline: byMappingModels).run()
        XCTAssertEqual(summary.mappings.map(\.step), ["TestMigrationStore to TestMigrationStore 2", "TestMigrationStore 2 to TestMigrationStore 3"])
        XCTAssertEqual(summary.mappings.map(\.written), [3, 3])
        _ = try Migration(pipeline: byHand).run()

        let out = try Database(path: folder.path("by-mapping-models.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZENTITY WHERE ZDATE IS NOT NULL"), 3, "every date carried through both hops")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZENTITY WHERE ZNAME IS NULL AND ZATTRIBUTE IS NULL"), 3)
        // Every table but Z_METADATA, whose store UUID each run of this old store (which
        // has none of its own) makes anew.
        let dumps = try ["by-mapping-models.sqlite", "by-hand.sqlite"].map { name in
            try storeDump(folder.path(name)).components(separatedBy: "## ").filter { !$0.hasPrefix("Z_METADATA") }
        }
        XCTAssertEqual(dumps[0].filter { $0.hasPrefix("ZENTITY") }.first?.split(separator: "\n").count, 4, "a header and three rows")
        XCTAssertEqual(dumps[0], dumps[1])
        XCTAssertEqual(try bytes(store.path), before, "the source must not change")
    }

    func testAMappingModelOfAnotherHopIsRefusedBeforeARowIsRead() throws {
        let set = try copy("ctdatastoremanager")
        let path = try pipeline(bundle: set.appendingPathComponent("TestMigrationStore.xcdatamodeld"),
                                source: set.appendingPathComponent("TestMigrationStore_version_1.sqlite"),
                                version: "TestMigrationStore 2", out: "out.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_2_3.xcmappingmodel" }
            """)
        XCTAssertThrowsError(try Migration(pipeline: path).run()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("$.steps[0].mappingModel"), text)
            XCTAssertTrue(text.contains("maps TestMigrationStore 2 → TestMigrationStore 3"), text)
            XCTAssertTrue(text.contains("this step goes TestMigrationStore → TestMigrationStore 2"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testAStepGivesMappingsOrAMappingModelNotBoth() throws {
        let set = try copy("ctdatastoremanager")
        let path = try pipeline(bundle: set.appendingPathComponent("TestMigrationStore.xcdatamodeld"),
                                source: set.appendingPathComponent("TestMigrationStore_version_1.sqlite"),
                                version: "TestMigrationStore 2", out: "out.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_1_2.xcmappingmodel",
              "mappings": [ { "source": "Entity", "destination": "Entity" } ] }
            """)
        XCTAssertThrowsError(try Migration(pipeline: path).run()) { error in
            XCTAssertTrue("\(error)".contains("$.steps[0].mappings: a step takes its mappings from \"mappingModel\" or from \"mappings\", not both"), "\(error)")
        }
    }
}
