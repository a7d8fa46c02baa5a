import Foundation
import XCTest
import ETLStore
import ETLTestSupport

final class DatabaseTests: XCTestCase {
    private var temporary: TemporaryFolder!
    private var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-store-tests") }
    override func tearDown() { temporary = nil }

    private func path(_ name: String) -> String {
        folder.appendingPathComponent(name).path
    }

    /// Runs `body`, expecting it to throw a `StoreError`, and returns that error.
    private func storeError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> StoreError? {
        thrownError(StoreError.self, file: file, line: line) { try body() }
    }

    private func makeStore(_ name: String, rows: Int = 1) throws -> String {
        let p = path(name)
        let db = try Database(path: p, mode: .create)
        try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT NOT NULL)")
        let insert = try db.prepare("INSERT INTO item (id, label) VALUES (?, ?)")
        try db.transaction {
            for i in 0..<rows {
                try insert.run([.integer(Int64(i + 1)), .text("item number \(i + 1) with some padding text")])
            }
        }
        return p
    }

    // MARK: Open modes

    func testReadOnlyConnectionRefusesWritesWithErrorNamingThePath() throws {
        let p = try makeStore("source.sqlite", rows: 3)
        let db = try Database(path: p, mode: .readOnly)
        XCTAssertEqual(db.path, p)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 3, "reading must work")

        let viaExecute = storeError { try db.execute("INSERT INTO item (id, label) VALUES (99, 'x')") }
        XCTAssertEqual(viaExecute?.code, SQLiteCode.readOnly)
        XCTAssertEqual(viaExecute?.path, p)
        XCTAssertTrue(viaExecute?.description.contains(p) ?? false, viaExecute?.description ?? "")

        let viaStatement = storeError { try db.run("DELETE FROM item WHERE id = ?", [.integer(1)]) }
        XCTAssertEqual(viaStatement?.code, SQLiteCode.readOnly)
        XCTAssertEqual(viaStatement?.path, p)
        XCTAssertEqual(viaStatement?.sql, "DELETE FROM item WHERE id = ?")

        let viaSchema = storeError { try db.execute("CREATE TABLE other (x)") }
        XCTAssertEqual(viaSchema?.code, SQLiteCode.readOnly)

        // Nothing changed, seen through another connection.
        let check = try Database(path: p, mode: .readOnly)
        XCTAssertEqual(try check.scalarInt("SELECT count(*) FROM item"), 3)
        XCTAssertEqual(try check.tables().map(\.name), ["item"])
    }

    func testReadWriteOnMissingFileFailsAndCreatesNothing() throws {
        let p = path("missing.sqlite")
        let error = storeError { _ = try Database(path: p, mode: .readWrite) }
        XCTAssertEqual(error?.code, SQLiteCode.cantOpen)
        XCTAssertEqual(error?.path, p)
        XCTAssertTrue(error?.description.contains(p) ?? false)
        XCTAssertFalse(FileManager.default.fileExists(atPath: p))
    }

    func testReadOnlyOnMissingFileFails() throws {
        let p = path("missing-too.sqlite")
        let error = storeError { _ = try Database(path: p, mode: .readOnly) }
        XCTAssertEqual(error?.code, SQLiteCode.cantOpen)
        XCTAssertFalse(FileManager.default.fileExists(atPath: p))
    }

    func testCreateCreatesTheFileAndReadWriteReopensIt() throws {
        let p = path("new.sqlite")
        XCTAssertFalse(FileManager.default.fileExists(atPath: p))
        do {
            let db = try Database(path: p, mode: .create)
            try db.execute("CREATE TABLE t (x INTEGER)")
            try db.run("INSERT INTO t VALUES (?)", [.integer(7)])
            XCTAssertEqual(db.changes, 1)
            XCTAssertEqual(db.lastInsertRowID, 1)
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: p))
        let reopened = try Database(path: p, mode: .readWrite)
        XCTAssertEqual(try reopened.scalarInt("SELECT x FROM t"), 7)
        try reopened.run("INSERT INTO t VALUES (8)")
        XCTAssertEqual(try reopened.scalarInt("SELECT sum(x) FROM t"), 15)
    }

    func testPathIsTakenLiterallyNotAsURI() throws {
        // A name that would mean something in a URI ('?', '#', '%') must still be a plain file name.
        let p = path("odd name?mode=ro#x%20y.sqlite")
        let db = try Database(path: p, mode: .create)
        try db.execute("CREATE TABLE t (x)")
        XCTAssertTrue(FileManager.default.fileExists(atPath: p))
    }

    // MARK: checkReadable

    func testCheckReadableOnTextFileReportsNotADatabase() throws {
        let p = path("notes.sqlite")
        let text = String(repeating: "This is a plain text file, not a database.\n", count: 100)
        try Data(text.utf8).write(to: URL(fileURLWithPath: p))
        // Opening is lazy: it succeeds, the first read fails.
        let db = try Database(path: p, mode: .readOnly)
        let error = storeError { try db.checkReadable() }
        XCTAssertEqual(error?.code, SQLiteCode.notADatabase)
        XCTAssertEqual(error?.code, 26)
        XCTAssertEqual(error?.path, p)
        XCTAssertTrue(error?.description.contains(p) ?? false)
    }

    func testCheckReadableOnTruncatedStoreFailsWithoutCrashing() throws {
        let p = try makeStore("big.sqlite", rows: 5_000)
        let pageSize: Int
        do {
            let db = try Database(path: p, mode: .readOnly)
            pageSize = Int(try db.scalarInt("PRAGMA page_size"))
            XCTAssertGreaterThan(try db.scalarInt("PRAGMA page_count"), 10, "the store must span many pages")
            XCTAssertNoThrow(try db.checkReadable())
        }
        let full = try Data(contentsOf: URL(fileURLWithPath: p))
        let truncatedPath = path("truncated.sqlite")
        try full.prefix(3 * pageSize).write(to: URL(fileURLWithPath: truncatedPath))
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: truncatedPath)).count, 3 * pageSize)

        let db = try Database(path: truncatedPath, mode: .readOnly)
        let error = storeError { try db.checkReadable() }
        XCTAssertNotNil(error)
        XCTAssertEqual(error?.path, truncatedPath)
        XCTAssertTrue([SQLiteCode.corrupt, SQLiteCode.notADatabase].contains(error?.code ?? 0),
                      "expected corrupt or not-a-database, got \(String(describing: error))")
        // Reading the data itself fails too, again as an error.
        XCTAssertThrowsError(try db.rows("SELECT * FROM item")) { XCTAssertTrue($0 is StoreError) }
    }

    func testCheckReadableOnEmptyAndRealStoresSucceeds() throws {
        let p = try makeStore("ok.sqlite")
        XCTAssertNoThrow(try Database(path: p, mode: .readOnly).checkReadable())
        let emptyPath = path("empty.sqlite")
        XCTAssertTrue(FileManager.default.createFile(atPath: emptyPath, contents: Data()))
        XCTAssertNoThrow(try Database(path: emptyPath, mode: .readOnly).checkReadable(), "an empty file is an empty database")
    }

    // MARK: Statements

    private static let samples: [(value: SQLValue, type: String)] = [
        (.null, "null"),
        (.integer(0), "integer"),
        (.integer(-1), "integer"),
        (.integer(Int64.min), "integer"),
        (.integer(Int64.max), "integer"),
        (.real(1.5), "real"),
        (.real(-0.25), "real"),
        (.real(Double.pi), "real"),
        (.real(1e300), "real"),
        (.real(-Double.greatestFiniteMagnitude), "real"),
        (.real(Double.leastNonzeroMagnitude), "real"),
        (.text(""), "text"),
        (.text("plain ascii"), "text"),
        (.text("before\u{0}after a NUL"), "text"),
        (.text("héllo wörld — 日本語 🚀 👩‍💻 ﬁ"), "text"),
        (.text("it's \"quoted\""), "text"),
        (.blob([]), "blob"),
        (.blob([0x00, 0x01, 0x7F, 0x80, 0xFF, 0x00]), "blob"),
        (.blob(Array(repeating: 0xAB, count: 10_000)), "blob"),
    ]

    func testBindAndStepRoundTripOfEveryValue() throws {
        let db = try Database(path: ":memory:", mode: .create)
        let select = try db.prepare("SELECT ?1, typeof(?1)")
        XCTAssertEqual(select.columnCount, 2)
        for (value, type) in Self.samples {
            try select.bind([value])
            XCTAssertTrue(try select.step())
            XCTAssertEqual(select.value(0), value)
            XCTAssertEqual(select.text(1), type, "storage class of \(value.sqlLiteral.prefix(40))")
            XCTAssertEqual(select.isNull(0), value.isNull)
            XCTAssertFalse(try select.step(), "one row only")
            select.reset()
        }
    }

    func testValuesSurviveStorageInATable() throws {
        let db = try Database(path: path("values.sqlite"), mode: .create)
        try db.execute("CREATE TABLE v (n INTEGER PRIMARY KEY, x)")
        let insert = try db.prepare("INSERT INTO v (n, x) VALUES (?, ?)")
        try db.transaction {
            for (n, sample) in Self.samples.enumerated() {
                try insert.run([.integer(Int64(n)), sample.value])
            }
        }
        let rows = try db.rows("SELECT x, typeof(x) FROM v ORDER BY n")
        XCTAssertEqual(rows.map { $0[0] }, Self.samples.map(\.value))
        XCTAssertEqual(rows.map { $0[1] }, Self.samples.map { .text($0.type) })
    }

    func testTypedColumnAccessors() throws {
        let db = try Database(path: ":memory:", mode: .create)
        let stmt = try db.prepare("SELECT ? AS i, ? AS d, ? AS t, ? AS b, ? AS e, NULL AS n")
        try stmt.bind([.integer(Int64.min), .real(-2.5), .text("ünï"), .blob([1, 2, 3]), .blob([])])
        XCTAssertTrue(try stmt.step())
        XCTAssertEqual((0..<stmt.columnCount).map(stmt.columnName), ["i", "d", "t", "b", "e", "n"])
        XCTAssertEqual(stmt.int64(0), Int64.min)
        XCTAssertEqual(stmt.double(1), -2.5)
        XCTAssertEqual(stmt.text(2), "ünï")
        XCTAssertEqual(stmt.blob(3), [1, 2, 3])
        XCTAssertEqual(stmt.blob(4), [])
        XCTAssertFalse(stmt.isNull(4), "an empty blob is not NULL")
        XCTAssertTrue(stmt.isNull(5))
        XCTAssertNil(stmt.text(5))
        XCTAssertEqual(stmt.value(5), .null)
    }

    func testBindAtIndexAndResetClearsBindings() throws {
        let db = try Database(path: ":memory:", mode: .create)
        let stmt = try db.prepare("SELECT ?, ?")
        try stmt.bind(.text("second"), at: 2)
        try stmt.bind(.integer(1), at: 1)
        XCTAssertTrue(try stmt.step())
        XCTAssertEqual(stmt.value(0), .integer(1))
        XCTAssertEqual(stmt.value(1), .text("second"))
        stmt.reset()
        XCTAssertTrue(try stmt.step())
        XCTAssertEqual(stmt.value(0), .null, "reset clears the bindings")
        XCTAssertEqual(stmt.value(1), .null)
        stmt.reset()
        XCTAssertThrowsError(try stmt.bind(.integer(1), at: 3)) { error in
            XCTAssertEqual((error as? StoreError)?.code, 25, "SQLITE_RANGE")
        }
    }

    func testPreparedStatementIsReusableAfterAFailedStep() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE u (k TEXT PRIMARY KEY)")
        let insert = try db.prepare("INSERT INTO u (k) VALUES (?)")
        try insert.run([.text("a")])
        let error = storeError { try insert.run([.text("a")]) }
        XCTAssertEqual(error?.code, SQLiteCode.constraint)
        XCTAssertEqual(error?.sql, "INSERT INTO u (k) VALUES (?)")
        try insert.run([.text("b")])
        XCTAssertEqual(try db.rows("SELECT k FROM u ORDER BY k"), [[.text("a")], [.text("b")]])
    }

    func testScalarIntAndRows() throws {
        let db = try Database(path: ":memory:", mode: .create)
        XCTAssertEqual(try db.scalarInt("SELECT 40 + ?", [.integer(2)]), 42)
        XCTAssertEqual(try db.scalarInt("SELECT 1 WHERE 0"), 0, "no row gives 0")
        XCTAssertEqual(try db.rows("SELECT 1, 'a' UNION ALL SELECT 2, 'b'"), [[.integer(1), .text("a")], [.integer(2), .text("b")]])
        XCTAssertEqual(try db.rows("SELECT 1 WHERE 0"), [])
    }

    // MARK: Transactions

    private struct Abort: Error {}

    func testTransactionCommitsOnReturn() throws {
        let p = try makeStore("tx.sqlite", rows: 0)
        let db = try Database(path: p, mode: .readWrite)
        let result = try db.transaction { () throws -> Int in
            try db.run("INSERT INTO item (id, label) VALUES (1, 'one')")
            try db.run("INSERT INTO item (id, label) VALUES (2, 'two')")
            return 42
        }
        XCTAssertEqual(result, 42)
        let other = try Database(path: p, mode: .readOnly)
        XCTAssertEqual(try other.rows("SELECT id, label FROM item ORDER BY id"),
                       [[.integer(1), .text("one")], [.integer(2), .text("two")]])
    }

    func testTransactionRollsBackOnThrow() throws {
        let p = try makeStore("rollback.sqlite", rows: 1)
        let db = try Database(path: p, mode: .readWrite)
        XCTAssertThrowsError(try db.transaction {
            try db.run("INSERT INTO item (id, label) VALUES (10, 'ten')")
            try db.run("UPDATE item SET label = 'changed' WHERE id = 1")
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 2, "visible inside the transaction")
            throw Abort()
        }) { error in
            XCTAssertTrue(error is Abort, "the body's own error is rethrown, got \(error)")
        }
        XCTAssertEqual(try db.rows("SELECT id, label FROM item"), [[.integer(1), .text("item number 1 with some padding text")]])
        let other = try Database(path: p, mode: .readOnly)
        XCTAssertEqual(try other.scalarInt("SELECT count(*) FROM item WHERE id = 10"), 0)

        // The connection is not left inside a transaction: a new one can begin and commit.
        try db.transaction { try db.run("INSERT INTO item (id, label) VALUES (11, 'eleven')") }
        XCTAssertEqual(try other.scalarInt("SELECT count(*) FROM item WHERE id = 11"), 1)
    }

    func testTransactionRollsBackWhenAStatementFails() throws {
        let p = try makeStore("fail.sqlite", rows: 1)
        let db = try Database(path: p, mode: .readWrite)
        let error = storeError {
            try db.transaction {
                try db.run("INSERT INTO item (id, label) VALUES (2, 'two')")
                try db.run("INSERT INTO item (id, label) VALUES (3, NULL)")
            }
        }
        XCTAssertEqual(error?.code, SQLiteCode.constraint)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 1)
    }

    // MARK: Errors

    func testStoreErrorDescriptionNamesPathAndSQL() throws {
        let p = path("errors.sqlite")
        let db = try Database(path: p, mode: .create)
        let sql = "SELEKT * FROM nowhere"
        let prepareError = storeError { _ = try db.prepare(sql) }
        XCTAssertEqual(prepareError?.sql, sql)
        XCTAssertEqual(prepareError?.code, 1)
        let description = prepareError?.description ?? ""
        XCTAssertTrue(description.hasPrefix(p + ": "), description)
        XCTAssertTrue(description.contains("while running: " + sql), description)
        XCTAssertTrue(description.contains("SQLite code 1"), description)

        let execError = storeError { try db.execute("SELECT * FROM missing_table") }
        XCTAssertTrue(execError?.message.contains("missing_table") ?? false)
        XCTAssertTrue(execError?.description.contains(p) ?? false)
        XCTAssertTrue(execError?.description.contains("SELECT * FROM missing_table") ?? false)

        let bare = StoreError(path: "/x/y.sqlite", code: 14, message: "unable to open database file")
        XCTAssertEqual(bare.description, "/x/y.sqlite: unable to open database file (SQLite code 14)")

        let long = StoreError(path: "p", code: 1, message: "m", sql: String(repeating: "a", count: 1_000))
        XCTAssertEqual(long.description, "p: m (SQLite code 1)\n  while running: " + String(repeating: "a", count: 300))
    }

    func testExtendedResultCodesAreReducedToPrimaryCodes() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, x NOT NULL)")
        // SQLITE_CONSTRAINT_NOTNULL (1299) and SQLITE_CONSTRAINT_PRIMARYKEY (1555) both report 19.
        XCTAssertEqual(storeError { try db.run("INSERT INTO t (id, x) VALUES (1, NULL)") }?.code, SQLiteCode.constraint)
        try db.run("INSERT INTO t (id, x) VALUES (1, 1)")
        XCTAssertEqual(storeError { try db.run("INSERT INTO t (id, x) VALUES (1, 2)") }?.code, SQLiteCode.constraint)
        XCTAssertEqual(storeError { try db.execute("INSERT INTO t (id, x) VALUES (1, 2)") }?.code, SQLiteCode.constraint)
    }

    // MARK: Quoting and schema

    func testQuoteDoublesEmbeddedQuotes() throws {
        XCTAssertEqual(Database.quote("Book"), "\"Book\"")
        XCTAssertEqual(Database.quote("my\"table"), "\"my\"\"table\"")
        XCTAssertEqual(Database.quote("\"\""), "\"\"\"\"\"\"")
        XCTAssertEqual(Database.quote(""), "\"\"")

        // And SQLite reads the quoted names back as the original names.
        let db = try Database(path: ":memory:", mode: .create)
        let names = ["my\"table", "select", "with space", "\"", "it's"]
        for name in names {
            try db.execute("CREATE TABLE \(Database.quote(name)) (\(Database.quote("co\"l")) INTEGER)")
            try db.run("INSERT INTO \(Database.quote(name)) VALUES (?)", [.integer(1)])
        }
        XCTAssertEqual(Set(try db.tables().map(\.name)), Set(names))
        XCTAssertEqual(try db.table(named: "my\"table")?.columns.map(\.name), ["co\"l"])
    }

    func testTablesListsBaseTablesOnly() throws {
        let db = try Database(path: path("schema.sqlite"), mode: .create)
        try db.execute("""
            CREATE TABLE Book (id INTEGER PRIMARY KEY, title TEXT NOT NULL, price REAL);
            CREATE TABLE Author (id INTEGER PRIMARY KEY AUTOINCREMENT, name VARCHAR);
            CREATE TABLE Book_authors (source_id INTEGER NOT NULL, target_id INTEGER NOT NULL,
                                       PRIMARY KEY (source_id, target_id)) WITHOUT ROWID;
            CREATE VIEW CheapBook AS SELECT id, title FROM Book WHERE price < 5;
            CREATE INDEX Book_title ON Book(title);
            CREATE TRIGGER t AFTER INSERT ON Book BEGIN SELECT 1; END;
            INSERT INTO Author (name) VALUES ('x');
            """)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'sqlite_sequence'"), 1)

        let tables = try db.tables()
        XCTAssertEqual(tables.map(\.name), ["Author", "Book", "Book_authors"], "no views, no sqlite_ tables, ordered by name")

        let book = try XCTUnwrap(try db.table(named: "Book"))
        XCTAssertEqual(book.name, "Book")
        XCTAssertEqual(book.columns.map(\.name), ["id", "title", "price"])
        XCTAssertEqual(book.columns.map(\.declaredType), ["INTEGER", "TEXT", "REAL"])
        XCTAssertEqual(book.columns.map(\.isPrimaryKey), [true, false, false])
        XCTAssertEqual(tables.first { $0.name == "Book" }, book)
        XCTAssertEqual(book.column(named: "TITLE")?.name, "title", "column lookup ignores case")
        XCTAssertNil(book.column(named: "author"))

        let join = try XCTUnwrap(try db.table(named: "Book_authors"))
        XCTAssertEqual(join.columns.filter(\.isPrimaryKey).map(\.name), ["source_id", "target_id"])

        XCTAssertNil(try db.table(named: "Nowhere"))
    }

    func testSQLLiteralRendering() {
        XCTAssertEqual(SQLValue.null.sqlLiteral, "NULL")
        XCTAssertEqual(SQLValue.integer(-5).sqlLiteral, "-5")
        XCTAssertEqual(SQLValue.real(1.5).sqlLiteral, "1.5")
        XCTAssertEqual(SQLValue.text("O'Brien").sqlLiteral, "'O''Brien'")
        XCTAssertEqual(SQLValue.blob([0x00, 0xAB, 0x0F]).sqlLiteral, "X'00AB0F'")
        XCTAssertEqual(SQLValue.blob([]).sqlLiteral, "X''")
        XCTAssertTrue(SQLValue.null.isNull)
        XCTAssertFalse(SQLValue.blob([]).isNull)
        XCTAssertFalse(SQLValue.text("").isNull)
    }

    func testSQLLiteralsReadBackAsTheSameValues() throws {
        let db = try Database(path: ":memory:", mode: .create)
        let values: [SQLValue] = [.null, .integer(Int64.max), .integer(-3), .real(0.5), .text("it's"), .text(""), .blob([0xDE, 0xAD]), .blob([])]
        for value in values {
            XCTAssertEqual(try db.rows("SELECT \(value.sqlLiteral)"), [[value]], value.sqlLiteral)
        }
    }

    // MARK: Functions

    /// A function over text gets a text second argument as its bytes (a NUL and bytes that
    /// are not UTF-8 included), and the values of every other call; where `text` has no
    /// answer the call goes on to the body, which gets both arguments as values.
    func testAFunctionOverTextGetsTextAsItsBytesAndFallsBackToItsBody() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try db.createFunction("f", text: { bytes in
            bytes.first == UInt8(ascii: "-") ? nil : .text("bytes " + bytes.map { String(format: "%02x", $0) }.joined())
        }, { first, second in
            .text("body \(first.sqlLiteral) \(second.sqlLiteral)")
        })
        let calls = [
            ("f(1, 'ab')", "bytes 6162"),
            ("f(1, CAST(X'6100FF' AS TEXT))", "bytes 6100ff"),
            ("f(1, '')", "bytes "),
            ("f(1, '-x')", "body 1 '-x'"),
            ("f(2, 7)", "body 2 7"),
            ("f(NULL, NULL)", "body NULL NULL"),
            ("f(1, X'6162')", "body 1 X'6162'"),
        ]
        for (call, expected) in calls {
            XCTAssertEqual(try db.rows("SELECT \(call)"), [[.text(expected)]], call)
        }
    }
}
