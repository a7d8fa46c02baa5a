import Foundation
import XCTest
import ETLStore
import ETL
import ETLExpression

/// Given DuckDuckGo's Bookmarks V5 store (folder 8 lists its children 5, 10, 4, 1, 3; the
/// favourites folder 6 lists 3, 1, 9, 2, 10) and an explicit V5 → V6 step whose one mapping
/// has `"uniqueBy": "$source.uuid"` (so its rows do not keep their source keys) and sets the
/// ordered `children` and `favorites` from `destinations('B', $source.…)`, when it runs,
/// pushed down and row by row, then every folder's children and favourites come in the
/// source's order, with the source's positions, and no note says an order was lost. (They
/// came out in key order: 1, 3, 4, 5, 10.) With a filter that leaves bookmark 32 out, the
/// rows get other keys than their source rows, and the lists still keep their order.
final class UniqueByOrderTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Each ordered list as (owner's uuid, member's uuid, position), by owner and position.
    func lists(_ db: Database, schema: String, leaving left: String? = nil) throws -> (children: [[SQLValue]], favorites: [[SQLValue]]) {
        let without = left.map { " AND c.ZUUID <> '\($0)'" } ?? ""
        let children = try db.rows("""
            SELECT p.ZUUID, c.ZUUID, c.Z_FOK_PARENT FROM \(schema).ZBOOKMARKENTITY c JOIN \(schema).ZBOOKMARKENTITY p ON p.Z_PK = c.ZPARENT
            WHERE 1\(without) ORDER BY 1, 3
            """)
        let favorites = try db.rows("""
            SELECT p.ZUUID, c.ZUUID, f.Z_FOK_1FAVORITES FROM \(schema).Z_1FAVORITES f
            JOIN \(schema).ZBOOKMARKENTITY p ON p.Z_PK = f.Z_1FAVORITEFOLDERS JOIN \(schema).ZBOOKMARKENTITY c ON c.Z_PK = f.Z_1FAVORITES
            WHERE 1\(without) ORDER BY 1, 3
            """)
        return (children, favorites)
    }

    func pipeline(bookmarks: URL, out: String, filter: String?) throws -> String {
        let filterKey = filter.map { #""filter": "\#($0)", "# } ?? ""
        return try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                           source: bookmarks.appendingPathComponent("Bookmarks_V5.sqlite"), destination: out,
                                           version: "BookmarksModel 6", extra: """
            , "steps": [ { "from": "BookmarksModel 5", "to": "BookmarksModel 6", "mappings": [
                { "name": "B", "source": "BookmarkEntity", "destination": "BookmarkEntity", \(filterKey)"uniqueBy": "$source.uuid",
                  "attributes": { "isFolder": "$source.isFolder", "isPendingDeletion": "$source.isPendingDeletion",
                    "lastChildrenPayloadReceivedFromSync": "$source.lastChildrenPayloadReceivedFromSync",
                    "modifiedAt": "$source.modifiedAt", "title": "$source.title", "url": "$source.url", "uuid": "$source.uuid" },
                  "relationships": { "children": "destinations('B', $source.children)", "favorites": "destinations('B', $source.favorites)" } } ] } ]
            """)
    }

    func testTheUniqueByStepKeepsEveryFoldersOrder() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let store = bookmarks.appendingPathComponent("Bookmarks_V5.sqlite")
        for (filter, left) in [(nil, nil), ("$source.uuid != '32'", "32")] as [(String?, String?)] {
            for pushdown in [true, false] {
                let what = "filter \(filter ?? "none"), pushdown \(pushdown)"
                let out = folder.path("out-\(left ?? "all")-\(pushdown).sqlite")
                var migration = Migration(pipeline: try pipeline(bookmarks: bookmarks, out: out, filter: filter))
                migration.options.pushdown = pushdown
                let summary = try migration.run()
                XCTAssertFalse(summary.notes.contains { $0.contains("order of") }, "\(what): \(summary.notes)")
                let db = try Database(path: out, mode: .readOnly)
                try db.execute("ATTACH DATABASE \(SQLValue.text(store.path).sqlLiteral) AS old")
                if left != nil {
                    XCTAssertGreaterThan(try db.scalarInt("SELECT count(*) FROM main.ZBOOKMARKENTITY n JOIN old.ZBOOKMARKENTITY o USING (ZUUID) WHERE n.Z_PK <> o.Z_PK"), 0,
                                         "\(what): rows under other keys than their source rows")
                }
                let source = try lists(db, schema: "old", leaving: left), written = try lists(db, schema: "main")
                XCTAssertEqual(source.children.count, left == nil ? 8 : 7, what)
                XCTAssertEqual(written.children, source.children, what)
                XCTAssertEqual(written.favorites, source.favorites, what)
                db.close()
            }
        }
    }

    /// Lists A (items 3, 1) and B (items 2, 4) share a name, C (item 5) has its own: a step
    /// with `"uniqueBy": "$source.name"` on the lists makes one list of A and B, whose items
    /// come in A's order, then B's, numbered 2048, 3072, …; C's keeps its source positions.
    /// Pushed down and row by row.
    func testListsMergedByAUniqueByKeepTheirOrderOneAfterTheOther() throws {
        let entities = """
            <entity name="Item"><attribute name="title" optional="YES" attributeType="String"/>
                <relationship name="list" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="List" inverseName="items" inverseEntity="List"/></entity>
            <entity name="List"><attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="items" optional="YES" toMany="YES" ordered="YES" deletionRule="Nullify" destinationEntity="Item" inverseName="list" inverseEntity="Item"/></entity>
            """
        let bundle = folder.url.appendingPathComponent("Lists.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("l1", ModelBundleFiles.model(entities)), ("l2", ModelBundleFiles.model(entities.replacingOccurrences(
            of: #"<attribute name="name""#, with: #"<attribute name="seen" optional="YES" attributeType="Boolean"/><attribute name="name""#)))], current: "l2")
        let l1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "l1"))
        let source = folder.path("lists.sqlite")
        try writeEmptyCoreDataStore(of: l1, to: source)
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("INSERT INTO ZLIST (Z_PK, Z_ENT, Z_OPT, ZNAME) VALUES (1, 2, 1, 'x'), (2, 2, 1, 'x'), (3, 2, 1, 'y')")
        try db.execute("""
            INSERT INTO ZITEM (Z_PK, Z_ENT, Z_OPT, ZTITLE, ZLIST, Z_FOK_LIST) VALUES
              (1, 1, 1, 'i1', 1, 3072), (3, 1, 1, 'i3', 1, 2048), (2, 1, 1, 'i2', 2, 1024), (4, 1, 1, 'i4', 2, 9000), (5, 1, 1, 'i5', 3, 7777)
            """)
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 5 WHERE Z_NAME = 'Item'")
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_NAME = 'List'")
        db.close()
        for pushdown in [true, false] {
            let out = folder.path("lists-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: out,
                                                                            version: "l2", extra: """
                , "steps": [ { "from": "l1", "to": "l2", "mappings": [
                    { "name": "I", "source": "Item", "destination": "Item", "attributes": { "title": "$source.title" } },
                    { "name": "L", "source": "List", "destination": "List", "uniqueBy": "$source.name", "attributes": { "name": "$source.name" },
                      "relationships": { "items": "destinations('I', $source.items)" } } ] } ]
                """))
            migration.options.pushdown = pushdown
            let summary = try migration.run()
            XCTAssertFalse(summary.notes.contains { $0.contains("order of") }, "pushdown \(pushdown): \(summary.notes)")
            let written = try Database(path: out, mode: .readOnly)
            XCTAssertEqual(try written.rows("SELECT l.ZNAME, i.ZTITLE, i.Z_FOK_LIST FROM ZITEM i JOIN ZLIST l ON l.Z_PK = i.ZLIST ORDER BY 1, 3"),
                           [[.text("x"), .text("i3"), .integer(2048)], [.text("x"), .text("i1"), .integer(3072)],
                            [.text("x"), .text("i2"), .integer(4096)], [.text("x"), .text("i4"), .integer(5120)],
                            [.text("y"), .text("i5"), .integer(7777)]], "pushdown \(pushdown)")
            written.close()
        }
    }
}
