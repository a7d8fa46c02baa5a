import CSQLite
import Foundation

/// One connection to one SQLite file.
///
/// Opened in SQLite's serialized mode, so handing a connection from one stage's thread to
/// another is safe; each stage still uses its own connection, because SQLite runs the
/// statements of one connection one at a time anyway.
///
///     let db = try Database(path: "books.sqlite", mode: .readOnly)
///     let n = try db.scalarInt("SELECT count(*) FROM Book")
public final class Database: @unchecked Sendable {
    public enum Mode: Sendable {
        /// Never writes: the source store. SQLite refuses every write on this connection.
        case readOnly
        /// Opens an existing file for writing.
        case readWrite
        /// Creates the file if missing.
        case create
    }

    public let path: String
    let handle: OpaquePointer
    /// How long a statement waits for another program's lock before failing with
    /// SQLITE_BUSY, in milliseconds.
    public let busyTimeout: Int32

    /// - Parameters:
    ///   - busyTimeout: milliseconds to wait while another connection holds a lock the
    ///     statement needs; then it fails with a `StoreError` of code `SQLiteCode.busy`.
    ///   - hardened: for a file nobody vouches for (a source store): `harden()` is applied
    ///     before anything reads the file. See `Hardening`.
    public init(path: String, mode: Mode, busyTimeout: Int32 = 5_000, hardened: Bool = false) throws {
        self.path = path
        self.busyTimeout = max(0, busyTimeout)
        var flags = SQLITE_OPEN_FULLMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .create: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
        try StoreCompanions.check(path)
        var db: OpaquePointer?
        // A plain path, not a URI: the path is taken literally whatever characters it holds;
        // a source SQLite would make a -wal and -shm beside only to read it, by a URI that
        // encodes the path and says it is immutable (`StoreCompanions`).
        // A source with a registered image (`SourceImage`) is read from it, not from its file.
        let image = mode == .readOnly && hardened ? SourceImage.registered(for: path) : nil
        let opened = image?.uri
            ?? (mode == .readOnly && hardened && StoreCompanions.readsImmutable(path) ? StoreCompanions.readOnlyURI(path) : path)
        let rc = sqlite3_open_v2(opened, &db, flags, nil)
        guard rc == SQLITE_OK, let db else {
            let message = db.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open"
            if let db { sqlite3_close_v2(db) }
            throw StoreError(path: path, code: rc, message: message)
        }
        self.handle = db
        sqlite3_extended_result_codes(db, 1)
        sqlite3_busy_timeout(db, self.busyTimeout)
        if hardened {
            do { try harden() } catch {
                isClosed = true
                sqlite3_close_v2(db)
                throw error
            }
        }
    }

    /// Turns SQLite's memory statistics off for the whole process; effective only when
    /// called before its first connection opens (false otherwise). The `etl` command
    /// line calls it first thing.
    ///
    /// With them on (SQLite's default), every allocation SQLite makes, on any connection,
    /// takes one lock shared by the whole process to count bytes: `etl batch --jobs 2`
    /// spent about a sixth of its CPU time waiting for that lock and waking its other
    /// holders. Without them, SQLite's heap limits (`sqlite3_hard_heap_limit64`,
    /// `sqlite3_soft_heap_limit64`) do nothing: etl sets none (see `Hardening`), and a
    /// real shortage of memory still fails SQLite's allocations with SQLITE_NOMEM.
    @discardableResult
    public static func turnOffMemoryStatistics() -> Bool {
        etl_sqlite3_config_no_memory_statistics() == SQLITE_OK
    }

    private var isClosed = false
    /// The handler `onProgress` installed, kept alive as long as SQLite may call it.
    var progressBox: ProgressBox?
    /// The statements `rows`, `scalarInt` and `run` prepared, kept for their text's next run.
    private let statements = StatementCache()
    /// The schema's text, kept over a read transaction of a read-only connection (`SchemaMemo`).
    var keptSchema = KeptSchema()
    let keptSchemaLock = NSLock()

