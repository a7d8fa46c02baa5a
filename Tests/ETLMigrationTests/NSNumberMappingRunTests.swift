import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETL
import ETLTestSupport

/// A mapping model that stores an Integer into a Boolean and a Boolean into an Integer (as
/// NSNumber lets Core Data do) runs: 0 and 1 become NO and YES, another number rejects its
/// row naming it, a Boolean becomes 1 or 0.
final class NSNumberMappingRunTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func testIntegersIntoBooleansAreCheckedRowByRow() throws {
        let bundle = folder.url.appendingPathComponent("Chats.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("c1", ModelBundleFiles.model("""
                <entity name="Chat">
                    <attribute name="isSilenced" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                    <attribute name="level" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                </entity>
                """)),
            ("c2", ModelBundleFiles.model("""
                <entity name="Chat">
                    <attribute name="isArchived" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                    <attribute name="mutedStatus" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                </entity>
                """)),
        ], current: "c2")
        let mappingModel = folder.url.appendingPathComponent("c1-c2.xcmappingmodel")
        try MappingModelXML(source: "App/Chats.xcdatamodeld/c1.xcdatamodel", destination: "App/Chats.xcdatamodeld/c2.xcdatamodel", mappings: [
            .init("Chat", autogenerate: false, attributes: [.init("mutedStatus", "$source.isSilenced"), .init("isArchived", "$source.level")]),
        ]).write(to: mappingModel)
        let source = folder.path("chats.sqlite")
        let c1 = try XCTUnwrap(try ModelBundle.load(path: bundle.path).version(named: "c1"))
        let layout = CoreDataLayout(model: c1)
        do {
            let db = try Database(path: source, mode: .create)
            defer { db.close() }
            for sql in layout.schemaSQL() { try db.execute(sql) }
            try db.execute("INSERT INTO ZCHAT (Z_PK, Z_ENT, Z_OPT, ZISSILENCED, ZLEVEL) VALUES (1, 1, 1, 1, 0), (2, 1, 1, 0, 1), (3, 1, 1, NULL, NULL), (4, 1, 1, 1, 5)")
            try layout.finish(db)
        }
        let destination = folder.path("chats-2.sqlite")
        let summary = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: destination,
                                                                          extra: #", "options": { "maxRejects": 1 }, "steps": [ { "from": "c1", "to": "c2", "mappingModel": "\#(mappingModel.path)" } ]"#)).run()
        XCTAssertEqual(summary.mappings.map(\.written), [3])
        XCTAssertEqual(summary.mappings.map(\.rejected), [1])
        XCTAssertEqual(try Database(path: destination, mode: .readOnly).rows("SELECT Z_PK, ZMUTEDSTATUS, ZISARCHIVED FROM ZCHAT ORDER BY Z_PK").map { $0.map(\.sqlLiteral) },
                       [["1", "1", "0"], ["2", "0", "1"], ["3", "NULL", "NULL"]])
        let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
        XCTAssertEqual(rejects.map(\.key), [4])
        XCTAssertTrue(rejects[0].error.contains("NSNumber 5 in a Boolean attribute (0 or 1 only)"), rejects[0].error)
    }
}
