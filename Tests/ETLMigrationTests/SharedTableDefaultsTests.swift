import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETL
import ETLTestSupport

/// A sub-entity's column on a table its root shares holds, on the other entities' rows,
/// what Core Data's migration leaves there (facts §4.1: Wire's `ZMESSAGE` column of a
/// SystemMessage attribute with default 0 holds 0 on ClientMessage rows).
final class SharedTableDefaultsTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static func messages(_ extra: String) -> String {
        ModelBundleFiles.model("""
            <entity name="ClientMessage" parentEntity="Message">
                <attribute name="nonce" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Message">
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
            <entity name="SystemMessage" parentEntity="Message">
                <attribute name="kind" optional="YES" attributeType="Integer 16" defaultValueString="0" usesScalarValueType="YES"/>\(extra)
            </entity>
            """)
    }

    /// Given a v1 store as Core Data left it (SystemMessage.kind's default 0 on the client
    /// messages' rows too, but one it holds null), when upgraded to v2, which adds
    /// SystemMessage.isSilenced (default NO) and the label "-" (a string), then every row of
    /// ZMESSAGE holds the new defaults, and kind holds on each client message's row what the
    /// source held there.
    func testDefaultsAndValuesOfOtherEntitiesColumnsAreAsCoreDataLeavesThem() throws {
        let bundle = folder.url.appendingPathComponent("Messages.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("v1", Self.messages("")),
            ("v2", Self.messages("""

                <attribute name="isSilenced" optional="YES" attributeType="Boolean" defaultValueString="NO" usesScalarValueType="YES"/>
                <attribute name="label" optional="YES" attributeType="String" defaultValueString="-"/>
                """)),
        ], current: "v2")
        let v1 = try XCTUnwrap(try ModelBundle.load(path: bundle.path).version(named: "v1"))
        let layout = CoreDataLayout(model: v1)
        XCTAssertEqual(layout.entityNumbers, ["Message": 1, "ClientMessage": 2, "SystemMessage": 3])
        let source = folder.path("messages.sqlite")
        do {
            let db = try Database(path: source, mode: .create)
            defer { db.close() }
            for sql in layout.schemaSQL() { try db.execute(sql) }
            try db.execute("""
                INSERT INTO ZMESSAGE (Z_PK, Z_ENT, Z_OPT, ZTEXT, ZNONCE, ZKIND) VALUES
                  (1, 1, 1, 'plain', NULL, 0), (2, 2, 1, 'hi', 'n1', 0), (3, 2, 1, 'old', 'n2', NULL), (4, 3, 1, 'joined', NULL, 5)
                """)
            try layout.finish(db)
        }
        let destination = folder.path("messages-2.sqlite")
        _ = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: destination)).run()
        let rows = try Database(path: destination, mode: .readOnly).rows("SELECT Z_PK, Z_ENT, ZNONCE, ZKIND, ZISSILENCED, ZLABEL FROM ZMESSAGE ORDER BY Z_PK")
        XCTAssertEqual(rows.map { $0.map(\.sqlLiteral) }, [
            ["1", "1", "NULL", "0", "0", "'-'"],
            ["2", "2", "'n1'", "0", "0", "'-'"],
            ["3", "2", "'n2'", "NULL", "0", "'-'"],
            ["4", "3", "NULL", "5", "0", "'-'"],
        ])
    }
}
