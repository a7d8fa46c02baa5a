import Foundation
import XCTest
import ETLStore
import ETL

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
}
