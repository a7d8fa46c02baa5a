import ETLStore

/// `matches(text, pattern)`: whether a regular expression matches the whole text
/// (`RegularExpression`); in SQL `etl_matches(text, pattern)`, 1 or 0, which runs the same
/// Swift code and reads both arguments as `etl_value_string` does, the rejects included, so
/// that a column can go in as stored.
enum MatchesFunction {
    static let definitions = [
        FunctionDefinition("matches", registerSQL: { database, _, rejected in
            try database.createFunction(sql.name) { (text: SQLValue, pattern: SQLValue) in
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
        }) { call, _ throws(ExpressionError) in
            try call.arity(2...2)
            for index in 0..<2 { try call.require(index, "a string") { $0 == .string } }
            if case .literal(.string(let pattern))? = call.arguments[1].form {
                do { try RegularExpression.check(pattern) } catch {
                    throw ExpressionError(message: "matches: \(error)", column: call.arguments[1].column)
                }
            }
            let column = call.arguments[1].column
            return call.strict(.boolean) { text, pattern in
                guard case .string(let s) = text, case .string(let p) = pattern else { return .null }
                do {
                    return .boolean(try RegularExpression.matches(s, pattern: p))
                } catch {
                    throw EvaluationError(message: "matches: \(error)", column: column)
                }
            }.with(form: allForms([call.arguments[0].form, call.arguments[1].form]).map { .matches($0[0], $0[1]) })
        },
    ]

    /// The text goes in as stored when it is a string attribute; the pattern as read.
    static let sql = SQLCall("etl_matches", storedText: [0]) { "etl_matches(\($0[0].sql), \($0[1].sql))" }
}

extension ExpressionForm {
    /// `matches(text, pattern)`.
    public static func matches(_ text: ExpressionForm, _ pattern: ExpressionForm) -> ExpressionForm {
        .call(MatchesFunction.sql, [text, pattern])
    }
}
