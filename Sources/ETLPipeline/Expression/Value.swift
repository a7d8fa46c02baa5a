import ETLStore

/// A runtime value of an expression. Which case a compiled expression produces follows
/// its static `ExprType` (a `.double` expression never yields `.integer`), except that any
/// expression may yield `.null`.
public enum Value: Sendable, Hashable {
    case null
    case boolean(Bool)
    case integer(Int64)
    case double(Double)
    case string(String)
    /// Seconds since 1970-01-01T00:00:00Z.
    case date(Double)
    case binary([UInt8])
    /// One row key, of the source or destination store (the static type says which).
    case row(Int64)
    /// Row keys, in order.
    case rows([Int64])

    /// True only for `.boolean(true)`: a filter passes a row only then (null does not pass).
    public var isTrue: Bool {
        if case .boolean(true) = self { return true }
        return false
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// Reads a stored value as a value of the given type. Booleans come from integers
    /// (non-zero is true); dates from REAL (or INTEGER) seconds since 1970 — stores with
    /// another epoch convert before calling this; rows from integer keys (a to-many type
    /// gets a one-element list). A storage class that does not fit is converted as SQLite's
    /// CAST would (text "12" as integer is 12); what cannot be converted at all gives `.null`.
    /// A blob read as a string keeps its bytes when they are UTF-8; other bytes give `.null`
    /// here and `unreadable(sql:as:)` says why, so the engine rejects the row instead of
    /// storing re-encoded text.
    public init(sql: SQLValue, as type: ExprType) {
        switch (sql, type) {
        case (.null, _), (_, .null):
            self = .null
        case (.integer(let i), .integer): self = .integer(i)
        case (.real(let r), .integer): self = .integer(SQLiteConversion.integer(fromReal: r))
        case (.text(let t), .integer): self = .integer(SQLiteConversion.integer(fromText: t))
        case (.integer(let i), .double): self = .double(Double(i))
        case (.real(let r), .double): self = .double(r)
        case (.text(let t), .double): self = .double(SQLiteConversion.real(fromText: t))
        case (.integer(let i), .boolean): self = .boolean(i != 0)
        case (.real(let r), .boolean): self = .boolean(r != 0)
        case (.text(let t), .boolean): self = .boolean(SQLiteConversion.real(fromText: t) != 0)
        case (.integer(let i), .date): self = .date(Double(i))
        case (.real(let r), .date): self = .date(r)
        case (.text(let t), .date): self = CivilDate.parse(t).map(Value.date) ?? .null
        case (.text(let t), .string): self = .string(t)
        case (.integer(let i), .string): self = .string(String(i))
        case (.real(let r), .string): self = .string(SQLiteConversion.text(fromReal: r))
        case (.blob(let b), .string): self = String(validating: b, as: UTF8.self).map(Value.string) ?? .null
        case (.blob(let b), .binary): self = .binary(b)
        case (.text(let t), .binary): self = .binary(Array(t.utf8))
        case (.integer(let key), .sourceRow), (.integer(let key), .destinationRow): self = .row(key)
        case (.integer(let key), .sourceRows), (.integer(let key), .destinationRows): self = .rows([key])
        default: self = .null
        }
    }

    /// Why a stored value cannot be read as `type` without changing it, or nil when it can:
    /// a blob in a string attribute that is not UTF-8 (decoding it would replace bytes).
    public static func unreadable(sql: SQLValue, as type: ExprType) -> String? {
        guard type == .string, case .blob(let bytes) = sql, String(validating: bytes, as: UTF8.self) == nil else { return nil }
        let head = bytes.prefix(16).map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined()
        return "a blob of \(bytes.count) bytes (\(head)\(bytes.count > 16 ? "…" : "")) in a string attribute is not UTF-8 text; "
            + "it would not arrive byte for byte (store it in a binary attribute)"
    }

    /// The value as SQLite stores it: booleans as integer 0/1, dates as REAL seconds
    /// since 1970, a row as its integer key. `.rows` is not storable in one column and
    /// gives `.null` (to-many relationships are written through join tables or inverse
    /// keys by the engine, not as a value).
    public var sqlValue: SQLValue {
        switch self {
        case .null, .rows: return .null
        case .boolean(let flag): return .integer(flag ? 1 : 0)
        case .integer(let i): return .integer(i)
        case .double(let d): return .real(d)
        case .string(let s): return .text(s)
        case .date(let seconds): return .real(seconds)
        case .binary(let bytes): return .blob(bytes)
        case .row(let key): return .integer(key)
        }
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
