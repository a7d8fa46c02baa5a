import CSQLite

/// The arguments of one call of a function, read one at a time: SQLite's own values,
/// valid during the call only (never keep one, or its bytes, after the body returns).
/// A test over many values asks each for its storage class, and makes no value of those
/// that pass on it.
public struct SQLArguments {
    private let values: UnsafeMutablePointer<OpaquePointer?>?
    public let count: Int

    init(values: UnsafeMutablePointer<OpaquePointer?>?, count: Int) {
        self.values = values
        self.count = count
    }

    private func type(_ index: Int) -> Int32 { sqlite3_value_type(values![index]) }

    public func isNull(_ index: Int) -> Bool { type(index) == SQLITE_NULL }
    public func isBlob(_ index: Int) -> Bool { type(index) == SQLITE_BLOB }
    public func isText(_ index: Int) -> Bool { type(index) == SQLITE_TEXT }

    /// The argument when it is stored as an INTEGER, else nil.
    public func integer(_ index: Int) -> Int64? {
        type(index) == SQLITE_INTEGER ? sqlite3_value_int64(values![index]) : nil
    }

    /// The argument when it is stored as a REAL, else nil.
    public func real(_ index: Int) -> Double? {
        type(index) == SQLITE_FLOAT ? sqlite3_value_double(values![index]) : nil
    }

    /// `body` of the argument's bytes when it is TEXT (whatever bytes SQLite was given,
    /// UTF-8 or not), else nil.
    public func text<Result>(_ index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result? {
        let value = values![index]
        guard sqlite3_value_type(value) == SQLITE_TEXT else { return nil }
        let count = Int(sqlite3_value_bytes(value))
        return body(UnsafeBufferPointer(start: sqlite3_value_text(value), count: sqlite3_value_text(value) == nil ? 0 : count))
    }

    /// The whole argument as a value (`SQLValue(argument:)`).
    public subscript(index: Int) -> SQLValue { SQLValue(argument: values![index]) }
}
