import ETLStore

/// The attribute types of Core Data's model editor, by the names model files use.
public enum AttributeType: String, Sendable, CaseIterable, Codable {
    case integer16, integer32, integer64, decimal, double, float
    case string, boolean, date, binary, uuid, uri, transformable

    /// The declared SQLite column type for this attribute.
    public var columnType: String {
        switch self {
        case .integer16, .integer32, .integer64, .boolean: return "INTEGER"
        case .decimal, .double, .float: return "REAL"
        case .date: return "TIMESTAMP"
        case .string: return "VARCHAR"
        // Text affinity (it holds CHAR), and a name that tells a URI from a string, so
        // `etl model from-store` reads back the type the column was made for.
        case .uri: return "URI VARCHAR"
        case .binary, .uuid, .transformable: return "BLOB"
        }
    }

    public var isInteger: Bool { self == .integer16 || self == .integer32 || self == .integer64 }

    public var isNumeric: Bool { isInteger || self == .decimal || self == .double || self == .float }

    /// Parses a default value written as text in a model file ("0", "YES", "1.5", "abc").
    public func parseDefault(_ text: String) -> SQLValue? {
        switch self {
        case .integer16:
            return Int16(text).map { .integer(Int64($0)) }
        case .integer32:
            return Int32(text).map { .integer(Int64($0)) }
        case .integer64:
            return Int64(text).map(SQLValue.integer)
        case .decimal, .double, .float, .date:
            return Double(text).map(SQLValue.real)
        case .boolean:
            switch text.lowercased() {
            case "yes", "true", "1": return .integer(1)
            case "no", "false", "0": return .integer(0)
            default: return nil
            }
        case .string, .uri:
            return .text(text)
        case .binary, .uuid, .transformable:
            return nil
        }
    }
}
