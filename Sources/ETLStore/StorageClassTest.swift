import CSQLite

/// The storage class a value is expected in, for `Database.createStorageClassTest`: one
/// ASCII letter each, in the function's first argument.
public enum ExpectedStorage: UInt8, Sendable, CaseIterable {
    /// "i": an INTEGER.
    case integer = 0x69
    /// "n": a REAL, or an INTEGER a double holds exactly (within ±2^53).
    case number = 0x6E
    /// "f": as `number`, the REAL finite.
    case finiteNumber = 0x66
    /// "b": the INTEGER 0 or 1.
    case zeroOrOne = 0x62
    /// "t": TEXT whose bytes are UTF-8.
    case utf8Text = 0x74
    /// "x": a BLOB, or TEXT.
    case bytes = 0x78

    /// The letter in SQL.
    public var code: Character { Character(Unicode.Scalar(rawValue)) }

    /// Whether `value` (of storage class `type`, never NULL here) is stored as expected.
    fileprivate func holds(_ value: OpaquePointer?, type: Int32) -> Bool {
        switch self {
        case .integer: return type == SQLITE_INTEGER
        case .number: return type == SQLITE_FLOAT || (type == SQLITE_INTEGER && Self.exactInDouble.contains(sqlite3_value_int64(value)))
        case .finiteNumber:
            return (type == SQLITE_FLOAT && sqlite3_value_double(value).isFinite)
                || (type == SQLITE_INTEGER && Self.exactInDouble.contains(sqlite3_value_int64(value)))
        case .zeroOrOne: return type == SQLITE_INTEGER && (0...1).contains(sqlite3_value_int64(value))
        case .utf8Text:
            guard type == SQLITE_TEXT else { return false }
            // The bytes as stored (`_blob`: no terminating NUL made, no encoding converted).
            guard let start = sqlite3_value_blob(value) else { return true }
            return UnsafeBufferPointer(start: start.assumingMemoryBound(to: UInt8.self), count: Int(sqlite3_value_bytes(value))).isValidUTF8
        case .bytes: return type == SQLITE_BLOB || type == SQLITE_TEXT
        }
    }

    private static let exactInDouble: ClosedRange<Int64> = -9_007_199_254_740_992...9_007_199_254_740_992
}

/// What a storage class test does with a row holding values not stored as expected.
private final class StorageClassFallback {
    let otherwise: @Sendable (SQLArguments, [Int]) throws -> Void
    init(_ otherwise: @escaping @Sendable (SQLArguments, [Int]) throws -> Void) { self.otherwise = otherwise }
}

extension Database {
    /// Registers `name(codes, label, value, label, value, …)`: 1 when each value is NULL or
    /// stored as the `ExpectedStorage` letter of its place in `codes` says. Otherwise
    /// `otherwise` gets the arguments and the indices of the values that are not; it
    /// returns (the row passes: 1) or throws (the statement fails with its description).
    ///
    /// Called once a row of a pushed-down statement, so the usual row costs one loop
    /// over the values, in a C function with no Swift object touched: no closure, no
    /// value made, no reference counted.
    public func createStorageClassTest(_ name: String, otherwise: @escaping @Sendable (SQLArguments, [Int]) throws -> Void) throws {
        let box = Unmanaged.passRetained(StorageClassFallback(otherwise)).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, arguments in
                guard let arguments, count > 0, let codes = sqlite3_value_text(arguments[0]) else {
                    sqlite3_result_int64(context, 1)
                    return
                }
                let places = min(Int(sqlite3_value_bytes(arguments[0])), (Int(count) - 1) / 2)
                var place = 0
                while place < places {
                    let value = arguments[2 + 2 * place]
                    let type = sqlite3_value_type(value)
                    guard type == SQLITE_NULL || ExpectedStorage(rawValue: codes[place])?.holds(value, type: type) == true else { break }
                    place += 1
                }
                if place < places {
                    // A value of another class (rare): the rest of the row looked at again, in Swift.
                    let failing = (place..<places).map { 2 + 2 * $0 }.filter { index in
                        let type = sqlite3_value_type(arguments[index])
                        return type != SQLITE_NULL && ExpectedStorage(rawValue: codes[(index - 2) / 2])?.holds(arguments[index], type: type) != true
                    }
                    let fallback = Unmanaged<StorageClassFallback>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                    do {
                        try fallback.otherwise(SQLArguments(values: arguments, count: Int(count)), failing)
                    } catch {
                        sqlite3_result_error(context, "\(error)", -1)
                        return
                    }
                }
                sqlite3_result_int(context, 1)
            },
            nil, nil,
            { pointer in pointer.map { Unmanaged<StorageClassFallback>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
    }
}
