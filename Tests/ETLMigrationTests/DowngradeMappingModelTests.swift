import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// A downgrade mapping model (its destination an older version than its source) runs as
/// the pipeline's step down from the store's version to the target's; a store at a later
/// version goes down only through such steps, never by inference.
final class DowngradeMappingModelTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// d1: Item { title }; d2 adds Item.note; d3 adds Item.seen. The mapping model maps d3 → d1.
    func bundle() throws -> (bundle: URL, models: ModelBundle) {
        func model(_ extra: String) -> String {
            ModelBundleFiles.model(#"<entity name="Item"><attribute name="title" optional="YES" attributeType="String"/>"# + extra + "</entity>")
        }
        let note = #"<attribute name="note" optional="YES" attributeType="String"/>"#
        let bundle = folder.url.appendingPathComponent("Items.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("d1", model("")), ("d2", model(note)),
                                                      ("d3", model(note + #"<attribute name="seen" optional="YES" attributeType="Boolean"/>"#))], current: "d3")
        let mapping = folder.url.appendingPathComponent("d3ToD1.xcmappingmodel")
        try MappingModelXML(source: "App/Items.xcdatamodeld/d3.xcdatamodel", destination: "App/Items.xcdatamodeld/d1.xcdatamodel",
                            mappings: [.init("Item", filter: "seen != YES", attributes: [.init("title")])]).write(to: mapping)
        return (bundle, try ModelBundle.load(path: bundle.path))
    }

    func store(_ models: ModelBundle) throws -> URL {
        let store = try BuiltStore(try XCTUnwrap(models.version(named: "d3")), at: folder.path("d3.sqlite"))
        for key in Int64(1)...5 {
            try store.insert("Item", key, ["title": .text("t\(key)"), "note": .text("n\(key)"), "seen": .integer(key % 2)])
        }
        store.close()
        return URL(fileURLWithPath: folder.path("d3.sqlite"))
    }

    func testADowngradeMappingModelRunsDownToTheOlderVersion() throws {
        let (bundle, models) = try bundle()
        let source = try store(models)
        let step = #", "mappingModels": false, "steps": [ { "from": "d3", "to": "d1", "mappingModel": "\#(folder.path("d3ToD1.xcmappingmodel"))", "drop": ["Item.note"] } ]"#
        for pushdown in [true, false] {
            let out = folder.path("d1-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: source, destination: out, version: "d1", extra: step))
            migration.options.pushdown = pushdown
            let plan = try migration.plan()
            XCTAssertEqual(plan.steps.map { "\($0.sourceModel.version) → \($0.destinationModel.version)" }, ["d3 → d1"])
            let summary = try migration.run()
            XCTAssertEqual(summary.mappings.map(\.written), [2], "items 2 and 4 are unseen")
            XCTAssertEqual(summary.mappings.map(\.filtered), [3], "items 1, 3 and 5 are seen")
            let d1 = try XCTUnwrap(models.version(named: "d1"))
            XCTAssertEqual(try ReadStore(d1, at: out).rows("Item", ["title"]).map { $0[1] }, [.text("t2"), .text("t4")], "the unseen items")
            let written = try CoreDataMetadata.read(try Database(path: out, mode: .readOnly))
            XCTAssertEqual(written.versionHashes, try VersionHashes(model: d1).entities, "the store is at d1")
        }
    }

    /// Without a step down the store is refused, naming the version and the step to add; a
    /// step down that no store's path would take (it goes below the target) too.
    func testAStoreAtALaterVersionGoesDownOnlyThroughTheStepsThePipelineNames() throws {
        let (bundle, models) = try bundle()
        let source = try store(models)
        let bare = try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path("a.sqlite"), version: "d1", extra: #", "mappingModels": false"#)
        XCTAssertThrowsError(try Migration(pipeline: bare).plan()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("the source store is at version d3, later than the target d1: etl downgrades only through a step the pipeline names "
                                        + "for each hop down, and none starts from d3"), text)
            XCTAssertTrue(text.contains(#"{ "from": "d3", "to": "d1", "mappingModel": "d3tod1.xcmappingmodel" }"#), text)
        }
        let partWay = try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path("b.sqlite"), version: "d1",
                                                  extra: #", "mappingModels": false, "steps": [ { "from": "d3", "to": "d2", "mappings": [ { "name": "Items", "source": "Item", "destination": "Item", "attributes": { "title": "$source.title", "note": "$source.note" } } ], "drop": ["Item.seen"] } ]"#)
        XCTAssertThrowsError(try Migration(pipeline: partWay).plan()) { error in
            XCTAssertTrue("\(error)".contains("later than the target d1 (the steps down from d3 reach d2): etl downgrades only through a step the pipeline names for each hop down, and none starts from d2"), "\(error)")
        }
        let below = try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path("c.sqlite"), version: "d2",
                                                extra: #", "mappingModels": false, "steps": [ { "from": "d3", "to": "d1", "mappingModel": "\#(folder.path("d3ToD1.xcmappingmodel"))" } ]"#)
        XCTAssertThrowsError(try Migration(pipeline: below).plan()) { error in
            XCTAssertTrue("\(error)".contains("goes d3 → d1, past the target version d2: no store would run it. Remove the step, or make d1 (or an earlier version) the destination's \"version\""), "\(error)")
        }
    }
}
