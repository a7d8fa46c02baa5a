import XCTest
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression
import ETL

/// A join table whose pairs keep both keys, copied whole from the source (`VerbatimLinks`),
/// gives the store the relate statement gives pair by pair; where the copy would not (a
/// pair to a missing row, another shape) the statement runs. (The kill tests stop runs inside the copy: `KillResumeTests`, step 1's
/// relate of Books.)
final class VerbatimLinksTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!

    override func setUpWithError() throws {
        folder = try TemporaryFolder()
        source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 1200, seed: 11, to: source)
    }

    override func tearDown() { folder = nil }

    /// The books v1 → v2 step (its Book ↔ User links copied from v1's `Book_users`) into
    /// `name`, inside SQLite or row by row; returns the summary and how many tables were
    /// copied whole.
    func run(into name: String, pushdown: Bool = true) throws -> (summary: RunSummary, copied: Int) {
        var migration = Migration(pipeline: repositoryPath("Benchmarks/pipelines/books-v1-v2.json"))
        migration.source = source
        migration.destination = folder.path(name)
        migration.pushdown = pushdown
        migration.chunkSize = 3
        // A pair to no row is a reject (issue 45): `testAPairToAMissingRowIsNotCopied` makes one.
        migration.options.maxRejects = 1
        let events = EngineEvents()
        migration.options.tuning.observe = events.observe
        let summary = try migration.run()
        return (summary, events.joinTablesCopiedWhole.count)
    }

    func edit(_ sql: String) throws {
        let db = try Database(path: source, mode: .readWrite)
        defer { db.close() }
        try db.execute(sql)
    }

    /// The store inside SQLite against the row-by-row one, and its index against its table;
    /// returns how many tables it copied whole.
    @discardableResult
    func assertSameAsRowByRow(_ name: String, file: StaticString = #filePath, line: UInt = #line) throws -> Int {
        let pushed = try run(into: name)
        let rows = try run(into: "rows-\(name)", pushdown: false)
        try assertSameStore(folder.path(name), folder.path("rows-\(name)"), file: file, line: line)
        XCTAssertEqual(pushed.summary.mappings.map(\.related), rows.summary.mappings.map(\.related), file: file, line: line)
        let db = try Database(path: folder.path(name), mode: .readOnly)
        defer { db.close() }
        XCTAssertEqual(try db.rows("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Book_users'"),
                       [[.text("Book_users_target_index")]], file: file, line: line)
        XCTAssertEqual(try db.rows("PRAGMA integrity_check"), [[.text("ok")]], "the index holds the table's pairs", file: file, line: line)
        return pushed.copied
    }

    func testAJoinTableOfKeptKeysIsCopiedWhole() throws {
        XCTAssertEqual(try assertSameAsRowByRow("copied.sqlite"), 1, "Book_users")
        let db = try Database(path: folder.path("copied.sqlite"), mode: .readOnly)
        defer { db.close() }
        let links = try Database(path: source, mode: .readOnly).scalarInt("SELECT count(*) FROM Book_users")
        XCTAssertGreaterThan(links, 1000)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book_users"), links)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book_users INDEXED BY Book_users_target_index WHERE target_id > 0"), links)
    }

    /// A pair naming a user that is not there: the statement skips it, a copy would not.
    /// (A pair the source's index hides, in a damaged store, is found alike: the copy is
    /// checked in the new table; `HostileStoreTests`' flipped bytes meet it.)
    func testAPairToAMissingRowIsNotCopied() throws {
        let users = try Database(path: source, mode: .readOnly).scalarInt("SELECT max(id) FROM User")
        // Past the last user, below the first, a book that is not there, a real between two
        // users (a key range holds it, no row has it), a text.
        for (number, pair) in ["(1, \(users + 1))", "(2, 0)", "(99999, 1)", "(3, 1.5)", "(4, 'x')"].enumerated() {
            try BooksSample.write(rows: 1200, seed: 11, to: source)
            try edit("INSERT INTO Book_users VALUES \(pair)")
            XCTAssertEqual(try assertSameAsRowByRow("dangling-\(number).sqlite"), 0, pair)
            let db = try Database(path: folder.path("dangling-\(number).sqlite"), mode: .readOnly)
            defer { db.close() }
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book_users WHERE source_id = 99999 OR target_id NOT BETWEEN 1 AND \(users) "
                                            + "OR typeof(target_id) <> 'integer'"), 0, pair)
        }
    }

    /// Another shape than the destination's: the statement runs, with the same rows.
    func testAJoinTableOfAnotherShapeIsNotCopied() throws {
        let shapes = [
            // The columns the other way round. (The key too: SQLite 3.40's quick check finds
            // nulls in a WITHOUT ROWID table whose key columns are not its first ones.)
            """
            CREATE TABLE t ("target_id" INTEGER NOT NULL, "source_id" INTEGER NOT NULL, PRIMARY KEY ("target_id", "source_id")) WITHOUT ROWID;
            INSERT INTO t SELECT target_id, source_id FROM Book_users; DROP TABLE Book_users; ALTER TABLE t RENAME TO Book_users;
            CREATE INDEX Book_users_target_index ON Book_users (target_id)
            """,
            // A rowid table: its rowids would be copied, not numbered anew.
            """
            CREATE TABLE t ("source_id" INTEGER NOT NULL, "target_id" INTEGER NOT NULL, PRIMARY KEY ("source_id", "target_id"));
            INSERT INTO t SELECT * FROM Book_users; DROP TABLE Book_users; ALTER TABLE t RENAME TO Book_users;
            CREATE INDEX Book_users_target_index ON Book_users (target_id)
            """,
        ]
        for (number, shape) in shapes.enumerated() {
            try BooksSample.write(rows: 1200, seed: 11, to: source)
            try edit(shape)
            XCTAssertEqual(try assertSameAsRowByRow("shape-\(number).sqlite"), 0, shape)
        }
    }
}
