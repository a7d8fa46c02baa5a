import CSQLite

/// The arguments of one call of a function, each made a value only when asked: SQLite's
/// own values, valid during the call only (never keep one after the call returns).
public struct SQLArguments {
    private let values: UnsafeMutablePointer<OpaquePointer?>
    public let count: Int

    init(values: UnsafeMutablePointer<OpaquePointer?>, count: Int) {
        self.values = values
        self.count = count
    }

    /// Argument `index` as a value (`SQLValue(argument:)`).
    public subscript(index: Int) -> SQLValue { SQLValue(argument: values[index]) }
}
