import Foundation
import XCTest
import ETLStore
import ETLTestSupport

/// A hardened connection (`Database(path:mode:hardened: true)`, `harden()`): what a file
/// nobody vouches for can no longer make SQLite do.
final class HostileDatabaseTests: XCTestCase {
    private var temporary: TemporaryFolder!
    private var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-hostile-db") }
    override func tearDown() { temporary = nil }

    private func path(_ name: String) -> String { folder.appendingPathComponent(name).path }

    /// A small rollback-journal store: `item(id, label)` with `rows` rows, and `extra` SQL.
    private func makeStore(_ name: String, rows: Int = 10, extra: String = "") throws -> String {
        let p = path(name)
        let db = try Database(path: p, mode: .create)
        try db.execute("PRAGMA journal_mode = DELETE; CREATE TABLE item (id INTEGER PRIMARY KEY, label TEXT NOT NULL)")
        try db.transaction {
            let insert = try db.prepare("INSERT INTO item (id, label) VALUES (?, ?)")
            for i in 0..<rows { try insert.run([.integer(Int64(i)), .text("label \(i) " + String(repeating: "x", count: 40))]) }
        }
        if !extra.isEmpty { try db.execute(extra) }
        db.close()
        return p
    }

    /// Runs `body`, expecting it to throw a `StoreError`, and returns that error.
    private func storeError(_ body: () throws -> Void, file: StaticString = #filePath, line: UInt = #line) -> StoreError? {
        thrownError(StoreError.self, file: file, line: line) { try body() }
    }

    func testEveryFlagAndPragmaIsSet() throws {
        let db = try Database(path: try makeStore("a.sqlite"), mode: .readOnly, hardened: true)
        #if os(Linux) && (arch(x86_64) || arch(arm64))
        XCTAssertTrue(Database.canConfigure, "sqlite3_db_config must be callable on Linux")
        #endif
        if Database.canConfigure {
            XCTAssertEqual(db.flag(.defensive), true)
            XCTAssertEqual(db.flag(.loadExtension), false)
            XCTAssertEqual(db.flag(.views), false)
            XCTAssertEqual(db.flag(.triggers), false)
            XCTAssertEqual(db.flag(.trustedSchema), false)
        }
        XCTAssertEqual(try db.scalarInt("PRAGMA trusted_schema"), 0)
        XCTAssertEqual(try db.scalarInt("PRAGMA cell_size_check"), 1)
        XCTAssertEqual(try db.scalarInt("PRAGMA mmap_size"), 0)
        XCTAssertEqual(try db.scalarInt("PRAGMA query_only"), 1)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM item"), 10, "reading is untouched")

        // An ordinary connection keeps SQLite's defaults.
        let plain = try Database(path: path("a.sqlite"), mode: .readOnly)
        if Database.canConfigure {
            XCTAssertEqual(plain.flag(.defensive), false)
            XCTAssertEqual(plain.flag(.views), true)
        }
        XCTAssertEqual(try plain.scalarInt("PRAGMA query_only"), 0)
    }

