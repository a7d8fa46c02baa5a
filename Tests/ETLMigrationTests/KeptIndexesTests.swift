import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETL
import ETLTestSupport

/// A Core Data migration keeps the source's indexes on what survives the hop, under their
/// names, beside the model's own (facts §4.1, §1.4).
final class KeptIndexesTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static func chat(reaction: String, extra: String) -> String {
        ModelBundleFiles.model("""
            <entity name="\(reaction)"\(reaction == "Reaction" ? "" : #" elementID="Reaction""#)>
                <attribute name="emoji" optional="YES" attributeType="String"/>
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="User"/>
            </entity>
            <entity name="Message">
                <attribute name="text" optional="YES" attributeType="String"/>
            </entity>
            <entity name="SystemMessage" parentEntity="Message">
                <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="systemMessages" inverseEntity="User"/>
            </entity>
            <entity name="User">
                <attribute name="handle" optional="YES" attributeType="String"/>\(extra)
                <relationship name="reactions" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="\(reaction)" inverseName="users" inverseEntity="\(reaction)"/>
                <relationship name="systemMessages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="users" inverseEntity="SystemMessage"/>
            </entity>
            """)
    }

    /// Given a Chat 1 store with the indexes a store Core Data migrated before holds (an
    /// older-style name on a column, a join-table index left under its old name, one in
    /// the newer form), when upgraded to Chat 2 (Reaction renamed Like, User.nickname gone,
    /// entities renumbered), then every index on a surviving table and column is there under
    /// its name, on the table and columns as they are now named; those on nickname, the
    /// UNIQUE one and those the model makes itself are not copied.
    func testTheSourcesIndexesOnWhatSurvivesAreKept() throws {
        let bundle = folder.url.appendingPathComponent("Chat.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("Chat 1", Self.chat(reaction: "Reaction", extra: #"<attribute name="nickname" optional="YES" attributeType="String"/>"#)),
            ("Chat 2", Self.chat(reaction: "Like", extra: "")),
        ], current: "Chat 2")
        let versions = try ModelBundle.load(path: bundle.path)
        let v1 = try XCTUnwrap(versions.version(named: "Chat 1")), v2 = try XCTUnwrap(versions.version(named: "Chat 2"))
        let source = folder.path("chat.sqlite")
        let layout = CoreDataLayout(model: v1)
        XCTAssertEqual(layout.entityNumbers, ["Message": 1, "SystemMessage": 2, "Reaction": 3, "User": 4])
        do {
            let db = try Database(path: source, mode: .create)
            defer { db.close() }
            for sql in layout.schemaSQL() { try db.execute(sql) }
            try db.execute("""
                INSERT INTO ZMESSAGE (Z_PK, Z_ENT, Z_OPT, ZTEXT) VALUES (1, 1, 1, 'hello'), (2, 2, 1, 'joined');
                INSERT INTO ZREACTION (Z_PK, Z_ENT, Z_OPT, ZEMOJI) VALUES (1, 3, 1, 'like');
                INSERT INTO ZUSER (Z_PK, Z_ENT, Z_OPT, ZHANDLE, ZNICKNAME) VALUES (1, 4, 1, 'ann', 'a'), (2, 4, 1, 'bob', 'b');
                INSERT INTO Z_3USERS (Z_3REACTIONS, Z_4USERS) VALUES (1, 1), (1, 2);
                INSERT INTO Z_2USERS (Z_2SYSTEMMESSAGES, Z_4USERS1) VALUES (2, 2);
                CREATE INDEX ZUSER_ZHANDLE_INDEX ON ZUSER (ZHANDLE);
                CREATE INDEX ZUSER_ZNICKNAME_INDEX ON ZUSER (ZNICKNAME);
                CREATE INDEX ZREACTION_ZEMOJI_INDEX ON ZREACTION (ZEMOJI);
                CREATE INDEX Z_Message_text ON ZMESSAGE (ZTEXT COLLATE BINARY ASC);
                CREATE INDEX Z_1USERS_Z_3USERS1_INDEX ON "Z_2USERS" (Z_4USERS1, Z_2SYSTEMMESSAGES);
                CREATE UNIQUE INDEX Z_User_UNIQUE_handle ON ZUSER (ZHANDLE COLLATE BINARY ASC);
                """)
            try layout.finish(db)
        }

        let destination = folder.path("chat-2.sqlite")
        _ = try Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: destination,
                                                                extra: #", "drop": ["User.nickname"]"#)).run()
        let db = try Database(path: destination, mode: .readOnly)
        var indexes: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { indexes[name] = sql }
        }
        let model = Set(CoreDataLayout(model: v2).schemaSQL().filter { $0.hasPrefix("CREATE INDEX") })
        XCTAssertEqual(CoreDataLayout(model: v2).entityNumbers, ["Like": 1, "Message": 2, "SystemMessage": 3, "User": 4])
        XCTAssertTrue(model.isSubset(of: Set(indexes.values)), "the model's own indexes: \(model.subtracting(indexes.values))")
        XCTAssertEqual(indexes.filter { !model.contains($0.value) }, [
            "ZUSER_ZHANDLE_INDEX": "CREATE INDEX ZUSER_ZHANDLE_INDEX ON ZUSER (ZHANDLE)",
            "ZREACTION_ZEMOJI_INDEX": "CREATE INDEX ZREACTION_ZEMOJI_INDEX ON ZLIKE (ZEMOJI)",
            "Z_Message_text": "CREATE INDEX Z_Message_text ON ZMESSAGE (ZTEXT COLLATE BINARY ASC)",
            // Join-table indexes under their old names, on the renamed tables (§1.4).
            "Z_1USERS_Z_3USERS1_INDEX": "CREATE INDEX Z_1USERS_Z_3USERS1_INDEX ON Z_3USERS (Z_4USERS1, Z_3SYSTEMMESSAGES)",
            "Z_2USERS_Z_4USERS1_INDEX": "CREATE INDEX Z_2USERS_Z_4USERS1_INDEX ON Z_3USERS (Z_4USERS1, Z_3SYSTEMMESSAGES)",
            "Z_3USERS_Z_4USERS_INDEX": "CREATE INDEX Z_3USERS_Z_4USERS_INDEX ON Z_1USERS (Z_4USERS, Z_1REACTIONS)",
        ])
        // Still the version it is.
        XCTAssertEqual(try VersionDetector.detect(store: db, versions: versions.versions, layout: .coredata).version, "Chat 2")
    }
}
