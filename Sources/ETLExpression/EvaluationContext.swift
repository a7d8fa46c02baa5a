/// What the engine supplies for each row.
///
/// `slots[i]` holds the value of `SlotTable.paths[i]` for the current row: the row's key
/// (`.row`) for `$source` / `$item`, an attribute's value (as `Value(sql:as:)` reads it), a
/// to-one relationship's key (`.row`, or `.null`), or a to-many relationship's keys
/// (`.rows`). Every slot of the table the expression was compiled with must be present.
public struct EvaluationContext {
    public var slots: [Value]
    /// The destination keys the named mapping made from the given source keys, in order
    /// (used by `destination()` and `destinations()`).
    public var lookup: (_ mapping: String, _ sourceKeys: [Int64]) throws -> [Int64]

    /// Counts the values `orNull(…)` made null; nil: not counted.
    public var nullsOnPurpose: NullCount?

    public init(slots: [Value],
                lookup: @escaping (_ mapping: String, _ sourceKeys: [Int64]) throws -> [Int64] = { _, _ in [] },
                nullsOnPurpose: NullCount? = nil) {
        self.slots = slots
        self.lookup = lookup
        self.nullsOnPurpose = nullsOnPurpose
    }
}

/// A count of values made null on purpose (`orNull`), kept by one worker for one chunk
/// (never shared between threads at once).
public final class NullCount: @unchecked Sendable {
    public var count = 0
    public init() {}
    public func add() { count += 1 }
}

/// A compiled subexpression: evaluates itself for one row. No parsing, name lookup or
/// allocation of tables happens in here; slot indices are resolved at compile time.
typealias Evaluate = @Sendable (EvaluationContext) throws -> Value