    func testTheFlagReadBackIsReal() throws {
        // `flag` reads through the same sqlite3_db_config call that sets: a write through
        // SQL that defensive mode blocks shows it took effect, not only the read-back.
        guard Database.canConfigure else { throw XCTSkip("sqlite3_db_config is not callable on this platform") }
        let store = try makeStore("a.sqlite")
        let writer = try Database(path: store, mode: .readWrite)
        try writer.harden()
        try writer.execute("PRAGMA query_only = OFF")
        try writer.execute("PRAGMA writable_schema = ON")
        let refused = storeError { try writer.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE item(x)' WHERE name = 'item'") }
        XCTAssertTrue(refused?.message.contains("may not be modified") ?? false, "\(String(describing: refused))")
        writer.close()

        let unguarded = try Database(path: store, mode: .readWrite)
        try unguarded.execute("PRAGMA writable_schema = ON")
        try unguarded.execute("UPDATE sqlite_schema SET sql = 'CREATE TABLE item (id INTEGER PRIMARY KEY, title TEXT)' WHERE name = 'item'")
        try unguarded.execute("PRAGMA writable_schema = OFF")
        unguarded.close()
        XCTAssertEqual(try Database(path: store, mode: .readOnly).table(named: "item")?.columns.map(\.name), ["id", "title"],
                       "without defensive mode the same statement rewrites the schema")
    }

    func testNothingIsAttachedAndNoExtensionLoads() throws {
        let db = try Database(path: try makeStore("a.sqlite"), mode: .readOnly, hardened: true)
        let attach = storeError { try db.execute("ATTACH DATABASE ':memory:' AS other") }
        XCTAssertTrue(attach?.message.contains("too many attached databases") ?? false, "\(String(describing: attach))")
        let load = storeError { _ = try db.rows("SELECT load_extension('/nonexistent/evil')") }
        XCTAssertTrue(load?.message.contains("not authorized") ?? false, "\(String(describing: load))")
        XCTAssertNotNil(storeError { try db.execute("INSERT INTO item VALUES (100, 'no')") }, "read-only and query-only")
    }

    /// A value longer than the connection's limit is bound with its 64-bit length: a
    /// refusal naming its size and the limit (a 32-bit length trapped beyond 2 GiB).
    func testAValueBeyondTheLengthLimitIsRefusedByItsSize() throws {
        let db = try Database(path: ":memory:", mode: .create)
        var small = Hardening()
        small.maxLength = 1_000
        try db.harden(small)
        let statement = try db.prepare("SELECT ?")
        for value in [SQLValue.blob(Array(repeating: 7, count: 2_000)), .text(String(repeating: "x", count: 3_000))] {
            let error = storeError { try statement.bind([value]) }
            XCTAssertEqual(error?.code, 18, "SQLITE_TOOBIG")
            XCTAssertTrue(error?.message.contains("more than SQLite's limit of 1000 bytes for one value") ?? false, "\(String(describing: error))")
        }
        try statement.bind([.blob(Array(repeating: 7, count: 1_000))])
    }

    func testLimitsCapWhatTheFileCanMakeSQLiteBuild() throws {
        // A value longer than the length limit cannot be read: SQLITE_TOOBIG, not an allocation.
        let store = try makeStore("big.sqlite", rows: 0, extra: "INSERT INTO item VALUES (1, printf('%.*c', 5000, 'x'))")
        var small = Hardening()
        small.maxLength = 1_000
        let db = try Database(path: store, mode: .readOnly)
        try db.harden(small)
        let tooBig = storeError { _ = try db.rows("SELECT label FROM item") }
        XCTAssertEqual(tooBig?.code, 18, "SQLITE_TOOBIG: \(String(describing: tooBig))")

        // The default length limit is 256 MiB, and the statement limit 1 MiB.
        let hardened = try Database(path: store, mode: .readOnly, hardened: true)
        XCTAssertEqual(try hardened.scalarInt("SELECT length(label) FROM item"), 5000)
        XCTAssertEqual(Hardening.source.maxLength, 256 << 20)
        let longSQL = "SELECT 1" + String(repeating: " ", count: 1 << 20)
        XCTAssertNotNil(storeError { _ = try hardened.rows(longSQL) })

        // A schema expression nested deeper than the limit leaves the schema unreadable: an error, not a deep recursion.
        let deep = Array(repeating: "1", count: 400).joined(separator: " + ")
        let nested = try makeStore("deep.sqlite", rows: 1, extra: "CREATE TABLE deep (x INTEGER CHECK (x < \(deep)))")
        XCTAssertNotNil(storeError {
            let db = try Database(path: nested, mode: .readOnly, hardened: true)
            _ = try db.rows("SELECT * FROM deep")
        })
        XCTAssertEqual(try Database(path: nested, mode: .readOnly).scalarInt("SELECT count(*) FROM deep"), 0, "readable unhardened")
    }

    func testViewsAreNotTablesAndCannotBeRead() throws {
        let store = try makeStore("views.sqlite", extra: """
            CREATE VIEW Book AS SELECT id, label AS title FROM item;
            CREATE VIEW Forever AS WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c) SELECT n FROM c;
            CREATE TRIGGER item AFTER INSERT ON item BEGIN SELECT 1; END;
            """)
        let db = try Database(path: store, mode: .readOnly, hardened: true)
        XCTAssertNil(try db.table(named: "Book"), "a view is not a table")
        XCTAssertNil(try db.table(named: "book"))
        XCTAssertEqual(try db.objectType(named: "BOOK"), "view")
        XCTAssertEqual(try db.objectType(named: "item"), "table", "a trigger of the same name does not hide the table")
        XCTAssertEqual(try db.table(named: "ITEM")?.columns.map(\.name), ["id", "label"])
        XCTAssertEqual(try db.tables().map(\.name), ["item"])
        XCTAssertNil(try db.objectType(named: "nothing"))
        if Database.canConfigure {
            // Views are off: an endless one fails, naming the file, instead of running (the
            // view's recursive CTE is not even resolved).
            let endless = storeError { _ = try db.rows("SELECT * FROM Forever LIMIT 5") }
            XCTAssertEqual(endless?.path, store, "\(String(describing: endless))")
            let error = storeError { _ = try db.rows("SELECT * FROM Book") }
            XCTAssertTrue(error?.message.contains("prohibited") ?? false, "\(String(describing: error))")
        }
        // Unhardened, pragma_table_info alone would describe the view like a table.
        let plain = try Database(path: store, mode: .readOnly)
        XCTAssertEqual(try plain.rows("SELECT name FROM pragma_table_info('Book')").count, 2)
        XCTAssertNil(try plain.table(named: "Book"))
    }

    func testAVirtualTableIsNotATable() throws {
        let store = try makeStore("fts.sqlite")
        do {
            let db = try Database(path: store, mode: .readWrite)
            try db.execute("CREATE VIRTUAL TABLE Book USING fts5(title)")
        } catch {
            throw XCTSkip("this SQLite has no FTS5: \(error)")
        }
        let db = try Database(path: store, mode: .readOnly, hardened: true)
        XCTAssertEqual(try db.objectType(named: "Book"), "virtual")
        XCTAssertNil(try db.table(named: "Book"))
        XCTAssertEqual(try db.objectType(named: "Book_data"), "shadow")
        XCTAssertNil(try db.table(named: "Book_data"))
    }

    func testALockedFileFailsWithBusyAfterTheTimeout() throws {
        let store = try makeStore("locked.sqlite")
        let writer = try Database(path: store, mode: .readWrite)
        // Rollback journal: BEGIN EXCLUSIVE takes the EXCLUSIVE lock at once; readers wait.
        try writer.execute("BEGIN EXCLUSIVE; INSERT INTO item VALUES (1000, 'new')")
        let reader = try Database(path: store, mode: .readOnly, busyTimeout: 200, hardened: true)
        XCTAssertEqual(reader.busyTimeout, 200)
        let error = storeError { _ = try reader.scalarInt("SELECT count(*) FROM item") }
        XCTAssertEqual(error?.code, 5, "SQLITE_BUSY: \(String(describing: error))")
        XCTAssertEqual(error?.path, store)

        // It waits rather than failing at once: a writer that finishes within the timeout
        // (a generous one, so no scheduler delay matters) lets the read through.
        let patient = try Database(path: store, mode: .readOnly, busyTimeout: 60_000, hardened: true)
        let committed = DispatchSemaphore(value: 0)
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) {
            try? writer.execute("COMMIT")
            committed.signal()
        }
        XCTAssertEqual(try patient.scalarInt("SELECT count(*) FROM item"), 11, "read once the writer is done")
        committed.wait()
        XCTAssertEqual(try reader.scalarInt("SELECT count(*) FROM item"), 11, "readable once the writer is done")
    }

