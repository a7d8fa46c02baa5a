import XCTest
import ETLStore
@testable import ETLEngine
import ETLExpression

/// The push-down's statement parts render the SQL they stand for, each on its own.
final class SQLStatementPartsTests: XCTestCase {
    let books = SQLTable.source("ZBOOK", alias: "s")

    func testATableIsNamedWithItsSchemaAndAlias() {
        XCTAssertEqual(books.sql, #"src."ZBOOK" s"#)
        XCTAssertEqual(books.column("ZTITLE"), #"s."ZTITLE""#)
        XCTAssertEqual(SQLTable.main(#"Odd "name""#).sql, #"main."Odd ""name""""#)
        XCTAssertEqual(SQLTable.main("Book").column("id"), #"main."Book"."id""#)
    }

    func testASelectWritesOnlyTheClausesItHas() {
        XCTAssertEqual(SQLSelect(["count(*)"], from: books).sql, #"SELECT count(*) FROM src."ZBOOK" s"#)
        let bound = SQLSelect([books.column("Z_PK")], from: books, where: ["s.\"Z_ENT\" = 2", "s.\"Z_PK\" >= ?1"],
                              orderBy: [books.column("Z_PK")], limit: "1", offset: "?2")
        XCTAssertEqual(bound.sql, #"SELECT s."Z_PK" FROM src."ZBOOK" s WHERE s."Z_ENT" = 2 AND s."Z_PK" >= ?1 ORDER BY s."Z_PK" LIMIT 1 OFFSET ?2"#)
        XCTAssertEqual(bound.count.sql, #"SELECT count(*) FROM src."ZBOOK" s WHERE s."Z_ENT" = 2 AND s."Z_PK" >= ?1"#,
                       "the same rows counted: no order, no limit")
        let joined = SQLSelect(["j.\"Z_2BOOKS\""], from: books, joins: [.cross(.source("Z_1BOOKS", alias: "j"), on: [#"j."Z_1AUTHORS" = s."Z_PK""#])],
                               distinct: true).filtered(["j.\"Z_2BOOKS\" IS NOT NULL"])
        XCTAssertEqual(joined.sql, #"SELECT DISTINCT j."Z_2BOOKS" FROM src."ZBOOK" s CROSS JOIN src."Z_1BOOKS" j ON j."Z_1AUTHORS" = s."Z_PK" WHERE j."Z_2BOOKS" IS NOT NULL"#)
    }

    func testAnInsertOfASelectAndAnUpdateFrom() throws {
        let select = SQLSelect([books.column("Z_PK"), "upper(s.\"ZTITLE\")"], from: books, where: ["s.\"Z_PK\" >= ?1", "s.\"Z_PK\" <= ?2"])
        let insert = SQLInsert(into: .main("ZBOOK"), columns: ["Z_PK", "ZTITLE"], select, conflict: .ignore)
        XCTAssertEqual(insert.sql, #"INSERT OR IGNORE INTO main."ZBOOK" ("Z_PK", "ZTITLE") SELECT s."Z_PK", upper(s."ZTITLE") FROM src."ZBOOK" s WHERE s."Z_PK" >= ?1 AND s."Z_PK" <= ?2"#)
        let update = SQLUpdate(.main("ZBOOK"), set: [(column: "ZAUTHOR", value: "k.destination")], from: .table(.work("unique_key", alias: "k")),
                               where: [#"k.source = main."ZBOOK"."Z_PK""#])
        XCTAssertEqual(update.sql, #"UPDATE main."ZBOOK" SET "ZAUTHOR" = k.destination FROM work.unique_key k WHERE k.source = main."ZBOOK"."Z_PK""#)
        let grouped = SQLSelect(["o", "min(t)"], from: .select(SQLSelect(["a AS o", "b AS t"], from: .main("x")), alias: "x"), groupBy: ["1"])
        XCTAssertEqual(grouped.sql, #"SELECT o, min(t) FROM (SELECT a AS o, b AS t FROM main."x") AS x GROUP BY 1"#)
        XCTAssertEqual(SQLTable.source("Z_1BOOKS", alias: "p", notIndexed: true).sql, #"src."Z_1BOOKS" p NOT INDEXED"#)

        // And SQLite runs what they render.
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute(#"ATTACH DATABASE ':memory:' AS src; CREATE TABLE src."ZBOOK" ("Z_PK" INTEGER PRIMARY KEY, "ZTITLE" TEXT); "#
                       + #"CREATE TABLE main."ZBOOK" ("Z_PK" INTEGER PRIMARY KEY, "ZTITLE" TEXT); INSERT INTO src."ZBOOK" VALUES (1, 'a'), (2, 'b'), (3, 'c')"#)
        try db.run(insert.sql, [.integer(2), .integer(3)])
        XCTAssertEqual(try db.rows(#"SELECT * FROM main."ZBOOK""#), [[.integer(2), .text("B")], [.integer(3), .text("C")]])
    }

    /// Statements are told apart by their parts (`AheadWork` keys its work by them).
    func testStatementsAreTheSameWhenTheirPartsAre() {
        func update(_ value: String) -> SQLUpdate {
            SQLUpdate(.main("ZBOOK"), set: [(column: "ZAUTHOR", value: value)], from: .table(.work("unique_key", alias: "k")), where: ["k.source = 1"])
        }
        XCTAssertEqual(update("k.destination"), update("k.destination"))
        XCTAssertEqual(Set([update("k.destination"), update("k.destination")]).count, 1)
        XCTAssertNotEqual(update("k.destination"), update("k.source"))
        var other = update("k.destination")
        other.assignments = [(column: "ZEDITOR", value: "k.destination")]
        XCTAssertNotEqual(update("k.destination"), other)
        let select = SQLSelect(["1"], from: books)
        XCTAssertEqual(Set([SQLInsert(into: .main("ZBOOK"), columns: ["Z_PK"], select), SQLInsert(into: .main("ZBOOK"), columns: ["Z_PK"], select)]).count, 1)
        XCTAssertNotEqual(SQLInsert(into: .main("ZBOOK"), columns: ["Z_PK"], select), SQLInsert(into: .main("ZBOOK"), columns: ["Z_PK"], select, conflict: .ignore))
    }
}
