import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETL
import ETLTestSupport

/// Two many-to-many relationships of the same name on different entities, as in Wire
/// (facts §1.3): SystemMessage.users and Reaction.users, both to User. Core Data gives them
/// `Z_<n>USERS` tables that differ only in their entity numbers, and the column of the
/// entity whose name sorts last a `1`. Version detection must tell the two tables apart.
final class SameNamedJoinTablesTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static func chat(_ extra: String = "") -> String {
        ModelBundleFiles.model("""
            <entity name="Message">
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
            <entity name="Reaction">
                <attribute name="emoji" optional="YES" attributeType="String"/>
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="User"/>
            </entity>
            <entity name="SystemMessage" parentEntity="Message">
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="systemMessages" inverseEntity="User"/>
            </entity>
            <entity name="User">
                <attribute name="handle" optional="YES" attributeType="String"/>\(extra)
                <relationship name="reactions" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="users" inverseEntity="Reaction"/>
                <relationship name="systemMessages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="users" inverseEntity="SystemMessage"/>
            </entity>
            """)
    }

    /// A bundle Chat 1 → Chat 2 (User gains `name`), and a Chat 1 store as Core Data lays it
    /// out: 2 messages (one a system message), 2 reactions, 3 users, links in both tables.
    func givenChatStore() throws -> (bundle: URL, store: String) {
        let bundle = folder.url.appendingPathComponent("Chat.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("Chat 1", Self.chat()),
            ("Chat 2", Self.chat(#"<attribute name="name" optional="YES" attributeType="String"/>"#)),
        ], current: "Chat 2")
        let v1 = try XCTUnwrap(try ModelBundle.load(path: bundle.path).version(named: "Chat 1"))
        let store = folder.path("chat.sqlite")
        let layout = CoreDataLayout(model: v1)
        let db = try Database(path: store, mode: .create)
        defer { db.close() }
        for sql in layout.schemaSQL() { try db.execute(sql) }
        // Message 1, SystemMessage 2 below it, Reaction 3, User 4 (pre-order, facts §0); §1.1
        // and §1.3 say the rest: SystemMessage has the lower number, Reaction's column keeps the plain name.
        XCTAssertEqual(layout.entityNumbers, ["Message": 1, "SystemMessage": 2, "Reaction": 3, "User": 4])
        try db.execute("""
            INSERT INTO ZMESSAGE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (1, 1, 1, 'hello'), (2, 2, 1, 'joined');
            INSERT INTO ZREACTION (Z_PK, Z_ENT, Z_OPT, ZEMOJI) VALUES (1, 3, 1, 'like'), (2, 3, 1, 'heart');
            INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZHANDLE) VALUES (1, 4, 1, 'ann'), (2, 4, 1, 'bob'), (3, 4, 1, 'cy');
            INSERT INTO Z_3USERS (Z_3REACTIONS, Z_4USERS) VALUES (1, 1), (1, 2), (2, 3);
            INSERT INTO Z_2USERS (Z_2SYSTEMMESSAGES, Z_4USERS1) VALUES (2, 1), (2, 3);
            """)
        try layout.finish(db)
        return (bundle, store)
    }

    /// Given the Chat 1 store, it is detected as Chat 1 (the library and `etl inspect`'s
    /// report); when etl upgrades it to Chat 2, etl's own output is detected as Chat 2, and
    /// each link is where it was.
    func testAStoreWithTwoSameNamedJoinTablesIsDetectedAsItsVersion() throws {
        let (bundle, store) = try givenChatStore()
        let tables = try Database(path: store, mode: .readOnly).tables().map(\.name)
        XCTAssertTrue(tables.contains("Z_2USERS") && tables.contains("Z_3USERS"), "\(tables)")

        let versions = try ModelBundle.load(path: bundle.path).versions
        XCTAssertEqual(try VersionDetector.detect(store: try Database(path: store, mode: .readOnly), versions: versions, layout: .coredata).version, "Chat 1")
        let source = try StoreInspection.inspect(path: store, bundle: bundle.path)
        XCTAssertEqual(try source.version?.get().version, "Chat 1")

        let destination = folder.path("chat-2.sqlite")
        _ = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: store), destination: destination)).run()
        let result = try StoreInspection.inspect(path: destination, bundle: bundle.path)
        XCTAssertEqual(try result.version?.get().version, "Chat 2")
        XCTAssertEqual(try result.version?.get().evidence, .schemaAndVersionHashes)
        let db = try Database(path: destination, mode: .readOnly)
        XCTAssertEqual(try db.rows("SELECT Z_3REACTIONS, Z_4USERS FROM Z_3USERS ORDER BY 1, 2").map { $0.map(\.sqlLiteral) },
                       [["1", "1"], ["1", "2"], ["2", "3"]])
        XCTAssertEqual(try db.rows("SELECT Z_2SYSTEMMESSAGES, Z_4USERS1 FROM Z_2USERS ORDER BY 1, 2").map { $0.map(\.sqlLiteral) },
                       [["2", "1"], ["2", "3"]])
    }

    /// A store that lacks one of the two tables says so, rather than comparing the other
    /// table's columns with the missing one's.
    func testAMissingSameNamedJoinTableIsNamed() throws {
        let (bundle, store) = try givenChatStore()
        let db = try Database(path: store, mode: .readWrite)
        try db.execute("DROP TABLE Z_2USERS")
        let v1 = try XCTUnwrap(try ModelBundle.load(path: bundle.path).version(named: "Chat 1"))
        let difference = try SchemaDifference.between(store: db, model: v1, layout: .coredata)
        XCTAssertEqual(difference.missingTables, ["Z_2USERS"])
        XCTAssertEqual(difference.missingColumns + difference.extraColumns + difference.extraTables, [])
    }
}
