import ETLStore

/// The reading rule of stored values (`Value.reading`) in SQL: a column read as a value of
/// its type, a value of its type's usual storage class in SQL and any other by the
/// `etl_value_…` functions, which run the rule in Swift; the row guard `etl_readable`; and
/// the registration of every SQL function a translated statement calls.
extension SQLTranslator {
    /// A source column read as a value of `type`, by the reading rule (`Value.reading`):
    /// a value the `usual` test passes is read in SQL; any other goes through
    /// `etl_value_<type>`, which reads it in Swift or fails the statement. A date is
    /// seconds since 1970 (a number shifted from `epoch` once, ISO text not again), or
    /// with `shifted` false, seconds since `epoch` (a date copied to a store of the same epoch).
    public static func read(_ column: String, as type: ExprType, epoch: Double, usualOnly: Bool = false, shifted: Bool = true,
                     guarded: Bool = false) -> String? {
        guard let usual = usual(column, type, guarded: guarded) else { return nil }
        if type == .date && epoch != 0 {
            let e = literal(.double(epoch))
            let number = shifted ? "(\(usual.sql) + \(e))" : usual.sql
            if usualOnly { return "(\(number))" }
            let other = "\(dateFunction)(\(column), \(e))" + (shifted ? "" : " - \(e)")
            return "(CASE WHEN \(usual.test) THEN \(number) WHEN \(column) IS NULL THEN NULL ELSE \(other) END)"
        }
        return usualOnly ? "(\(usual.sql))"
            : "(CASE WHEN \(usual.test) THEN \(usual.sql) WHEN \(column) IS NULL THEN NULL ELSE \(Self.valueFunction(type))(\(column)) END)"
    }

    /// The test that `column` holds a value `type` reads in SQL exactly as `Value.reading`
    /// does (null for null), and that value read as `type`. The storage class is told by
    /// comparison (numbers sort before text, text before blobs), which SQLite runs much
    /// faster than typeof(); typeof() is asked only of numbers beyond ±2^53 (a double
    /// holds an integer beyond exactly only sometimes; a date is finite).
    ///
    /// `guarded`: the row guard has found the value readable (`etl_readable`), so its
    /// storage class alone tells how: a number is CAST (exact for every number the rule
    /// reads: an integer's REAL has an integer value, a double's INTEGER is one a double
    /// holds), text is UTF-8; anything else goes to `etl_value_<type>`.
    public static func usual(_ column: String, _ type: ExprType, guarded: Bool = false) -> (test: String, sql: String)? {
        let c = column
        let isNumber = "\(c) < ''"
        let exactInDouble = "\(c) BETWEEN -9007199254740992 AND 9007199254740992"
        switch type {
        case .integer: return (guarded ? isNumber : "(\(isNumber) AND \(c) = CAST(\(c) AS INTEGER))", "CAST(\(c) AS INTEGER)")
        case .double:
            return (guarded ? isNumber : "(\(isNumber) AND (\(exactInDouble) OR typeof(\(c)) = 'real'))", "CAST(\(c) AS REAL)")
        case .date:
            return (guarded ? isNumber : "(\(isNumber) AND (\(exactInDouble) OR (typeof(\(c)) = 'real' AND \(c) BETWEEN -1.7976931348623157e308 AND 1.7976931348623157e308)))",
                    "CAST(\(c) AS REAL)")
        case .boolean: return (guarded ? isNumber : "(\(isNumber) AND \(c) IN (0, 1))", "(\(c) <> 0)")
        case .string:
            // Text with bytes that are not UTF-8 is no string (row by row reads it as the blob it is).
            return ("\(c) >= '' AND \(c) < x''" + (guarded ? "" : " AND \(utf8Function)(\(c))"), c)
        case .binary: return ("\(c) >= x''", c)
        default: return nil
        }
    }

    /// `etl_value_date_epoch(x, epoch)`: `x` read as a date of a layout counting from
    /// `epoch`, in seconds since 1970 (`Value.reading`); fails the statement where the
    /// reading rule does not read it.
    public static let dateFunction = "etl_value_date_epoch"

    /// `etl_utf8(x)`: 1 when `x` is text of valid UTF-8, else 0 (its bytes tested, no
    /// String made). SQLite keeps whatever bytes it is given as text.
    public static let utf8Function = "etl_utf8"

