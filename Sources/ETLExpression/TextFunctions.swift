import ETLStore

/// The text functions. `trim`, `normalize`, `casefold`, `diacriticfold` and `utf16length`
/// have an SQL form: SQLite has no twin of them, so their SQL calls `etl_text_…`, which runs
/// this very Swift code (`TextOperations`), and a step pushed down computes exactly what
/// the evaluator does. The others have none: a step using them runs row by row.
enum TextFunctions {
    static let definitions: [FunctionDefinition] = [
        FunctionDefinition("concat") { call, _ throws(ExpressionError) in try concat(call) },
        FunctionDefinition("substring") { call, _ throws(ExpressionError) in try substring(call) },
        FunctionDefinition("prefix") { call, _ throws(ExpressionError) in
            try call.arity(2...2)
            try call.require(0, "a string") { $0 == .string }
            try call.require(1, "an integer") { $0 == .integer }
            return call.strict(.string) { text, count in
                guard case .string(let s) = text, case .integer(let n) = count else { return .null }
                return .string(TextOperations.substring(s, start: 1, length: n))
            }
        },
        caseMapping("upper", TextOperations.upper),
        caseMapping("lower", TextOperations.lower),
    ] + TextFunction.allCases.map(definition) + [
        FunctionDefinition("replace") { call, _ throws(ExpressionError) in
            try call.arity(3...3)
            for index in 0..<3 { try call.require(index, "a string") { $0 == .string } }
            return call.strict(.string) { text, find, replacement in
                guard case .string(let s) = text, case .string(let f) = find, case .string(let r) = replacement
                else { return .null }
                return .string(TextOperations.replace(s, f, with: r))
            }
        },
        FunctionDefinition("length") { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            try call.require(0, "a string or binary") { $0 == .string || $0 == .binary }
            return call.strict(.integer) { value in
                switch value {
                case .string(let s): return .integer(TextOperations.length(s))
                case .binary(let b): return .integer(Int64(b.count))
                default: return .null
                }
            }
        },
        utf16length,
    ]

    /// `upper()`, `lower()`.
    private static func caseMapping(_ name: String, _ operation: @escaping @Sendable (String) -> String) -> FunctionDefinition {
        FunctionDefinition(name) { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            try call.require(0, "a string") { $0 == .string }
            return call.strict(.string) { value in
                guard case .string(let s) = value else { return .null }
                return .string(operation(s))
            }
        }
    }

    /// `trim()`, `normalize()`, `casefold()`, `diacriticfold()`; in SQL `etl_text_<name>(x)`,
    /// which reads `x` as `etl_value_string` does, the rejects included, so that a column
    /// can go in as stored (a value already read reads as itself again).
    private static func definition(_ function: TextFunction) -> FunctionDefinition {
        FunctionDefinition(function.rawValue, registerSQL: { database, _, rejected in
            let apply: @Sendable (SQLValue) throws -> SQLValue = { argument in
                if let reason = Value.unreadable(sql: argument, as: .string) { throw rejected.record(reason) }
                guard case .string(let text) = Value(sql: argument, as: .string) else { return .null }
                return .text(function.apply(text))
            }
            if function == .trim {
                // Stored text trimmed by its bytes, no String made (`trimmedRange`).
                try database.createFunction(function.sqlName, slice: { TextOperations.trimmedRange(utf8: $0) }, apply)
            } else {
                try database.createFunction(function.sqlName, apply)
            }
        }) { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            try call.require(0, "a string") { $0 == .string }
            return call.strict(.string) { value in
                guard case .string(let s) = value else { return .null }
                return .string(function.apply(s))
            }.with(form: call.arguments[0].form.map { .text(function, $0) })
        }
    }