    func testQuickCheckNamesTheDamage() throws {
        let store = try makeStore("good.sqlite", rows: 2_000)
        let db = try Database(path: store, mode: .readOnly, hardened: true)
        XCTAssertEqual(try db.quickCheck(), [])
        let pageSize = Int(try db.scalarInt("PRAGMA page_size"))
        db.close()

        // Damage inside a leaf page's header: the b-tree structure is wrong, the header fine.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: store))
        bytes[pageSize * 3 + 1] ^= 0xff
        bytes[pageSize * 3 + 2] ^= 0x5a
        let damaged = path("damaged.sqlite")
        try bytes.write(to: URL(fileURLWithPath: damaged))
        let broken = try Database(path: damaged, mode: .readOnly, hardened: true)
        do {
            let problems = try broken.quickCheck()
            XCTAssertFalse(problems.isEmpty)
            XCTAssertTrue(problems.joined().contains("Page 4"), "\(problems)")
        } catch let error as StoreError {
            XCTAssertEqual(error.code, 11, "SQLITE_CORRUPT: \(error)")
        }
    }

    func testOnlyAnIntegerPrimaryKeyIsARowIDColumn() throws {
        let store = try makeStore("keys.sqlite", rows: 1, extra: """
            CREATE TABLE lower (id integer primary key, x);
            CREATE TABLE int (id INT PRIMARY KEY, x);
            CREATE TABLE descending (id INTEGER PRIMARY KEY DESC, x);
            CREATE TABLE withoutRowID (id INTEGER PRIMARY KEY, x) WITHOUT ROWID;
            CREATE TABLE composite (a INTEGER, b INTEGER, PRIMARY KEY (a, b));
            CREATE TABLE nokey (id INTEGER, x);
            CREATE TABLE untyped (id PRIMARY KEY, x);
            CREATE TABLE coredata (Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER);
            CREATE VIEW aview AS SELECT id FROM item;
            """)
        let db = try Database(path: store, mode: .readOnly, hardened: true)
        XCTAssertEqual(try db.rowIDColumn(ofTable: "item"), "id")
        XCTAssertEqual(try db.rowIDColumn(ofTable: "LOWER"), "id")
        XCTAssertEqual(try db.rowIDColumn(ofTable: "coredata"), "Z_PK")
        for table in ["int", "descending", "withoutRowID", "composite", "nokey", "untyped", "aview", "nothing"] {
            XCTAssertNil(try db.rowIDColumn(ofTable: table), table)
        }
    }
}
