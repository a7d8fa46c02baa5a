import ETLModel

/// The static type of an expression, known after type checking.
///
/// Row types carry the entity name. A *source* row is a key of a row of the source
/// model (`$source`, `$item`, a to-one path); a *destination* row is a key the
/// migration made in the destination store (`destination()`, `destinations()`).
public enum ExprType: Sendable, Hashable, CustomStringConvertible {
    /// The type of the literal `null`; assignable to every type.
    case null
    case boolean, integer, double, string, date, binary
    /// A key of a row of this source-model entity.
    case sourceRow(String)
    /// Keys of rows of a source-model entity (a to-many path).
    case sourceRows(String)
    /// A key of a destination-model row.
    case destinationRow(String)
    /// Keys of destination-model rows.
    case destinationRows(String)

    /// The expression type of an attribute's values: integer16/32/64 → integer;
    /// decimal/double/float → double; string/uri → string; boolean → boolean;
    /// date → date; binary/uuid/transformable → binary.
    public init(_ attributeType: AttributeType) {
        switch attributeType {
        case .integer16, .integer32, .integer64: self = .integer
        case .decimal, .double, .float: self = .double
        case .string, .uri: self = .string
        case .boolean: self = .boolean
        case .date: self = .date
        case .binary, .uuid, .transformable: self = .binary
        }
    }

    public var description: String {
        switch self {
        case .null: return "null"
        case .boolean: return "boolean"
        case .integer: return "integer"
        case .double: return "double"
        case .string: return "string"
        case .date: return "date"
        case .binary: return "binary"
        case .sourceRow(let entity): return "\(entity) (source row)"
        case .sourceRows(let entity): return "[\(entity)] (source rows)"
        case .destinationRow(let entity): return "\(entity) (destination row)"
        case .destinationRows(let entity): return "[\(entity)] (destination rows)"
        }
    }

    /// Whether a value of type `from` may be stored where `to` is expected:
    /// `null` goes anywhere, an integer may widen to double, and everything else
    /// (including rows, which must be of the same kind and entity) must match exactly.
    public static func assignable(_ from: ExprType, to: ExprType) -> Bool {
        switch (from, to) {
        case (.null, _): return true
        case (.integer, .double): return true
        default: return from == to
        }
    }

    var isNumeric: Bool { self == .integer || self == .double }

    /// The common type of two branches (`coalesce`, `if`): null yields to the other,
    /// integer and double meet at double, anything else must be equal. nil: incompatible.
    static func unify(_ a: ExprType, _ b: ExprType) -> ExprType? {
        switch (a, b) {
        case (.null, _): return b
        case (_, .null): return a
        case (.integer, .double), (.double, .integer): return .double
        default: return a == b ? a : nil
        }
    }
}