    /// `utf16length()`: NSString's and NSData's `length`, which a mapping model's `length`
    /// means (`😀` is 2; `length()` counts it 1, as SQLite does); in SQL
    /// `etl_text_utf16length(x)` (SQLite's length() counts characters up to a NUL), which reads
    /// `x` as `etl_value_string` does.
    private static let utf16length = FunctionDefinition("utf16length", registerSQL: { database, _, rejected in
        try database.createFunction(utf16LengthSQL.name) { (argument: SQLValue) in
            if let reason = Value.unreadable(sql: argument, as: .string) { throw rejected.record(reason) }
            guard case .string(let text) = Value(sql: argument, as: .string) else { return .null }
            return .integer(TextFunction.utf16Length(text))
        }
    }) { call, _ throws(ExpressionError) in
        try call.arity(1...1)
        try call.require(0, "a string or binary") { $0 == .string || $0 == .binary }
        let isString = call.arguments[0].type == .string
        return call.strict(.integer) { value in
            switch value {
            case .string(let s): return .integer(TextFunction.utf16Length(s))
            case .binary(let b): return .integer(Int64(b.count))
            default: return .null
            }
        }.with(form: isString ? call.arguments[0].form.map { .call(utf16LengthSQL, [$0]) } : nil)
    }

    private static let utf16LengthSQL = SQLCall("etl_text_utf16length", storedText: [0]) { "etl_text_utf16length(\($0[0].sql))" }

    /// `concat(a, …)`: the arguments' texts joined (numbers, booleans and dates converted
    /// as `string()` does); null if any argument is null, like SQLite's `||`.
    static func concat(_ call: FunctionCall) throws(ExpressionError) -> Checked {
        try call.arity(atLeast: 1)
        for index in call.arguments.indices {
            try call.require(index, "a string, number, boolean or date", \.isTextConvertible)
        }
        return Checked(type: .string, syntax: call.syntax, build: { linker in
            let evaluators = call.arguments.map { $0.build(linker) }
            return { context in
                var result = ""
                for evaluate in evaluators {
                    guard let text = SQLiteConversion.text(from: try evaluate(context)) else { return .null }
                    result += text
                }
                return .string(result)
            }
        })
    }

    static func substring(_ call: FunctionCall) throws(ExpressionError) -> Checked {
        try call.arity(2...3)
        try call.require(0, "a string") { $0 == .string }
        try call.require(1, "an integer") { $0 == .integer }
        if call.arguments.count == 2 {
            return call.strict(.string) { text, start in
                guard case .string(let s) = text, case .integer(let p) = start else { return .null }
                return .string(TextOperations.substring(s, start: p, length: nil))
            }
        }
        try call.require(2, "an integer") { $0 == .integer }
        return call.strict(.string) { text, start, length in
            guard case .string(let s) = text, case .integer(let p) = start, case .integer(let n) = length
            else { return .null }
            return .string(TextOperations.substring(s, start: p, length: n))
        }
    }
}

/// The text functions without an SQLite twin, by name.
public enum TextFunction: String, Sendable, Hashable, CaseIterable {
    case trim, normalize, casefold, diacriticfold

    public func apply(_ text: String) -> String {
        switch self {
        case .trim: return TextOperations.trim(text)
        case .normalize: return TextOperations.normalize(text)
        case .casefold: return TextOperations.casefold(text)
        case .diacriticfold: return TextOperations.diacriticfold(text)
        }
    }

    /// The SQL function that runs it, `etl_text_<name>`.
    var sqlName: String { "etl_text_\(rawValue)" }

    /// Its SQL form: a string attribute goes in as stored, and the function reads it by the
    /// reading rule (`trim` of UTF-8 text with ASCII ends by its bytes, no String made).
    var sql: SQLCall {
        let name = sqlName
        return SQLCall(name, storedText: [0]) { arguments in "\(name)(\(arguments[0].sql))" }
    }

    /// `utf16length()`: the number of UTF-16 code units, as NSString's `length` counts them
    /// (`😀` is 2; `length()` counts it 1, as SQLite does). The evaluator and the SQL
    /// function a step pushed down calls (`etl_text_utf16length`) both count with this.
    public static func utf16Length(_ text: String) -> Int64 {
        Int64(text.utf16.count)
    }
}

extension ExpressionForm {
    /// `trim()`, `normalize()`, `casefold()` or `diacriticfold()` of `argument`.
    public static func text(_ function: TextFunction, _ argument: ExpressionForm) -> ExpressionForm {
        .call(function.sql, [argument])
    }
}
