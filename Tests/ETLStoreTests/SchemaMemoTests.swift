import Foundation
import XCTest
@testable import ETLStore
import ETLTestSupport

/// The answers about a schema kept by its stored text (`SchemaMemo`): asked once per schema,
/// never stale when the schema changes.
final class SchemaMemoTests: XCTestCase {
    private var temporary: TemporaryFolder!

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-schema-memo") }
    override func tearDown() { temporary = nil }

    /// A store of `sql`, in a file of its own. The memo is shared by the process: a name made
    /// for the test keeps another test's schema from answering first.
    private func store(_ name: String, _ sql: String) throws -> String {
        let path = temporary.url.appendingPathComponent("\(name).sqlite").path
        let db = try Database(path: path, mode: .create)
        try db.execute(sql)
        return path
    }

    func testASecondStoreOfTheSameSchemaIsAnsweredWithoutAskingItsTablesOneByOne() throws {
        let table = "item_\(UUID().uuidString.prefix(8))"
        let sql = "CREATE TABLE \(table) (id INTEGER PRIMARY KEY, label TEXT NOT NULL); CREATE TABLE other (k TEXT PRIMARY KEY, v BLOB) WITHOUT ROWID; "
            + "CREATE VIEW seen AS SELECT * FROM \(table)"
        let first = try Database(path: try store("first", sql), mode: .readOnly)
        let second = try Database(path: try store("second", sql + "; INSERT INTO \(table) VALUES (1, 'a')"), mode: .readOnly)

        let asked = try first.tables()
        XCTAssertEqual(asked.map(\.name), [table, "other"])
        XCTAssertGreaterThan(first.statementsPrepared, 2, "the first store's tables are asked of SQLite, a table at a time")
        XCTAssertEqual(try second.tables(), asked)
        XCTAssertEqual(second.statementsPrepared, 1, "the second store reads its schema's text, and nothing else")
        // Every question of the memo, answered alike for both; the first asked SQLite.
        for db in [first, second] {
            XCTAssertEqual(try db.objectType(named: "seen"), "view")
            XCTAssertNil(try db.table(named: "seen"), "a view is not a table")
            XCTAssertEqual(try db.table(named: table)?.columns.map(\.name), ["id", "label"])
            XCTAssertEqual(try db.rowIDColumn(ofTable: table), "id")
            XCTAssertNil(try db.rowIDColumn(ofTable: "other"), "WITHOUT ROWID")
        }
        XCTAssertEqual(second.statementsPrepared, 1)
    }

    func testAChangedSchemaIsAskedAgainOnTheSameConnectionAndAfterAReadTransaction() throws {
        let table = "item_\(UUID().uuidString.prefix(8))"
        let path = try store("changing", "CREATE TABLE \(table) (id INTEGER PRIMARY KEY)")
        let db = try Database(path: path, mode: .readWrite)
        XCTAssertEqual(try db.table(named: table)?.columns.map(\.name), ["id"])
        try db.execute("ALTER TABLE \(table) ADD COLUMN label TEXT")
        XCTAssertEqual(try db.table(named: table)?.columns.map(\.name), ["id", "label"])

        // A read-only connection keeps its schema's text over a read transaction (nothing can
        // change it meanwhile), and reads it again after.
        let reader = try Database(path: path, mode: .readOnly)
        let reading = try reader.beginReading()
        XCTAssertEqual(try reader.tables().map(\.name), [table])
        XCTAssertEqual(try reader.objectType(named: "added"), nil)
        reading.end()
        try db.execute("CREATE TABLE added (x)")
        XCTAssertEqual(try reader.tables().map(\.name), ["added", table])
        XCTAssertEqual(try reader.objectType(named: "added"), "table")
    }

    func testANameThatIsAnIndexInOneStoreAndAViewInAnotherIsAnsweredForEach() throws {
        let suffix = UUID().uuidString.prefix(8)
        let a = try Database(path: try store("a", "CREATE TABLE t\(suffix) (x); CREATE INDEX i ON t\(suffix) (x)"), mode: .readOnly)
        let b = try Database(path: try store("b", "CREATE TABLE t\(suffix) (x); CREATE VIEW i AS SELECT 1"), mode: .readOnly)
        XCTAssertEqual(try a.objectType(named: "i"), "index")
        XCTAssertEqual(try b.objectType(named: "i"), "view")
        XCTAssertNotEqual(try a.storedSchema(), try b.storedSchema())
    }

    func testAFullMemoStartsAgainAndKeepsTheSchemasThatCameSince() {
        let memo = SchemaMemo(capacity: 2)
        var made = 0
        func ask(_ schema: String) -> Int {
            memo.answer("q", schema: StoredSchema(bytes: Array(schema.utf8))) { made += 1; return made }
        }
        XCTAssertEqual([ask("a"), ask("b"), ask("a")], [1, 2, 1])
        XCTAssertEqual(ask("c"), 3, "a third schema: the memo starts again")
        XCTAssertEqual([ask("c"), ask("a"), ask("a"), ask("c")], [3, 4, 4, 3])
        XCTAssertEqual(ask("b"), 5)
    }
}
