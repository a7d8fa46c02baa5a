import ETLStore

/// The conversions `integer(x)`, `double(x)`, `boolean(x)`, `date(x)` (a `Conversion`, which
/// fails on a value it cannot convert: the row is rejected), `orNull(x)` around one, and
/// `string(x)`, the text `concat` uses. A conversion's SQL form is
/// `etl_convert_<conversion>_<type>(orNull, x)`, which runs the same Swift code on `x` read
/// as `type`.
enum ConversionFunctions {
    static let definitions = [
        conversion(.integer, "a number, string, boolean or date") { $0.isTextConvertible },
        conversion(.double, "a number, string, boolean or date") { $0.isTextConvertible },
        FunctionDefinition("string") { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            try call.require(0, "a string, number, boolean or date", \.isTextConvertible)
            return call.strict(.string) { value in SQLiteConversion.text(from: value).map(Value.string) ?? .null }
        },
        conversion(.boolean, "a number, string or boolean") { $0.isNumeric || $0 == .string || $0 == .boolean },
        FunctionDefinition("orNull") { call, _ throws(ExpressionError) in try orNull(call) },
        conversion(.date, "a string, number or date") { $0 == .string || $0.isNumeric || $0 == .date },
    ]

    private static func conversion(_ conversion: Conversion, _ description: String,
                                   _ accepts: @escaping @Sendable (ExprType) -> Bool) -> FunctionDefinition {
        FunctionDefinition(conversion.rawValue, registerSQL: { database, nulls, rejected in
            try register(conversion, on: database, nulls: nulls, rejected: rejected)
        }) { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            let argument = call.arguments[0]
            try call.require(0, description, accepts)
            let column = call.syntax.column
            return call.strict(conversion.type) { value in
                do {
                    return try conversion.convert(value)
                } catch let error as ConversionError {
                    throw ConversionFailure(error: error, column: column)
                }
            }.with(form: argument.form.map { .convert(conversion, $0, from: argument.type, orNull: false) })
        }
    }

    /// `orNull(x)`: `x`, or null where a conversion inside `x` cannot convert its value
    /// (any other failure still rejects the row). The null is wanted, so it is counted
    /// apart from the rejects.
    private static func orNull(_ call: FunctionCall) throws(ExpressionError) -> Checked {
        try call.arity(1...1)
        let argument = call.arguments[0]
        var form: ExpressionForm?
        // Inside SQL only the outer conversion can give null: a failing one within it would
        // fail the statement where the evaluator gives null.
        if case .convert(let conversion, let inner, let type, _) = argument.form, !inner.mayFail {
            form = .convert(conversion, inner, from: type, orNull: true)
        }
        return Checked(type: argument.type, syntax: call.syntax, build: { linker in
            let evaluate = argument.build(linker)
            return { context in
                do {
                    return try evaluate(context)
                } catch is ConversionFailure {
                    context.nullsOnPurpose?.add()
                    return .null
                }
            }
        }).with(form: form)
    }

    /// `etl_convert_<conversion>_<type>(orNull, x)` for every type a value is read as: the
    /// conversion of `x`, read as `type`; fails the statement where the evaluator rejects the
    /// row, unless orNull is 1 (`nulls` counts those).
    private static func register(_ conversion: Conversion, on database: Database, nulls: NullCount,
                                 rejected: SQLTranslator.RejectedValue) throws {
        for type in SQLTranslator.valueTypes {
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
                try database.createFunction(sqlName(conversion, type),
                                            text: { Conversion.isoDate(utf8: $0).map(SQLValue.real) }, convert)
            } else {
                try database.createFunction(sqlName(conversion, type), convert)
            }
        }
    }

    static func sqlName(_ conversion: Conversion, _ type: ExprType) -> String { "etl_convert_\(conversion.rawValue)_\(type)" }

    /// The SQL of `conversion` of `value` (read as `type`; `column`, a string attribute's
    /// column, goes in as stored: the function reads it as `read` would, one CASE per value
    /// less). `boolean()` of such a column tries the words first (`booleanWords`).
    static func sql(_ conversion: Conversion, of value: SQLArgument, from type: ExprType, orNull: Bool) -> String {
        let call = "\(sqlName(conversion, type))(\(orNull ? 1 : 0), \(value.sql))"
        if conversion == .boolean, let column = value.storedColumn { return booleanWords(column, else: call) }
        return call
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
}
