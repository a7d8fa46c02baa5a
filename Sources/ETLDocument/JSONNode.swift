/// A JSON value that remembers where it was written, so that every error about a
/// pipeline or model file can point at the line and column, not only at the key.
public struct JSONNode: Sendable {
    public indirect enum Value: Sendable {
        case null
        case bool(Bool)
        /// The number as written: decoders pick Int or Double and reject what does not fit.
        case number(String)
        case string(String)
        case array([JSONNode])
        /// Members in the order written (duplicates are rejected by the parser).
        case object([(key: String, node: JSONNode)])
    }

    public var value: Value
    public var line: Int
    public var column: Int

    public init(value: Value, line: Int, column: Int) {
        self.value = value
        self.line = line
        self.column = column
    }

    public var kindName: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
