import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// The store etl creates for a model of the test's own has the tables, columns and indexes
/// Core Data creates for it (../shared/docs/coredata-layout-facts.md, §1 and §4).
final class CoreDataLayoutFactsTests: XCTestCase {
    func model(_ body: String) throws -> Model {
        try XCDataModelReader.read(Data(ModelBundleFiles.model(body).utf8), file: "facts/contents", version: "facts")
    }

    /// name → CREATE statement of every index Core Data would have written (not SQLite's own).
    func indexes(_ layout: CoreDataLayout) throws -> [String: String] {
        let db = try Database(path: ":memory:", mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        var result: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") {
            result[row[0].text!] = row[1].text!
        }
        return result
    }

    static let indexedModel = """
        <entity name="Author" representedClassName="Author">
            <attribute name="born" optional="YES" attributeType="Date"/>
            <attribute name="email" optional="YES" attributeType="String"/>
            <attribute name="name" optional="YES" attributeType="String" indexed="YES"/>
            <relationship name="books" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Book" inverseName="author" inverseEntity="Book"/>
            <compoundIndexes>
                <compoundIndex>
                    <index value="name"/>
                    <index value="born"/>
                </compoundIndex>
                <compoundIndex>
                </compoundIndex>
            </compoundIndexes>
            <fetchIndex name="byEmail">
                <fetchIndexElement property="email" type="Binary" order="ascending"/>
            </fetchIndex>
            <fetchIndex name="byNameAndBirth">
                <fetchIndexElement property="name" type="Binary" order="ascending"/>
                <fetchIndexElement property="born" type="Binary" order="descending"/>
            </fetchIndex>
            <uniquenessConstraints>
                <uniquenessConstraint>
                    <constraint value="email"/>
                </uniquenessConstraint>
            </uniquenessConstraints>
        </entity>
        <entity name="Book" representedClassName="Book">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="author" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Author" inverseName="books" inverseEntity="Author"/>
        </entity>
        <entity name="Novel" representedClassName="Novel" parentEntity="Book">
            <attribute name="genre" optional="YES" attributeType="String" indexed="YES"/>
        </entity>
        """

    /// Every index of §4, in the forms of a framework from 847 on (etl claims 1048): an
    /// indexed attribute, a compound index (an emptied one makes none), a one-element fetch
    /// index and its twin on the attribute, a fetch index of two, a uniqueness constraint,
    /// a to-one, the Z_ENT of a shared table, an attribute of a sub-entity under its own name.
    func testTheIndexesOfAFrameworkFrom847On() throws {
        let layout = CoreDataLayout(model: try model(Self.indexedModel))
        XCTAssertEqual(layout.frameworkVersion, 1048)
        XCTAssertEqual(try indexes(layout), [
            "Z_Author_name": "CREATE INDEX Z_Author_name ON ZAUTHOR (ZNAME COLLATE BINARY ASC)",
            "Z_Author_email": "CREATE INDEX Z_Author_email ON ZAUTHOR (ZEMAIL COLLATE BINARY ASC)",
            "Z_Author_name_born": "CREATE INDEX Z_Author_name_born ON ZAUTHOR (ZNAME COLLATE BINARY ASC, ZBORN COLLATE BINARY ASC)",
            "Z_Author_byEmail": "CREATE INDEX Z_Author_byEmail ON ZAUTHOR (ZEMAIL COLLATE BINARY ASC)",
            "Z_Author_byNameAndBirth": "CREATE INDEX Z_Author_byNameAndBirth ON ZAUTHOR (ZNAME COLLATE BINARY ASC, ZBORN COLLATE BINARY DESC)",
            "Z_Author_UNIQUE_email": "CREATE UNIQUE INDEX Z_Author_UNIQUE_email ON ZAUTHOR (ZEMAIL COLLATE BINARY ASC)",
            "ZBOOK_Z_ENT_INDEX": "CREATE INDEX ZBOOK_Z_ENT_INDEX ON ZBOOK (Z_ENT)",
            "ZBOOK_ZAUTHOR_INDEX": "CREATE INDEX ZBOOK_ZAUTHOR_INDEX ON ZBOOK (ZAUTHOR)",
            "Z_Novel_genre": "CREATE INDEX Z_Novel_genre ON ZBOOK (ZGENRE COLLATE BINARY ASC)",
        ])
    }

