/// The functions of a date, in UTC: `epoch(d)` → seconds since 1970 (double),
/// `iso8601(d)` → text, `year(d)`, `month(d)`, `day(d)` → integers. None has an SQL form.
enum DateFunctions {
    static let definitions = [
        dateFunction("epoch", .double) { seconds in .double(seconds) },
        dateFunction("iso8601", .string) { seconds in CivilDate.format(seconds).map(Value.string) ?? .null },
        civilField("year") { $0.year },
        civilField("month") { $0.month },
        civilField("day") { $0.day },
    ]

    private static func dateFunction(_ name: String, _ type: ExprType,
                                     _ body: @escaping @Sendable (Double) -> Value) -> FunctionDefinition {
        FunctionDefinition(name) { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            try call.require(0, "a date") { $0 == .date }
            return call.strict(type) { value in
                guard case .date(let seconds) = value else { return .null }
                return body(seconds)
            }
        }
    }

    private static func civilField(_ name: String,
                                   _ field: @escaping @Sendable ((year: Int64, month: Int64, day: Int64)) -> Int64) -> FunctionDefinition {
        dateFunction(name, .integer) { seconds in
            guard let civil = CivilDate.components(seconds) else { return .null }
            return .integer(field(civil))
        }
    }
}
