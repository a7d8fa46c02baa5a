import CSQLite

/// A scalar SQL function implemented in Swift, and what keeps its closure alive while
/// SQLite holds it. One or two arguments are passed as such, without an array per call
/// (a call is made per value of a pushed-down step: millions of them).
private final class FunctionBox {
    enum Body {
        case any(@Sendable ([SQLValue]) throws -> SQLValue)
        case one(@Sendable (SQLValue) throws -> SQLValue)
        case two(@Sendable (SQLValue, SQLValue) throws -> SQLValue)
        /// Two arguments, the second offered to `text` as its bytes when it is text.
        case twoOverText(text: @Sendable (UnsafeBufferPointer<UInt8>) -> SQLValue?, @Sendable (SQLValue, SQLValue) throws -> SQLValue)
        /// One argument: 1 when it is text whose bytes pass the test, else 0.
        case textTest(@Sendable (UnsafeBufferPointer<UInt8>) -> Bool)
        /// One argument, offered to `slice` as its bytes when it is text: the text of the
        /// bytes in the range it gives is the result, else (nil) `body`'s.
        case oneOverText(slice: @Sendable (UnsafeBufferPointer<UInt8>) -> Range<Int>?, @Sendable (SQLValue) throws -> SQLValue)
    }
    let body: Body
    init(_ body: Body) { self.body = body }

    /// The result, or nil when it was given to `context` already.
    func call(_ context: OpaquePointer?, _ count: Int32, _ arguments: UnsafeMutablePointer<OpaquePointer?>?) throws -> SQLValue? {
        switch body {
        case .one(let body): return try body(SQLValue(argument: arguments![0]))
        case .textTest(let test):
            let value = arguments![0]
            guard sqlite3_value_type(value) == SQLITE_TEXT else { return .integer(0) }
            let count = Int(sqlite3_value_bytes(value))
            guard let start = sqlite3_value_text(value) else { return .integer(1) }
            return .integer(test(UnsafeBufferPointer(start: start, count: count)) ? 1 : 0)
        case .two(let body): return try body(SQLValue(argument: arguments![0]), SQLValue(argument: arguments![1]))
        case .twoOverText(let text, let body):
            let value = arguments![1]
            if sqlite3_value_type(value) == SQLITE_TEXT {
                let count = Int(sqlite3_value_bytes(value))
                if let start = sqlite3_value_text(value), let result = text(UnsafeBufferPointer(start: start, count: count)) {
                    return result
                }
            }
            return try body(SQLValue(argument: arguments![0]), SQLValue(argument: value))
        case .oneOverText(let slice, let body):
            let value = arguments![0]
            if sqlite3_value_type(value) == SQLITE_TEXT, let start = sqlite3_value_text(value) {
                let bytes = UnsafeBufferPointer(start: start, count: Int(sqlite3_value_bytes(value)))
                if let range = slice(bytes) {
                    // Copied by SQLite (the argument's bytes live as long as the call).
                    sqlite3_result_text(context, UnsafeRawPointer(start + range.lowerBound).assumingMemoryBound(to: CChar.self),
                                        Int32(range.count), SQLITE_TRANSIENT)
                    return nil
                }
            }
            return try body(SQLValue(argument: value))
        case .any(let body):
            var values: [SQLValue] = []
            values.reserveCapacity(Int(count))
            for index in 0..<Int(count) {
                values.append(SQLValue(argument: arguments![index]))
            }
            return try body(values)
        }
    }
}

/// The check a progress handler runs.
final class ProgressBox {
    let shouldInterrupt: @Sendable () -> Bool
    init(_ check: @escaping @Sendable () -> Bool) { shouldInterrupt = check }
}

extension Database {
    /// Registers a deterministic scalar function `name` of `arity` arguments on this
    /// connection. It gets and returns plain storage-class values.
    /// A body that throws makes the statement fail with the error's description as
    /// SQLite's message (so a value that cannot be converted stops the statement, as it
    /// rejects the row in Swift). `arity` -1: any number of arguments.
    public func createFunction(_ name: String, arity: Int32, _ body: @escaping @Sendable ([SQLValue]) throws -> SQLValue) throws {
        try createFunction(name, arity: arity, FunctionBox(.any(body)))
    }

    /// `createFunction` of one argument, passed as itself.
    public func createFunction(_ name: String, _ body: @escaping @Sendable (SQLValue) throws -> SQLValue) throws {
        try createFunction(name, arity: 1, FunctionBox(.one(body)))
    }

    /// `createFunction` of two arguments, passed as themselves.
    public func createFunction(_ name: String, _ body: @escaping @Sendable (SQLValue, SQLValue) throws -> SQLValue) throws {
        try createFunction(name, arity: 2, FunctionBox(.two(body)))
    }

