/// The runtime semantics of the operators. They follow SQLite's on purpose, so that an
/// expression evaluated here and the same expression pushed down into SQL give the same
/// result — see `CompiledExpression` for the list.
enum Operators {
    // MARK: Comparison

    /// Three-way comparison of two non-null values of comparable types; nil when either
    /// is null (or a double is NaN). Integers and doubles compare exactly by numeric
    /// value; strings by their UTF-8 bytes (SQLite's BINARY collation), not by Swift's
    /// Unicode-aware ordering; binary by bytes; false < true.
    static func compare(_ a: Value, _ b: Value) -> Int? {
        switch (a, b) {
        case (.integer(let x), .integer(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        case (.double(let x), .double(let y)): return compare(x, y)
        case (.integer(let x), .double(let y)): return compare(x, y)
        case (.double(let x), .integer(let y)): return compare(y, x).map { -$0 }
        case (.string(let x), .string(let y)): return compareBytes(x.utf8, y.utf8)
        case (.date(let x), .date(let y)): return compare(x, y)
        case (.boolean(let x), .boolean(let y)): return x == y ? 0 : (x ? 1 : -1)
        case (.binary(let x), .binary(let y)): return compareBytes(x, y)
        case (.row(let x), .row(let y)): return x < y ? -1 : (x == y ? 0 : 1)
        default: return nil
        }
    }

    private static func compare(_ x: Double, _ y: Double) -> Int? {
        if x < y { return -1 }
        if x > y { return 1 }
        return x == y ? 0 : nil
    }

    /// Exact integer-versus-double comparison (no rounding of large integers).
    private static func compare(_ x: Int64, _ y: Double) -> Int? {
        if y.isNaN { return nil }
        if y < -9_223_372_036_854_775_808.0 { return 1 }
        if y >= 9_223_372_036_854_775_808.0 { return -1 }
        let whole = Int64(y.rounded(.towardZero))
        if x != whole { return x < whole ? -1 : 1 }
        let fraction = y - Double(whole)
        return fraction > 0 ? -1 : (fraction < 0 ? 1 : 0)
    }

    private static func compareBytes<A: Sequence, B: Sequence>(_ a: A, _ b: B) -> Int
    where A.Element == UInt8, B.Element == UInt8 {
        var left = a.makeIterator()
        var right = b.makeIterator()
        while true {
            switch (left.next(), right.next()) {
            case (nil, nil): return 0
            case (nil, _): return -1
            case (_, nil): return 1
            case (let x?, let y?): if x != y { return x < y ? -1 : 1 }
            }
        }
    }

    static func compare(_ op: Syntax.BinaryOperator, _ a: Value, _ b: Value) -> Value {
        guard let order = compare(a, b) else { return .null }
        switch op {
        case .equal: return .boolean(order == 0)
        case .notEqual: return .boolean(order != 0)
        case .less: return .boolean(order < 0)
        case .lessOrEqual: return .boolean(order <= 0)
        case .greater: return .boolean(order > 0)
        case .greaterOrEqual: return .boolean(order >= 0)
        default: return .null
        }
    }

    // MARK: Arithmetic

    /// `+ - * / %`. Integer with integer stays integer (division truncates toward zero);
    /// with a double operand the result is double (`%` on doubles, as in SQLite, takes the
    /// remainder of the operands truncated to integers). Division or remainder by zero,
    /// a NaN result, or any null operand give null. Integer overflow throws.
    static func arithmetic(_ op: Syntax.BinaryOperator, _ a: Value, _ b: Value, column: Int) throws -> Value {
        switch (a, b) {
        case (.integer(let x), .integer(let y)):
            let result: (Int64, Bool)
            switch op {
            case .plus: result = x.addingReportingOverflow(y)
            case .minus: result = x.subtractingReportingOverflow(y)
            case .times: result = x.multipliedReportingOverflow(by: y)
            case .divide:
                if y == 0 { return .null }
                result = x.dividedReportingOverflow(by: y)
            case .remainder:
                if y == 0 { return .null }
                if y == -1 { return .integer(0) }
                result = (x % y, false)
            default: return .null
            }
            if result.1 {
                throw EvaluationError(message: "integer overflow in '\(op.rawValue)' (\(x) \(op.rawValue) \(y))",
                                      column: column)
            }
            return .integer(result.0)
        default:
            guard let x = a.numeric, let y = b.numeric else { return .null }
            let result: Double
            switch op {
            case .plus: result = x + y
            case .minus: result = x - y
            case .times: result = x * y
            case .divide:
                if y == 0 { return .null }
                result = x / y
            case .remainder:
                let divisor = SQLiteConversion.integer(fromReal: y)
                if divisor == 0 { return .null }
                let dividend = SQLiteConversion.integer(fromReal: x)
                result = Double(divisor == -1 ? 0 : dividend % divisor)
            default: return .null
            }
            return result.isNaN ? .null : .double(result)
        }
    }

    static func negate(_ value: Value, column: Int) throws -> Value {
        switch value {
        case .integer(let x):
            if x == .min { throw EvaluationError(message: "integer overflow in '-' (-(\(x)))", column: column) }
            return .integer(-x)
        case .double(let x): return .double(-x)
        default: return .null
        }
    }
}

extension Value {
    /// An integer or double as a Double; nil otherwise.
    var numeric: Double? {
        switch self {
        case .integer(let i): return Double(i)
        case .double(let d): return d
        default: return nil
        }
    }
}
