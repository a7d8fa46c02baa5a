/// A JSON value together with its place in the document (file, JSON path, line and column).
///
/// Decoders of pipeline and model files walk the document through cursors, so that every
/// error they raise points at the exact value, and unknown keys are caught (with the
/// closest known key as a suggestion) instead of being silently ignored.
///
///     let root = try JSONCursor.parse(bytes, file: "books.json")
///     let object = try root.object(keys: ["version", "steps"])
///     let version = try object.required("version").int()
public struct JSONCursor: Sendable {
    public let node: JSONNode
    public let path: String
    public let file: String

    public static func parse(_ bytes: [UInt8], file: String) throws -> JSONCursor {
        JSONCursor(node: try JSONParser.parse(bytes, file: file), path: "$", file: file)
    }

    public init(node: JSONNode, path: String, file: String) {
        self.node = node
        self.path = path
        self.file = file
    }

    public func error(_ message: String) -> DocumentError {
        DocumentError(file: file, line: node.line, column: node.column, path: path, message: message)
    }

    /// An error at a column inside this string value (for expressions). The column counts
    /// characters of the decoded string, and is added to the position of the opening quote.
    public func error(_ message: String, atColumnInString column: Int) -> DocumentError {
        DocumentError(file: file, line: node.line, column: node.column + column, path: path, message: message)
    }

    public var isNull: Bool {
        if case .null = node.value { return true }
        return false
    }

    public func string() throws -> String {
        guard case .string(let s) = node.value else { throw error("expected a string, found \(node.kindName)") }
        return s
    }

    public func nonEmptyString() throws -> String {
        let s = try string()
        guard !s.isEmpty else { throw error("must not be empty") }
        return s
    }

    public func bool() throws -> Bool {
        guard case .bool(let b) = node.value else { throw error("expected true or false, found \(node.kindName)") }
        return b
    }

    public func int(in range: ClosedRange<Int>? = nil) throws -> Int {
        guard case .number(let text) = node.value, let v = Int(text) else {
            throw error("expected a whole number, found \(describe())")
        }
        if let range, !range.contains(v) {
            throw error("\(v) is out of range: expected \(range.lowerBound)…\(range.upperBound)")
        }
        return v
    }

    public func double() throws -> Double {
        guard case .number(let text) = node.value, let v = Double(text) else {
            throw error("expected a number, found \(describe())")
        }
        return v
    }

    public func array() throws -> [JSONCursor] {
        guard case .array(let elements) = node.value else { throw error("expected an array, found \(node.kindName)") }
        return elements.enumerated().map { JSONCursor(node: $1, path: "\(path)[\($0)]", file: file) }
    }

    /// The members of an object, refusing any key not in `keys` (with a suggestion).
    public func object(keys: [String]) throws -> JSONObject {
        let object = try anyObject()
        for (key, cursor) in object.members where !keys.contains(key) {
            var message = "unknown key '\(key)'"
            if let guess = closestName(to: key, among: keys) {
                message += " (did you mean '\(guess)'?)"
            } else {
                message += "; allowed here: " + keys.joined(separator: ", ")
            }
            throw cursor.error(message)
        }
        return object
    }

    /// The members of an object whose keys are names chosen by the user (a map).
    public func anyObject() throws -> JSONObject {
        guard case .object(let members) = node.value else { throw error("expected an object, found \(node.kindName)") }
        return JSONObject(cursor: self, members: members.map { ($0.key, JSONCursor(node: $0.node, path: Self.append($0.key, to: path), file: file)) })
    }

    private func describe() -> String {
        if case .number(let text) = node.value { return text }
        return node.kindName
    }

    static func append(_ key: String, to path: String) -> String {
        let isIdentifier = !key.isEmpty && key.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" } && !(key.first!.isNumber)
        return isIdentifier ? "\(path).\(key)" : "\(path)[\"\(key)\"]"
    }
}

/// The members of one JSON object, in the order written.
public struct JSONObject: Sendable {
    public let cursor: JSONCursor
    public let members: [(key: String, value: JSONCursor)]

    public func optional(_ key: String) -> JSONCursor? {
        guard let cursor = members.first(where: { $0.key == key })?.value, !cursor.isNull else { return nil }
        return cursor
    }

    public func required(_ key: String) throws -> JSONCursor {
        guard let value = optional(key) else { throw cursor.error("missing required key '\(key)'") }
        return value
    }
}
