import ETLDocument

/// What a mapping does with a stored value the reading rule does not read
/// (`Value.reading`, docs/pipeline.md's table).
public enum UnreadableAction: String, Sendable, CaseIterable {
    /// The row is rejected, naming the value as stored and its storage class (the default).
    case reject
    /// The value is read as null, and counted as nulled: the pipeline said so.
    case null

    /// The action a pipeline names at `cursor` ("reject" or "null").
    static func decode(_ cursor: JSONCursor) throws -> UnreadableAction {
        let text = try cursor.string()
        guard let action = UnreadableAction(rawValue: text) else {
            throw cursor.error("unknown value '\(text)' for \"unreadable\"; one of: " + allCases.map(\.rawValue).joined(separator: ", "))
        }
        return action
    }
}

/// A mapping's `UnreadableAction`s: one for every value it reads (the pipeline's
/// `options.unreadable`, or the mapping's `"unreadable": "null"`), and per attribute of
/// its source entity (`"unreadable": { "price": "null" }`).
public struct UnreadableValues: Sendable, Hashable {
    public var all: UnreadableAction = .reject
    public var byAttribute: [String: UnreadableAction] = [:]

    public init(all: UnreadableAction = .reject, byAttribute: [String: UnreadableAction] = [:]) {
        self.all = all
        self.byAttribute = byAttribute
    }

    /// The action for the value at `segments` of a source row (an attribute of the row
    /// itself by its own name, any other path by `all`).
    public func action(_ segments: [String]) -> UnreadableAction {
        segments.count == 1 ? byAttribute[segments[0]] ?? all : all
    }

    /// Whether some value is made null rather than rejected.
    public var nullsAny: Bool { all == .null || byAttribute.values.contains(.null) }
}