    /// `createFunction` of two arguments, with a way around making a String of the second:
    /// when it is text, `text` gets its UTF-8 bytes first (SQLite's, valid during the call
    /// only), and where `text` has no answer (nil) the call goes on to `body`. For a
    /// function whose common case reads ASCII bytes: the String and the values made per
    /// call cost more than the work.
    public func createFunction(_ name: String, text: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> SQLValue?,
                               _ body: @escaping @Sendable (SQLValue, SQLValue) throws -> SQLValue) throws {
        try createFunction(name, arity: 2, FunctionBox(.twoOverText(text: text, body)))
    }

    /// `createFunction` of one argument, with a way around making a String of it: when it
    /// is text, `slice` gets its bytes first (SQLite's, valid during the call only), and
    /// the text of the bytes in the range it gives is the result; where it has no answer
    /// (nil), `body`'s is. For a function whose common case cuts ASCII text (`trim`).
    public func createFunction(_ name: String, slice: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Range<Int>?,
                               _ body: @escaping @Sendable (SQLValue) throws -> SQLValue) throws {
        try createFunction(name, arity: 1, FunctionBox(.oneOverText(slice: slice, body)))
    }

    /// A function of one argument, 1 when it is text whose UTF-8 bytes (SQLite's, valid
    /// during the call only) pass `test`, else 0: no String or value is made per call.
    public func createTextTest(_ name: String, _ test: @escaping @Sendable (UnsafeBufferPointer<UInt8>) -> Bool) throws {
        try createFunction(name, arity: 1, FunctionBox(.textTest(test)))
    }

    private func createFunction(_ name: String, arity: Int32, _ function: FunctionBox) throws {
        let box = Unmanaged.passRetained(function).toOpaque()
        let rc = sqlite3_create_function_v2(
            handle, name, arity, SQLITE_UTF8 | SQLITE_DETERMINISTIC, box,
            { context, count, arguments in
                let box = Unmanaged<FunctionBox>.fromOpaque(sqlite3_user_data(context)!).takeUnretainedValue()
                let result: SQLValue
                do {
                    guard let value = try box.call(context, count, arguments) else { return }
                    result = value
                } catch {
                    sqlite3_result_error(context, "\(error)", -1)
                    return
                }
                switch result {
                case .null: sqlite3_result_null(context)
                case .integer(let v): sqlite3_result_int64(context, v)
                case .real(let v): sqlite3_result_double(context, v)
                case .text(var s):
                    // Its length given: SQLite need not count the bytes again.
                    s.withUTF8 { bytes in
                        sqlite3_result_text(context, UnsafeRawPointer(bytes.baseAddress ?? UnsafePointer(bitPattern: 1)!)
                            .assumingMemoryBound(to: CChar.self), Int32(bytes.count), SQLITE_TRANSIENT)
                    }
                case .blob(let b):
                    b.withUnsafeBytes { raw in
                        sqlite3_result_blob(context, raw.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(b.count), SQLITE_TRANSIENT)
                    }
                }
            },
            nil, nil,
            { pointer in pointer.map { Unmanaged<FunctionBox>.fromOpaque($0).release() } })
        guard rc == SQLITE_OK else { throw error(rc, sql: nil) }
    }

    /// While a statement runs, asks `check` about every `instructions` virtual-machine
    /// steps whether to stop; when it says so, the statement fails with SQLITE_INTERRUPT
    /// (and its transaction can be rolled back). Nil removes the handler.
    public func onProgress(every instructions: Int32, _ check: (@Sendable () -> Bool)?) {
        guard let check else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            progressBox = nil
            return
        }
        let box = ProgressBox(check)
        progressBox = box
        sqlite3_progress_handler(handle, instructions, { pointer in
            Unmanaged<ProgressBox>.fromOpaque(pointer!).takeUnretainedValue().shouldInterrupt() ? 1 : 0
        }, Unmanaged.passUnretained(box).toOpaque())
    }
}

extension Database {
    /// Makes the statement running on this connection (from any thread) stop soon with
    /// SQLITE_INTERRUPT.
    public func interrupt() {
        sqlite3_interrupt(handle)
    }
}

extension SQLValue {
    /// The value of a function argument.
    init(argument value: OpaquePointer?) {
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: self = .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: self = .real(sqlite3_value_double(value))
        case SQLITE_TEXT:
            let count = Int(sqlite3_value_bytes(value))
            let bytes = sqlite3_value_text(value).map { UnsafeBufferPointer(start: $0, count: count) }
            // Bytes that are not UTF-8 come as the BLOB they are (as `Statement.storedValue`
            // reads them), not as text with U+FFFD in their place.
            guard let bytes else { self = .text(""); return }
            self = bytes.utf8String.map(SQLValue.text) ?? .blob(Array(bytes))
        case SQLITE_BLOB:
            let count = Int(sqlite3_value_bytes(value))
            guard count > 0, let p = sqlite3_value_blob(value) else { self = .blob([]); return }
            self = .blob(Array(UnsafeRawBufferPointer(start: p, count: count)))
        default: self = .null
        }
    }
}