    /// `etl_readable(codes, path, value, path, value, …)`: 1 when the reading rule reads
    /// every value, each as the type its letter in `codes` says (`readableCode`); else it
    /// fails the statement naming the first value it does not read: the step then runs row
    /// by row, which rejects that row (or makes the value null, where the pipeline says so).
    /// `PushdownPlan.rowGuard` calls it once a row; a value of its type's own storage
    /// class costs a test of that class, and no more (`Database.createStorageClassTest`).
    public static let readableFunction = "etl_readable"

    /// Registers the SQL functions the translated SQL calls, running the evaluator's own
    /// code, one SQL function per name and type, so that nothing is looked up per value:
    ///
    /// - `etl_value_<type>(x)`: `x` read as a value of that expression type, as the
    ///   extractor reads it, before any epoch shift; a value the extractor rejects
    ///   (`Value.unreadable`) fails the statement;
    /// - `etl_value_date_epoch(x, epoch)`, `etl_utf8(x)`, `etl_readable(…)` (below);
    /// - the functions of the built-ins SQLite has no twin of, each registered by its
    ///   definition (`FunctionDefinition.registerSQL`): `etl_convert_…`, `etl_text_…`,
    ///   `etl_matches`.
    ///
    /// `nulls` counts the values a conversion made null because orNull was 1; `rejected`
    /// keeps why the first value was rejected (a statement failing for another reason
    /// leaves it nil).
    public static func registerValueFunction(on database: Database, nulls: NullCount = NullCount(),
                                             rejected: RejectedValue = RejectedValue()) throws {
        for type in valueTypes {
            try database.createFunction(valueFunction(type)) { (argument: SQLValue) in
                if let reason = Value.unreadable(sql: argument, as: type) { throw rejected.record(reason) }
                return Value(sql: argument, as: type).sqlValue
            }
        }
        try database.createTextTest(utf8Function) { $0.isValidUTF8 }
        try database.createFunction(dateFunction) { (argument: SQLValue, epoch: SQLValue) in
            guard case .real(let e) = epoch, let value = Value.reading(argument, as: .date, epoch: e) else {
                throw rejected.record(Value.unreadable(sql: argument, as: .date) ?? "a date that cannot be read")
            }
            return value.sqlValue
        }
        try database.createStorageClassTest(readableFunction) { arguments, others in
            // Values of another storage class than their type's: the first the rule does
            // not read is the reason (a label before each value: its path).
            func text(_ index: Int) -> String { if case .text(let t) = arguments[index] { t } else { "" } }
            let codes = Array(text(0))
            for index in others {
                guard let type = readableTypes.first(where: { $0.storage.code == codes[(index - 2) / 2] })?.type,
                      let why = Value.unreadable(sql: arguments[index], as: type) else { continue }
                throw rejected.record("\(text(index - 1)): \(why)")
            }
        }
        for definition in FunctionLibrary.definitions {
            try definition.registerSQL?(database, nulls, rejected)
        }
    }

    /// The types `etl_readable` tests, each with the storage class its values of its own
    /// class are in (`Value.reading`'s first cases: each such value reads as itself).
    public static let readableTypes: [(type: ExprType, storage: ExpectedStorage)] = [
        (.integer, .integer), (.double, .number), (.date, .finiteNumber), (.boolean, .zeroOrOne), (.string, .utf8Text), (.binary, .bytes),
    ]

    /// The letter `etl_readable` knows `type` by.
    public static func readableCode(_ type: ExprType) -> Character? {
        readableTypes.first { $0.type == type }?.storage.code
    }

    /// The types a value function reads values as.
    static let valueTypes: [ExprType] = [.integer, .double, .string, .boolean, .date, .binary]

    static func valueFunction(_ type: ExprType) -> String { "etl_value_\(type)" }

    /// Why a pushed statement stopped: a value the row-by-row engine would reject.
    public struct ValueRejected: Error, CustomStringConvertible {
        public let reason: String
        public var description: String { reason }
    }

    /// The first value the functions of one connection rejected, for the statement that
    /// failed to tell a rejected value from any other failure. (`PushdownStage` keeps a
    /// second one for the source rows a policy SQLite calls cannot make, `PolicyInSQLite`.)
    public final class RejectedValue: @unchecked Sendable {
        /// Set from inside a statement, read after it, on the connection's one thread.
        public private(set) var reason: String?

        public init() {}

        public func record(_ reason: String) -> ValueRejected {
            if self.reason == nil { self.reason = reason }
            return ValueRejected(reason: reason)
        }

        public func clear() { reason = nil }
    }
}
