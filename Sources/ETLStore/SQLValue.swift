/// One value as SQLite stores it: the five storage classes, nothing more.
///
/// The hot path binds and reads these directly; richer meanings (dates, booleans,
/// references) are given to them by the model layer above.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// A short rendering for error messages and dumps (blobs as hex, texts quoted).
    public var sqlLiteral: String {
        switch self {
        case .null: return "NULL"
        case .integer(let v): return String(v)
        case .real(let v): return String(v)
        case .text(let s): return SQLQuoting.quoted(s, by: "'")
        case .blob(let b): return SQLQuoting.blob(b)
        }
    }
}