    deinit { close() }

    /// Closes the connection (once; later calls do nothing). Statements still alive keep
    /// SQLite's resources until they are released, and fail if used.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        statements.removeAll()
        sqlite3_close_v2(handle)
    }

    func error(_ code: Int32, sql: String?) -> StoreError {
        StoreError(path: path, code: code & 0xff, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }

    /// Runs one or more statements that return no rows.
    public func execute(_ sql: String) throws {
        var errmsg: UnsafeMutablePointer<CChar>?
        let rc = sqlite3_exec(handle, sql, nil, nil, &errmsg)
        if rc != SQLITE_OK {
            let message = errmsg.map { String(cString: $0) } ?? String(cString: sqlite3_errmsg(handle))
            sqlite3_free(errmsg)
            throw StoreError(path: path, code: rc & 0xff, message: message, sql: sql)
        }
    }

    public func prepare(_ sql: String) throws -> Statement {
        try Statement(database: self, sql: sql)
    }

    /// Runs one statement with arguments.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws {
        try withStatement(sql) { try $0.run(values) }
    }

    /// All rows of a small query.
    public func rows(_ sql: String, _ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try withStatement(sql) { try $0.all(values) }
    }

    /// The first column of the first row as an integer (0 when the query returns nothing).
    public func scalarInt(_ sql: String, _ values: [SQLValue] = []) throws -> Int64 {
        try withStatement(sql) { stmt in
            try stmt.bind(values)
            return try stmt.step() ? stmt.int64(0) : 0
        }
    }

    /// Statements `rows`, `scalarInt` and `run` prepared, and how many they keep (for tests).
    var statementsPrepared: Int { statements.prepared }
    var statementsKept: Int { statements.count }

    /// Runs `body` with the statement of text `sql`: the one prepared for its last run on
    /// this connection (`StatementCache`), else a new one; kept again unless `body` threw.
    func withStatement<T>(_ sql: String, _ body: (Statement) throws -> T) throws -> T {
        let statement: Statement
        if let kept = statements.take(sql) {
            statement = kept
        } else {
            statement = try prepare(sql)
            statements.countPrepared()
        }
        let result = try body(statement)
        statements.give(statement)
        return result
    }

    /// Runs `body` in one transaction: committed if it returns, rolled back if it throws.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try execute("BEGIN IMMEDIATE")
        do {
            let result = try body()
            try execute("COMMIT")
            return result
        } catch {
            try? execute("ROLLBACK")
            throw error
        }
    }

    /// Runs `statements` in one transaction; none for no statements (an empty one still
    /// takes and drops the files' locks: a small store's run had three).
    public func execute(inOneTransaction statements: [String]) throws {
        guard !statements.isEmpty else { return }
        try transaction {
            for sql in statements { try execute(sql) }
        }
    }

    /// The bytes of the database `schema` (`main`, or an attached one's name) as a file
    /// of it would hold them: SQLite's `sqlite3_serialize`, for a database built in memory
    /// and then written out whole.
    public func serialized(schema: String = "main") throws -> [UInt8] {
        var size: sqlite3_int64 = 0
        guard let bytes = sqlite3_serialize(handle, schema, &size, 0) else {
            throw StoreError(path: path, code: SQLITE_NOMEM, message: "cannot serialize database \(schema)")
        }
        defer { sqlite3_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: Int(size)))
    }

    public var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    public var changes: Int { Int(sqlite3_changes(handle)) }

    /// Checks that the file really is a readable SQLite database: opening is lazy,
    /// so a text file or a truncated store only fails at the first read.
    public func checkReadable() throws {
        _ = try scalarInt("SELECT count(*) FROM sqlite_schema")
    }

    /// Quotes an identifier for SQL ("Book", "my""table").
    public static func quote(_ identifier: String) -> String {
        SQLQuoting.quoted(identifier, by: "\"")
    }
}
