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

    /// Reads a stored value as a value of the given type by the reading rule
    /// (`reading(_:as:epoch:)`, docs/pipeline.md's table): booleans from 0/1, dates from
    /// seconds since 1970 — stores with another epoch use `reading(_:as:epoch:)` — rows
    /// from integer keys (a to-many type gets a one-element list). A value the rule does
    /// not read gives `.null` here; the engine asks `unreadable(sql:as:)` first and
    /// rejects its row (or nulls and counts it where the pipeline says so).
    public init(sql: SQLValue, as type: ExprType) {
        self = Value.reading(sql, as: type) ?? .null
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