    /// A layout claiming a framework up to 754 (a template's metadata) writes that
    /// framework's forms of indexed attributes and compound indexes.
    func testTheIndexesOfAnOldFramework() throws {
        let old = """
            <entity name="Author">
                <attribute name="born" optional="YES" attributeType="Date"/>
                <attribute name="name" optional="YES" attributeType="String" indexed="YES"/>
                <compoundIndexes><compoundIndex><index value="name"/><index value="born"/></compoundIndex></compoundIndexes>
            </entity>
            """
        let layout = CoreDataLayout(model: try model(old), template: CoreDataMetadata(frameworkVersion: 754))
        XCTAssertEqual(try indexes(layout), [
            "ZAUTHOR_ZNAME_INDEX": "CREATE INDEX ZAUTHOR_ZNAME_INDEX ON ZAUTHOR (ZNAME)",
            "ZAUTHOR_ZNAME_ZBORN": "CREATE INDEX ZAUTHOR_ZNAME_ZBORN ON ZAUTHOR (ZNAME, ZBORN)",
        ])
    }

    /// A compound index naming no property of the entity is refused, naming it.
    func testACompoundIndexOfAnUnknownPropertyIsRefused() {
        let bad = """
            <entity name="Author">
                <attribute name="name" optional="YES" attributeType="String"/>
                <compoundIndexes><compoundIndex><index value="nmae"/></compoundIndex></compoundIndexes>
            </entity>
            """
        XCTAssertThrowsError(try model(bad)) { error in
            XCTAssertTrue("\(error)".contains("a compound index names 'nmae'"), "\(error)")
        }
    }

    // MARK: Join tables (§1)

    /// Clients ignoring each other (self-referencing), reactions and system messages each with
    /// `users` (same name, same destination), and likes between a sub-entity that sorts last
    /// and an entity numbered after it.
    static let joinModel = """
        <entity name="Client">
            <relationship name="ignoredByClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredClients" inverseEntity="Client"/>
            <relationship name="ignoredClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredByClients" inverseEntity="Client"/>
        </entity>
        <entity name="Message">
            <attribute name="text" optional="YES" attributeType="String"/>
        </entity>
        <entity name="SystemMessage" parentEntity="Message">
            <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="systemMessages" inverseEntity="User"/>
        </entity>
        <entity name="Zebra" parentEntity="Message">
            <relationship name="liked" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="likedBy" inverseEntity="Reaction"/>
        </entity>
        <entity name="Reaction">
            <relationship name="likedBy" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Zebra" inverseName="liked" inverseEntity="Zebra"/>
            <relationship name="users" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="User" inverseName="reactions" inverseEntity="User"/>
        </entity>
        <entity name="User">
            <relationship name="reactions" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Reaction" inverseName="users" inverseEntity="Reaction"/>
            <relationship name="systemMessages" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="SystemMessage" inverseName="users" inverseEntity="SystemMessage"/>
        </entity>
        """

