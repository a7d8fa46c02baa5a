import XCTest
import ETLStore
@testable import ETLEngine
import ETLExpression

/// What a Core Data step keeps of its source's bookkeeping (`KeptBookkeeping`), as
/// statements built from parts: their text, and what they do to a store.
final class KeptBookkeepingTests: XCTestCase {
    func testKeptRowsTakeTheirSourceRowsSaveCount() throws {
        let update = KeptBookkeeping.keptSaveCounts(table: "ZNOTE", entities: [3, 2], from: "ZOLDNOTE")
        XCTAssertEqual(update.sql, #"UPDATE main."ZNOTE" SET "Z_OPT" = s."Z_OPT" FROM src."ZOLDNOTE" s "#
                       + #"WHERE s."Z_PK" = main."ZNOTE"."Z_PK" AND main."ZNOTE"."Z_ENT" IN (2, 3) AND s."Z_OPT" IS NOT main."ZNOTE"."Z_OPT""#)

        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("""
            ATTACH DATABASE ':memory:' AS src;
            CREATE TABLE src.ZOLDNOTE (Z_PK INTEGER PRIMARY KEY, Z_OPT INTEGER);
            INSERT INTO src.ZOLDNOTE VALUES (1, 7), (2, 4), (3, NULL);
            CREATE TABLE main.ZNOTE (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER);
            INSERT INTO main.ZNOTE VALUES (1, 2, 1), (2, 5, 1), (3, 3, 1), (4, 2, 1);
            """)
        try db.execute(update.sql)
        XCTAssertEqual(try db.rows("SELECT Z_PK, Z_OPT FROM main.ZNOTE ORDER BY Z_PK"),
                       [[.integer(1), .integer(7)], [.integer(2), .integer(1)], [.integer(3), .null], [.integer(4), .integer(1)]],
                       "rows of the entities named, under a source key, take its Z_OPT; another entity's and a new row keep theirs")
    }

    func testAnOrderedListTakesTheSourcesPositions() throws {
        let from = KeptBookkeeping.OrderedList(table: "Z_1ITEMS", owner: "Z_1LISTS", member: "Z_2ITEMS", order: "Z_FOK_2ITEMS")
        let into = KeptBookkeeping.OrderedList(table: "ZITEM", owner: "ZLIST", member: "Z_PK", order: "Z_FOK_LIST")
        let update = KeptBookkeeping.keptOrder(from: from, into: into)
        XCTAssertEqual(update.sql, #"UPDATE main."ZITEM" SET "Z_FOK_LIST" = s.v FROM (SELECT src."Z_1ITEMS"."Z_1LISTS" AS o, "#
                       + #"src."Z_1ITEMS"."Z_2ITEMS" AS m, src."Z_1ITEMS"."Z_FOK_2ITEMS" AS v FROM src."Z_1ITEMS" "#
                       + #"WHERE src."Z_1ITEMS"."Z_FOK_2ITEMS" IS NOT NULL AND src."Z_1ITEMS"."Z_1LISTS" IS NOT NULL) AS s "#
                       + #"WHERE main."ZITEM"."ZLIST" = s.o AND main."ZITEM"."Z_PK" = s.m AND main."ZITEM"."Z_FOK_LIST" IS NOT s.v"#)
        XCTAssertEqual(KeptBookkeeping.keptOrder(from: from, into: into), update, "one list's statement is written once")

        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("""
            ATTACH DATABASE ':memory:' AS src;
            CREATE TABLE src.Z_1ITEMS (Z_1LISTS INTEGER, Z_2ITEMS INTEGER, Z_FOK_2ITEMS INTEGER);
            INSERT INTO src.Z_1ITEMS VALUES (1, 10, 3072), (1, 11, 2048), (2, 12, NULL);
            CREATE TABLE main.ZITEM (Z_PK INTEGER PRIMARY KEY, ZLIST INTEGER, Z_FOK_LIST INTEGER);
            INSERT INTO main.ZITEM VALUES (10, 1, 2048), (11, 1, 3072), (12, 2, 2048), (13, 1, 4096);
            """)
        try db.execute(update.sql)
        XCTAssertEqual(try db.rows("SELECT Z_PK, Z_FOK_LIST FROM main.ZITEM ORDER BY Z_PK"),
                       [[.integer(10), .integer(3072)], [.integer(11), .integer(2048)], [.integer(12), .integer(2048)], [.integer(13), .integer(4096)]],
                       "a listed pair takes the source's position; one the source leaves unnumbered, or does not list, keeps its own")
    }
}
