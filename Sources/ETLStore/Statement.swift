import CSQLite

/// SQLite's marker that a bound text or blob must be copied before `bind` returns.
let SQLITE_TRANSIENT = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Prepare once, then bind, step and reset per row: this is the
/// hot path of every stage, so column access is typed and allocates nothing it need not.
///
///     let insert = try db.prepare("INSERT INTO Book(id, title) VALUES (?, ?)")
///     try insert.bind([.integer(1), .text("Dune")])
///     try insert.run()
public final class Statement {
    public let sql: String
    let handle: OpaquePointer
    unowned let database: Database

    init(database: Database, sql: String) throws {
        self.database = database
        self.sql = sql
        var stmt: OpaquePointer?
        let rc = sqlite3_prepare_v3(database.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &stmt, nil)
        guard rc == SQLITE_OK, let stmt else {
            throw database.error(rc, sql: sql)
        }
        self.handle = stmt
    }

    deinit { sqlite3_finalize(handle) }

    public var columnCount: Int { Int(sqlite3_column_count(handle)) }

    public func columnName(_ index: Int) -> String {
        String(cString: sqlite3_column_name(handle, Int32(index)))
    }

    /// Binds values to the parameters 1…n, in order.
    public func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() {
            try bind(value, at: offset + 1)
        }
    }

    public func bind(_ value: SQLValue, at index: Int) throws {
        let i = Int32(index)
        let rc: Int32
        switch value {
        case .null: rc = sqlite3_bind_null(handle, i)
        case .integer(let v): rc = sqlite3_bind_int64(handle, i, v)
        case .real(let v): rc = sqlite3_bind_double(handle, i, v)
        case .text(var s):
            // With its length: a text may hold a NUL, where a C string would end it. The
            // 64-bit length: a value beyond SQLite's limit is SQLITE_TOOBIG, never a trap.
            rc = s.withUTF8 { bytes in
                sqlite3_bind_text64(handle, i, UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                    .assumingMemoryBound(to: CChar.self), sqlite3_uint64(bytes.count), SQLITE_TRANSIENT, UInt8(SQLITE_UTF8))
            }
        case .blob(let b):
            rc = b.withUnsafeBytes { raw in
                sqlite3_bind_blob64(handle, i, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), sqlite3_uint64(b.count), SQLITE_TRANSIENT)
            }
        }
        if rc == SQLITE_TOOBIG {
            let bytes: Int
            switch value {
            case .text(let s): bytes = s.utf8.count
            case .blob(let b): bytes = b.count
            default: bytes = 0
            }
            throw StoreError(path: database.path, code: rc, message: "a value of \(bytes) bytes (parameter \(index)) is more than SQLite's limit of \(sqlite3_limit(database.handle, SQLITE_LIMIT_LENGTH, -1)) bytes for one value", sql: sql)
        }
        guard rc == SQLITE_OK else { throw database.error(rc, sql: sql) }
    }

    /// Steps once. Returns true while a row is available.
    @discardableResult
    public func step() throws -> Bool {
        let rc = sqlite3_step(handle)
        switch rc {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = database.error(rc, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs a statement that returns no rows, then resets it for the next use.
    public func run(_ values: [SQLValue]? = nil) throws {
        if let values { try bind(values) }
        defer { reset() }
        while try step() {}
    }

    /// Resets for the next execution and clears bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Column access (valid after `step()` returned true)

    public func isNull(_ column: Int) -> Bool {
        sqlite3_column_type(handle, Int32(column)) == SQLITE_NULL
    }

    public func int64(_ column: Int) -> Int64 { sqlite3_column_int64(handle, Int32(column)) }

    public func double(_ column: Int) -> Double { sqlite3_column_double(handle, Int32(column)) }

    public func text(_ column: Int) -> String? {
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return nil }
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        return String(decoding: UnsafeBufferPointer(start: p, count: n), as: UTF8.self)
    }

    /// The value of `column` as SQLite's text, in place (valid until the next step), or nil
    /// when it is null.
    func textBytes(_ column: Int) -> UnsafeBufferPointer<UInt8>? {
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return nil }
        return UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, Int32(column))))
    }

    public func blob(_ column: Int) -> [UInt8] {
        let n = Int(sqlite3_column_bytes(handle, Int32(column)))
        guard n > 0, let p = sqlite3_column_blob(handle, Int32(column)) else { return [] }
        return Array(UnsafeRawBufferPointer(start: p, count: n))
    }

    public func value(_ column: Int) -> SQLValue {
        switch sqlite3_column_type(handle, Int32(column)) {
        case SQLITE_INTEGER: return .integer(int64(column))
        case SQLITE_FLOAT: return .real(double(column))
        case SQLITE_TEXT: return .text(text(column) ?? "")
        case SQLITE_BLOB: return .blob(blob(column))
        default: return .null
        }
    }

    /// The value of `column` as stored: like `value`, except that TEXT whose bytes are not
    /// UTF-8 comes as a BLOB of those bytes instead of text with U+FFFD in their place, so
    /// that a reader can tell it (and show it) as it is.
    public func storedValue(_ column: Int) -> SQLValue {
        guard sqlite3_column_type(handle, Int32(column)) == SQLITE_TEXT else { return value(column) }
        guard let p = sqlite3_column_text(handle, Int32(column)) else { return .text("") }
        let bytes = UnsafeBufferPointer(start: p, count: Int(sqlite3_column_bytes(handle, Int32(column))))
        if let text = bytes.utf8String { return .text(text) }
        return .blob(Array(bytes))
    }

    /// Whether `column` holds TEXT (which `storedValue` gives as a BLOB when it is not UTF-8).
    public func isText(_ column: Int) -> Bool { sqlite3_column_type(handle, Int32(column)) == SQLITE_TEXT }

    /// All remaining rows as arrays of values. For small results only (schema, counts).
    public func all(_ values: [SQLValue] = []) throws -> [[SQLValue]] {
        try bind(values)
        defer { reset() }
        var rows: [[SQLValue]] = []
        while try step() {
            // Counted after the step: a statement kept from an earlier run (`StatementCache`)
            // is prepared again by SQLite at its first step when the schema changed since,
            // and may then have other columns (`SELECT *` of an altered table).
            let n = columnCount
            rows.append((0..<n).map(value))
        }
        return rows
    }
}
