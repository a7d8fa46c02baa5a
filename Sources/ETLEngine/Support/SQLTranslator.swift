import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Writes an `ExpressionForm` as SQL over one source row (`alias`, a row of `entity` in
/// the attached source), giving exactly the value the evaluator would.
///
/// Source columns are read as the extractor reads them (`Value(sql:as:)`, dates shifted
/// by the source layout's epoch): a value of the storage class a type usually has is
/// taken as is (or cast as `Value(sql:as:)` casts it, integer to REAL for a double);
/// anything else goes through `etl_value()`, which runs that very conversion in Swift. Only the source row's own attributes, its key and its to-one
/// keys are readable; a deeper path has no translation and keeps the step row by row.
struct SQLTranslator {
    let layout: any StoreLayout
    let entity: String
    let alias: String
    /// Inside a forEach: the entity of `$item`, whose row is joined under `itemAlias`
    /// (null columns when the item row is missing, as row by row reads it).
    var itemEntity: String? = nil
    var itemAlias = "i"
    /// Read every column as holding a value of its type's usual storage class (`read`),
    /// without the fallback for others: for statements over rows known to hold no other.
    var usualValuesOnly = false
    /// The statement's row guard (`PushdownPlan.rowGuard`) has tested every value of the
    /// source row's columns it reads: each is one the reading rule reads, so its reads
    /// need only tell its storage class (`usual`, `guarded`).
    var rowGuarded = false

    /// The SQL of `form`, or nil when it cannot be translated.
    func sql(_ form: ExpressionForm) -> String? {
        switch form {
        case .literal(let value): return Self.literal(value)
        case .path(let path, let type):
            if path.root == .item {
                return itemEntity.flatMap { SQLTranslator(layout: layout, entity: $0, alias: itemAlias).path(path.segments, type) }
            }
            return self.path(path.segments, type)
        case .not(let a): return sql(a).map { "(NOT \($0))" }
        case .and(let a, let b): return binary("AND", a, b)
        case .or(let a, let b): return binary("OR", a, b)
        case .isNull(.path(let path, .string), let wantsNull) where path.root == .source && path.segments.count == 1
                && layout.model.attribute(path.segments[0], of: entity) != nil:
            // Every stored value but null reads as a string: test the column itself.
            let column = "\(alias).\(Database.quote(layout.column(ofAttribute: path.segments[0], entity: entity)))"
            return "(\(column) IS \(wantsNull ? "" : "NOT ")NULL)"
        case .isNull(let a, let wantsNull): return sql(a).map { "(\($0) IS \(wantsNull ? "" : "NOT ")NULL)" }
        case .compare(let op, let a, let b): return binary(op, a, b)
        case .arithmetic(let op, let a, let b): return binary(op, a, b)
        case .toDouble(let a): return sql(a).map { "CAST(\($0) AS REAL)" }
        case .conditional(let c, let a, let b):
            guard let c = sql(c), let a = sql(a), let b = sql(b) else { return nil }
            return "(CASE WHEN \(c) THEN \(a) ELSE \(b) END)"
        case .coalesce(let list):
            let parts = list.compactMap(sql)
            return parts.count == list.count ? "coalesce(\(parts.joined(separator: ", ")))" : nil
        case .convert(let conversion, let argument, let type, let orNull):
            // A string attribute goes in as stored: the function reads it as `read` would
            // (one CASE per value less; see `registerValueFunction`).
            let column = stringColumn(argument)
            guard let value = column ?? sql(argument) else { return nil }
            let call = "\(Self.convertFunction(conversion, type))(\(orNull ? 1 : 0), \(value))"
            if conversion == .boolean, let column { return Self.booleanWords(column, else: call) }
            return call
        case .text(let function, let argument):
            let column = stringColumn(argument)
            guard let value = column ?? sql(argument) else { return nil }
            let call = "\(Self.textFunction(function))(\(value))"
            if function == .trim, let column { return Self.asciiTrim(column, else: call) }
            return call
        case .matches(let text, let pattern):
            guard let text = stringColumn(text) ?? sql(text), let pattern = sql(pattern) else { return nil }
            return "\(Self.matchesFunction)(\(text), \(pattern))"
        case .utf16Length(let text):
            guard let text = stringColumn(text) ?? sql(text) else { return nil }
            return "\(Self.utf16LengthFunction)(\(text))"
        case .function(let name, let list):
            let parts = list.compactMap(sql)
            return parts.count == list.count ? "\(Self.functionName(name))(\(parts.joined(separator: ", ")))" : nil
        case .destinations, .union:
            return nil  // a relationship statement joins these; no scalar value
        }
    }

    /// The column a string attribute of the row (or item) is stored in, for `form` reading
    /// one: the shortcuts below test its value as stored, and only `call`, their way out,
    /// reads it as the engine reads it (`read`).
    private func stringColumn(_ form: ExpressionForm) -> String? {
        guard case .path(let path, .string) = form, path.segments.count == 1 else { return nil }
        let (entity, alias) = path.root == .item ? (itemEntity, itemAlias) : (entity, alias)
        guard let entity, let attribute = layout.model.attribute(path.segments[0], of: entity), attribute.type == .string,
              !(attribute.allowsExternalStorage && layout.kind == .coredata) else { return nil }
        return "\(alias).\(Database.quote(layout.column(ofAttribute: attribute.name, entity: entity)))"
    }

    /// `trim` of `column` by SQLite's own `trim` when it holds text that is ASCII without a
    /// NUL (as many characters as bytes: `length` of text counts characters up to a NUL),
    /// where Unicode's White_Space is exactly tab, line feed, vertical tab, form feed,
    /// carriage return and space; else `call`, the engine's own. A call into Swift per
    /// value cost more than the rest of a conversion's statement. (Text stored with bytes
    /// that are not UTF-8 keeps them, as a pushed-down copy of it does.)
    static func asciiTrim(_ column: String, else call: String) -> String {
        "(CASE WHEN \(column) >= '' AND \(column) < x'' AND length(\(column)) = length(CAST(\(column) AS BLOB)) "
            + "THEN trim(\(column), char(9, 10, 11, 12, 13, 32)) ELSE \(call) END)"
    }

    /// `boolean()` of `column` by a CASE over the words exactly as spelled in any ASCII
    /// case, and "1" and "0" (SQLite's `lower` folds ASCII only, as `booleanWord` does, and
    /// reads a number or a blob as the text the engine reads: 1 as '1'); anything else —
    /// other text, white space around a word — by `call`, the engine's own, which also
    /// rejects what is not a boolean.
    static func booleanWords(_ column: String, else call: String) -> String {
        let words = Conversion.trueWords.sorted().map { ($0, 1) } + Conversion.falseWords.sorted().map { ($0, 0) } + [("1", 1), ("0", 0)]
        return "(CASE lower(\(column)) " + words.map { "WHEN '\($0.0)' THEN \($0.1) " }.joined() + "ELSE \(call) END)"
    }

    /// The value to store in a destination attribute of `type` (what `storedValue` does):
    /// dates shifted to the destination's epoch, integers made REAL for non-integer numbers.
    func stored(_ expression: CompiledExpression, as type: AttributeType, epoch: Double) -> String? {
        guard let form = expression.form, let value = sql(form) else { return nil }
        // A date copied from a store that counts from the same instant is copied as stored:
        // shifting to 1970 and back would round away its last bits (Core Data's own
        // migration keeps them).
        if case .path(let path, .date) = form, path.root == .source, path.segments.count == 1, layout.dateEpoch == epoch,
           let attribute = layout.model.attribute(path.segments[0], of: entity), attribute.type == .date {
            return Self.read("\(alias).\(Database.quote(layout.column(ofAttribute: attribute.name, entity: entity)))", as: .date,
                             epoch: layout.dateEpoch, shifted: false, guarded: rowGuarded)
        }
        switch expression.type {
        case .date where epoch != 0: return "(\(value) - \(Self.literal(.double(epoch))))"
        case .integer where !type.isInteger && type.isNumeric: return "CAST(\(value) AS REAL)"
        default: return value
        }
    }

    private func binary(_ op: String, _ a: ExpressionForm, _ b: ExpressionForm) -> String? {
        guard let a = sql(a), let b = sql(b) else { return nil }
        return "(\(a) \(op) \(b))"
    }

    private func path(_ segments: [String], _ type: ExprType) -> String? {
        let q = Database.quote
        let model = layout.model
        guard let name = segments.first else {
            return "\(alias).\(q(layout.table(of: entity).keyColumn))"
        }
        guard segments.count == 1 else { return nil }
        if let attribute = model.attribute(name, of: entity) {
            // The column holds a marker, the bytes may be in a file: read row by row.
            if attribute.allowsExternalStorage && layout.kind == .coredata { return nil }
            return Self.read("\(alias).\(q(layout.column(ofAttribute: attribute.name, entity: entity)))",
                             as: ExprType(attribute.type), epoch: layout.dateEpoch, usualOnly: usualValuesOnly, guarded: rowGuarded)
        }
        if let r = model.relationship(name, of: entity), !r.isToMany,
           case .foreignKey(_, let column) = layout.storage(ofRelationship: name, entity: entity) {
            // Only an integer is a key (`Value(sql:as:)` reads anything else as null).
            let c = "\(alias).\(q(column))"
            return "(CASE WHEN typeof(\(c)) = 'integer' THEN \(c) END)"
        }
        return nil
    }

    /// A source column read as a value of `type`, by the reading rule (`Value.reading`):
    /// a value the `usual` test passes is read in SQL; any other goes through
    /// `etl_value_<type>`, which reads it in Swift or fails the statement. A date is
    /// seconds since 1970 (a number shifted from `epoch` once, ISO text not again), or
    /// with `shifted` false, seconds since `epoch` (a date copied to a store of the same epoch).
    static func read(_ column: String, as type: ExprType, epoch: Double, usualOnly: Bool = false, shifted: Bool = true,
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
    static func usual(_ column: String, _ type: ExprType, guarded: Bool = false) -> (test: String, sql: String)? {
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
    static let dateFunction = "etl_value_date_epoch"

    /// `etl_utf8(x)`: 1 when `x` is text of valid UTF-8, else 0 (its bytes tested, no
    /// String made). SQLite keeps whatever bytes it is given as text.
    static let utf8Function = "etl_utf8"

    /// `etl_readable(codes, path, value, path, value, …)`: 1 when the reading rule reads
    /// every value, each as the type its letter in `codes` says (`readableCode`); else it
    /// fails the statement naming the first value it does not read: the step then runs row
    /// by row, which rejects that row (or makes the value null, where the pipeline says so).
    /// `PushdownPlan.rowGuard` calls it once a row; a value of its type's own storage
    /// class costs a test of that class, and no more (`Database.createStorageClassTest`).
    static let readableFunction = "etl_readable"

    /// A literal as SQL. Doubles are written in Swift's shortest form that reads back as
    /// the same double, which SQLite's parser also reads back exactly.
    static func literal(_ value: Value) -> String {
        switch value {
        case .double(let d): return d.isFinite ? "\(d)" : "NULL"
        case .date(let d): return d.isFinite ? "\(d)" : "NULL"
        default: return value.sqlValue.sqlLiteral
        }
    }

    /// The SQL name of an added function: any Swift name, spelled as an SQL identifier.
    static func functionName(_ name: String) -> String {
        "etl_fn_" + name.utf8.map { String(format: "%02x", $0) }.joined()
    }

    /// Registers the program's expression functions: the arguments read as their declared
    /// types (SQL holds dates as seconds since 1970, booleans as 0/1, as `Value.sqlValue`).
    static func register(_ functions: [String: ExpressionFunction], on database: Database) throws {
        for (name, function) in functions {
            try database.createFunction(functionName(name), arity: Int32(function.arguments.count)) { arguments in
                function.call(zip(arguments, function.arguments).map { Value(sql: $0, as: $1) }).sqlValue
            }
        }
    }

    /// Registers the built-ins SQLite has no twin of, running the evaluator's own code,
    /// one SQL function per name and type, so that nothing is looked up per value:
    ///
    /// - `etl_value_<type>(x)`: `x` read as a value of that expression type, as the
    ///   extractor reads it, before any epoch shift; a value the extractor rejects
    ///   (`Value.unreadable`) fails the statement;
    /// - `etl_convert_<conversion>_<type>(orNull, x)`: the conversion of `x`, read as
    ///   `type`; fails the statement where the evaluator rejects the row, unless orNull is 1;
    /// - `etl_text_<function>(x)`;
    /// - `etl_matches(text, pattern)` (`RegularExpression`), 1 or 0;
    /// - `etl_text_utf16length(x)` (`TextFunction.utf16Length`).
    ///
    /// The last two read `x` as `etl_value_<type>` does, the rejects included, so that a
    /// column can go in as stored; a value already read reads as itself again.
    ///
    /// `nulls` counts the values a conversion made null because orNull was 1; `rejected`
    /// keeps why the first value was rejected (a statement failing for another reason
    /// leaves it nil).
    static func registerValueFunction(on database: Database, nulls: NullCount = NullCount(),
                                      rejected: RejectedValue = RejectedValue()) throws {
        for type in valueTypes {
            try database.createFunction(valueFunction(type)) { (argument: SQLValue) in
                if let reason = Value.unreadable(sql: argument, as: type) { throw rejected.record(reason) }
                return Value(sql: argument, as: type).sqlValue
            }
            for conversion in Conversion.allCases {
                let convert: @Sendable (SQLValue, SQLValue) throws -> SQLValue = { orNull, argument in
                    if let reason = Value.unreadable(sql: argument, as: type) { throw rejected.record(reason) }
                    do {
                        return try conversion.convert(Value(sql: argument, as: type)).sqlValue
                    } catch {
                        if case .integer(1) = orNull {
                            nulls.add()
                            return .null
                        }
                        throw rejected.record("\(error)")
                    }
                }
                if conversion == .date, type == .string {
                    // Text dates by their bytes: the String and values of a call cost
                    // several times the parse (a conversion calls this once per row).
                    try database.createFunction(convertFunction(conversion, type),
                                                text: { Conversion.isoDate(utf8: $0).map(SQLValue.real) }, convert)
                } else {
                    try database.createFunction(convertFunction(conversion, type), convert)
                }
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
        try database.createFunction(matchesFunction) { (text: SQLValue, pattern: SQLValue) in
            for argument in [text, pattern] {
                if let reason = Value.unreadable(sql: argument, as: .string) { throw rejected.record(reason) }
            }
            guard case .string(let s) = Value(sql: text, as: .string), case .string(let p) = Value(sql: pattern, as: .string) else { return .null }
            do {
                return .integer(try RegularExpression.matches(s, pattern: p) ? 1 : 0)
            } catch {
                throw rejected.record("matches: \(error)")
            }
        }
        for function in TextFunction.allCases {
            try database.createFunction(textFunction(function)) { (argument: SQLValue) in
                if let reason = Value.unreadable(sql: argument, as: .string) { throw rejected.record(reason) }
                guard case .string(let text) = Value(sql: argument, as: .string) else { return .null }
                return .text(function.apply(text))
            }
        }
        // SQLite's length() counts characters (up to a NUL), not UTF-16 units.
        try database.createFunction(utf16LengthFunction) { (argument: SQLValue) in
            if let reason = Value.unreadable(sql: argument, as: .string) { throw rejected.record(reason) }
            guard case .string(let text) = Value(sql: argument, as: .string) else { return .null }
            return .integer(TextFunction.utf16Length(text))
        }
    }

    /// The types `etl_readable` tests, each with the storage class its values of its own
    /// class are in (`Value.reading`'s first cases: each such value reads as itself).
    static let readableTypes: [(type: ExprType, storage: ExpectedStorage)] = [
        (.integer, .integer), (.double, .number), (.date, .finiteNumber), (.boolean, .zeroOrOne), (.string, .utf8Text), (.binary, .bytes),
    ]

    /// The letter `etl_readable` knows `type` by.
    static func readableCode(_ type: ExprType) -> Character? {
        readableTypes.first { $0.type == type }?.storage.code
    }

    /// The types a value function reads values as.
    static let valueTypes: [ExprType] = [.integer, .double, .string, .boolean, .date, .binary]

    static func valueFunction(_ type: ExprType) -> String { "etl_value_\(type)" }
    static func convertFunction(_ conversion: Conversion, _ type: ExprType) -> String { "etl_convert_\(conversion.rawValue)_\(type)" }
    static func textFunction(_ function: TextFunction) -> String { "etl_text_\(function.rawValue)" }
    static let matchesFunction = "etl_matches"
    static let utf16LengthFunction = "etl_text_utf16length"

    /// Why a pushed statement stopped: a value the row-by-row engine would reject.
    struct ValueRejected: Error, CustomStringConvertible {
        let reason: String
        var description: String { reason }
    }

    /// The first value the functions of one connection rejected, for the statement that
    /// failed to tell a rejected value from any other failure. (`PushdownStage` keeps a
    /// second one for the source rows a policy SQLite calls cannot make, `PolicyInSQLite`.)
    final class RejectedValue: @unchecked Sendable {
        /// Set from inside a statement, read after it, on the connection's one thread.
        private(set) var reason: String?

        func record(_ reason: String) -> ValueRejected {
            if self.reason == nil { self.reason = reason }
            return ValueRejected(reason: reason)
        }

        func clear() { reason = nil }
    }
}
