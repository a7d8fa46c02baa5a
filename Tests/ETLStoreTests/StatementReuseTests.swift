import Foundation
import XCTest
@testable import ETLStore
import ETLTestSupport

/// The statements `rows`, `scalarInt` and `run` keep prepared (`StatementCache`), and the
/// read transactions that take a file's lock once for many reads (`Database.ReadTransaction`).
final class StatementReuseTests: XCTestCase {
    private var temporary: TemporaryFolder!

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-statement-reuse") }
    override func tearDown() { temporary = nil }

    private func store() throws -> String {
        let path = temporary.url.appendingPathComponent("store.sqlite").path
        let db = try Database(path: path, mode: .create)
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT); INSERT INTO item VALUES (1, 'a'), (2, 'b')")
        return path
    }

    func testATextRunAgainReusesItsStatementWithNothingLeftOfItsLastRun() throws {
        let db = try Database(path: try store(), mode: .readWrite)
        XCTAssertEqual(try db.rows("SELECT ?1, ?2", [.integer(1), .integer(2)]), [[.integer(1), .integer(2)]])
        let prepared = db.statementsPrepared
        // Fewer values than the last run: the missing one is null, not the last run's.
        XCTAssertEqual(try db.rows("SELECT ?1, ?2", [.integer(3)]), [[.integer(3), .null]])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 2)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 2)
        XCTAssertEqual(db.statementsPrepared, prepared + 1, "only the count's text is new")
        // Run to its end each time, so a write in between is seen.
        try db.run("INSERT INTO item VALUES (?, ?)", [.integer(3), .text("c")])
        try db.run("INSERT INTO item VALUES (?, ?)", [.integer(4), .text("d")])
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 4)
        XCTAssertEqual(db.statementsPrepared, prepared + 2)
    }

    func testAStatementThatFailedIsNotKeptAndASchemaChangeIsSeen() throws {
        let db = try Database(path: try store(), mode: .readWrite)
        XCTAssertThrowsError(try db.run("INSERT INTO item VALUES (?, ?)", [.integer(1), .text("again")]))  // key taken
        let prepared = db.statementsPrepared
        try db.run("INSERT INTO item VALUES (?, ?)", [.integer(9), .text("new")])
        XCTAssertEqual(db.statementsPrepared, prepared + 1, "the failed statement was prepared again")
        XCTAssertEqual(try db.rows("SELECT * FROM item WHERE id = 9"), [[.integer(9), .text("new")]])
        try db.execute("ALTER TABLE item ADD COLUMN extra TEXT DEFAULT 'x'")
        XCTAssertEqual(try db.rows("SELECT * FROM item WHERE id = 9"), [[.integer(9), .text("new"), .text("x")]])
    }

    func testCloseLetsGoOfTheFileThoughStatementsWereKept() throws {
        let path = try store()
        let db = try Database(path: path, mode: .readWrite)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 2)
        db.close()
        // A kept statement would keep a closed connection's file open (SQLite's zombie
        // connection): a kept statement is finalized first, so nothing is kept after.
        XCTAssertEqual(db.statementsKept, 0)
    }

    func testAReadTransactionHoldsTheLockUntilItEnds() throws {
        let path = try store()
        let reader = try Database(path: path, mode: .readOnly)
        let writer = try Database(path: path, mode: .readWrite, busyTimeout: 0)
        let reading = try reader.beginReading()
        XCTAssertEqual(try reader.scalarInt("SELECT count(*) FROM item"), 2)
        XCTAssertEqual(try reader.scalarInt("SELECT count(*) FROM item"), 2)
        // One state of the file for every read: a writer cannot commit meanwhile.
        XCTAssertThrowsError(try writer.run("INSERT INTO item VALUES (3, 'c')"))
        // Inside a transaction already, another read transaction does nothing of its own.
        XCTAssertEqual(try reader.reading { try reader.scalarInt("SELECT count(*) FROM item") }, 2)
        XCTAssertThrowsError(try writer.run("INSERT INTO item VALUES (3, 'c')"), "the inner end did not end the outer transaction")
        reading.end()
        try writer.run("INSERT INTO item VALUES (3, 'c')")
        XCTAssertEqual(try reader.scalarInt("SELECT count(*) FROM item"), 3)
    }
}