    /// Each join table as §1.1 lays it out: named by the entity whose name sorts first
    /// (Reaction, numbered 5, names its table with Zebra, numbered 4), the column named by the
    /// other relationship first and first in the key, one index on (second, first); the
    /// same-named `users` of SystemMessage gets `1` (§1.3: Reaction sorts first, though
    /// SystemMessage has the lower number); the self-referencing pair named by the
    /// relationship whose name sorts last (as Core Data's migrations create it).
    func testJoinTablesAreLaidOutAsCoreDataLaysThemOut() throws {
        let layout = CoreDataLayout(model: try model(Self.joinModel))
        XCTAssertEqual(layout.entityNumbers, ["Client": 1, "Message": 2, "SystemMessage": 3, "Zebra": 4, "Reaction": 5, "User": 6])
        let db = try Database(path: ":memory:", mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        var joins: [String] = []
        for row in try db.rows("SELECT name, sql FROM sqlite_schema WHERE name LIKE 'Z\\_%' ESCAPE '\\' AND sql IS NOT NULL AND name NOT IN ('Z_PRIMARYKEY', 'Z_METADATA', 'Z_MODELCACHE') ORDER BY name") {
            joins.append(row[1].text!)
        }
        XCTAssertEqual(Set(joins), [
            "CREATE TABLE Z_1IGNOREDCLIENTS ( Z_1IGNOREDBYCLIENTS INTEGER, Z_1IGNOREDCLIENTS INTEGER, PRIMARY KEY (Z_1IGNOREDBYCLIENTS, Z_1IGNOREDCLIENTS) )",
            "CREATE INDEX Z_1IGNOREDCLIENTS_Z_1IGNOREDCLIENTS_INDEX ON Z_1IGNOREDCLIENTS (Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS)",
            "CREATE TABLE Z_3USERS ( Z_3SYSTEMMESSAGES INTEGER, Z_6USERS1 INTEGER, PRIMARY KEY (Z_3SYSTEMMESSAGES, Z_6USERS1) )",
            "CREATE INDEX Z_3USERS_Z_6USERS1_INDEX ON Z_3USERS (Z_6USERS1, Z_3SYSTEMMESSAGES)",
            "CREATE TABLE Z_5USERS ( Z_5REACTIONS INTEGER, Z_6USERS INTEGER, PRIMARY KEY (Z_5REACTIONS, Z_6USERS) )",
            "CREATE INDEX Z_5USERS_Z_6USERS_INDEX ON Z_5USERS (Z_6USERS, Z_5REACTIONS)",
            "CREATE TABLE Z_5LIKEDBY ( Z_5LIKED INTEGER, Z_4LIKEDBY INTEGER, PRIMARY KEY (Z_5LIKED, Z_4LIKEDBY) )",
            "CREATE INDEX Z_5LIKEDBY_Z_4LIKEDBY_INDEX ON Z_5LIKEDBY (Z_4LIKEDBY, Z_5LIKED)",
        ])
        // Read back from the store it wrote, every side is found where it is.
        try layout.finish(db)
        let read = try CoreDataLayout(model: layout.model, store: db)
        for (entity, relationship) in [("Client", "ignoredClients"), ("Client", "ignoredByClients"), ("SystemMessage", "users"),
                                       ("Reaction", "users"), ("User", "systemMessages"), ("Zebra", "liked")] {
            XCTAssertEqual(read.storage(ofRelationship: relationship, entity: entity), layout.storage(ofRelationship: relationship, entity: entity))
        }
        XCTAssertEqual(layout.storage(ofRelationship: "users", entity: "SystemMessage"),
                       .joinTable(table: "Z_3USERS", ownColumn: "Z_3SYSTEMMESSAGES", otherColumn: "Z_6USERS1"))
    }

    /// Entities are numbered in case-insensitive name order (facts §0: SyncMetadata_V3).
    func testEntitiesAreNumberedInCaseInsensitiveNameOrder() throws {
        let numbers = CoreDataEntityNumbers.conventional(for: try model("""
            <entity name="SyncFeatureEntity"><attribute name="a" optional="YES" attributeType="String"/></entity>
            <entity name="SyncableSettingsMetadata"><attribute name="b" optional="YES" attributeType="String"/></entity>
            """))
        XCTAssertEqual(numbers, ["SyncableSettingsMetadata": 1, "SyncFeatureEntity": 2])
    }

    /// A self-referencing pair's table as a store has it (named by the other relationship, its
    /// columns in the other order) is found by its columns, and a new store adopting that
    /// store's choice lays the table out the same way.
    func testASelfReferencingJoinTableIsKeptAsTheSourceHasIt() throws {
        let model = try model(Self.joinModel)
        let source = try Database(path: ":memory:", mode: .create)
        for sql in CoreDataLayout(model: model).schemaSQL() where !sql.contains("IGNOREDCLIENTS") { try source.execute(sql) }
        try source.execute("CREATE TABLE Z_1IGNOREDBYCLIENTS ( Z_1IGNOREDCLIENTS INTEGER, Z_1IGNOREDBYCLIENTS INTEGER, PRIMARY KEY (Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS) )")
        try CoreDataLayout(model: model).finish(source)
        let read = try CoreDataLayout(model: model, store: source)
        XCTAssertEqual(read.storage(ofRelationship: "ignoredClients", entity: "Client"),
                       .joinTable(table: "Z_1IGNOREDBYCLIENTS", ownColumn: "Z_1IGNOREDBYCLIENTS", otherColumn: "Z_1IGNOREDCLIENTS"))
        var adopted = CoreDataLayout(model: model)
        adopted.adoptSelfReferencingJoins(from: read)
        XCTAssertTrue(adopted.schemaSQL().contains(
            "CREATE TABLE Z_1IGNOREDBYCLIENTS ( Z_1IGNOREDCLIENTS INTEGER, Z_1IGNOREDBYCLIENTS INTEGER, PRIMARY KEY (Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS) )"),
            "\(adopted.schemaSQL().filter { $0.contains("IGNORED") })")
        XCTAssertTrue(adopted.schemaSQL().contains(
            "CREATE INDEX Z_1IGNOREDBYCLIENTS_Z_1IGNOREDBYCLIENTS_INDEX ON Z_1IGNOREDBYCLIENTS (Z_1IGNOREDBYCLIENTS, Z_1IGNOREDCLIENTS)"))
        XCTAssertEqual(adopted.storage(ofRelationship: "ignoredClients", entity: "Client"), read.storage(ofRelationship: "ignoredClients", entity: "Client"))
    }

    // MARK: Derived attributes (§5)

    static let derivedModel = """
        <entity name="Book">
            <attribute name="pagesCount" optional="YES" attributeType="Integer 64" derived="YES" derivationExpression="pages.@count"/>
            <relationship name="pages" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Page" inverseName="book" inverseEntity="Page"/>
        </entity>
        <entity name="GraphicNovel" parentEntity="Book">
            <attribute name="isBlackAndWhite" optional="YES" attributeType="Boolean"/>
        </entity>
        <entity name="Page">
            <relationship name="book" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Book" inverseName="pages" inverseEntity="Book"/>
        </entity>
        """

    /// A derived count gets Core Data's five triggers (on the declaring entity only), and,
    /// with the two functions registered, they keep the count: +1 on insert, moved on
    /// re-parenting, −1 on delete, and a row inserted with a value gets the real count.
    func testADerivedCountGetsCoreDatasTriggersAndTheyWork() throws {
        let layout = CoreDataLayout(model: try model(Self.derivedModel))
        let triggers = layout.schemaSQL().filter { $0.hasPrefix("CREATE TRIGGER") }
        let affected = { (function: String, row: String) in
            "SELECT \(function)('ZBOOK', Z_ENT, Z_PK, 'pagesCount', ZPAGESCOUNT) FROM ZBOOK WHERE Z_PK = \(row); END"
        }
        let updated = "NSCoreDataDATriggerUpdatedAffectedObjectValue"
        XCTAssertEqual(triggers, [
            "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_INSERT AFTER INSERT ON ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = IFNULL(ZPAGESCOUNT, 0) + 1 WHERE Z_PK = NEW.ZBOOK; " + affected(updated, "NEW.ZBOOK"),
            "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_INCREMENT AFTER UPDATE OF ZBOOK ON ZPAGE FOR EACH ROW WHEN (NEW.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = ZPAGESCOUNT + 1 WHERE Z_PK = NEW.ZBOOK; " + affected(updated, "NEW.ZBOOK"),
            "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_UPDATE_DECREMENT AFTER UPDATE OF ZBOOK ON ZPAGE FOR EACH ROW WHEN (OLD.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = ZPAGESCOUNT - 1 WHERE Z_PK = OLD.ZBOOK; " + affected(updated, "OLD.ZBOOK"),
            "CREATE TRIGGER Z_DA_ZPAGE_Book_pagesCount_PARAMETER_DELETE AFTER DELETE ON ZPAGE FOR EACH ROW WHEN (OLD.ZBOOK NOT NULL) BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = ZPAGESCOUNT - 1 WHERE Z_PK = OLD.ZBOOK; " + affected(updated, "OLD.ZBOOK"),
            "CREATE TRIGGER Z_DA_ZBOOK_Book_pagesCount_SOURCE_INSERT AFTER INSERT ON ZBOOK FOR EACH ROW BEGIN UPDATE ZBOOK SET ZPAGESCOUNT = (SELECT IFNULL(COUNT(ZBOOK), 0) FROM ZPAGE WHERE ZBOOK = NEW.Z_PK) WHERE Z_PK = NEW.Z_PK; "
                + affected("NSCoreDataDATriggerInsertUpdatedAffectedObjectValue", "NEW.Z_PK"),
        ])
        XCTAssertNil(CoreDataLayout.derivationRefusal(of: layout.model))

        let db = try Database(path: ":memory:", mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        XCTAssertThrowsError(try db.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1)"), "plain SQLite has not the functions") { error in
            XCTAssertTrue("\(error)".contains("no such function: NSCoreDataDATriggerInsertUpdatedAffectedObjectValue"), "\(error)")
        }
        try CoreDataDerivedCount.registerFunctions(on: db)
        try db.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT) VALUES (1, 1, 1)")
        try db.execute("INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZPAGESCOUNT) VALUES (2, 2, 1, 42)")
        try db.execute("INSERT INTO ZPAGE (Z_PK, Z_ENT, Z_OPT, ZBOOK) VALUES (1, 3, 1, 1), (2, 3, 1, 1), (3, 3, 1, 2), (4, 3, 1, NULL)")
        XCTAssertEqual(try db.rows("SELECT Z_PK, ZPAGESCOUNT FROM ZBOOK ORDER BY 1"), [[.integer(1), .integer(2)], [.integer(2), .integer(1)]])
        try db.execute("UPDATE ZPAGE SET ZBOOK = 2 WHERE Z_PK = 2")
        try db.execute("DELETE FROM ZPAGE WHERE Z_PK = 1")
        try db.execute("UPDATE ZPAGE SET ZBOOK = 1 WHERE Z_PK = 4")
        XCTAssertEqual(try db.rows("SELECT Z_PK, ZPAGESCOUNT FROM ZBOOK ORDER BY 1"), [[.integer(1), .integer(1)], [.integer(2), .integer(2)]])
        XCTAssertEqual(try db.rows("SELECT Z_PK, ZPAGESCOUNT FROM ZBOOK ORDER BY 1"),
                       try db.rows("SELECT b.Z_PK, (SELECT count(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK) FROM ZBOOK b ORDER BY 1"))
    }

    /// A derivation of another kind has no known triggers: refused, naming it.
    func testAnUnknownDerivationIsNamed() throws {
        let layout = CoreDataLayout(model: try model(Self.derivedModel.replacingOccurrences(of: "pages.@count", with: "pages.@sum.number")))
        let refusal = CoreDataLayout.derivationRefusal(of: layout.model)
        XCTAssertTrue(refusal?.contains("Book.pagesCount (derivationExpression 'pages.@sum.number')") == true, "\(refusal ?? "nil")")
        XCTAssertFalse(layout.schemaSQL().contains { $0.hasPrefix("CREATE TRIGGER") })
    }
}
