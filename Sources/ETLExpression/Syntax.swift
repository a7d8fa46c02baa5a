/// The parsed, not yet checked form of an expression.
struct Syntax: Sendable {
    enum UnaryOperator: Sendable {
        case not, negate
    }

    enum BinaryOperator: String, Sendable {
        case or = "||", and = "&&"
        case equal = "==", notEqual = "!="
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case plus = "+", minus = "-", times = "*", divide = "/", remainder = "%"
    }

    struct Segment: Sendable {
        var name: String
        var column: Int
    }

    indirect enum Kind: Sendable {
        /// A literal: `.null`, `.boolean`, `.integer`, `.double` or `.string`.
        case literal(Value)
        case path(PathRoot, [Segment])
        /// `spelling` is the operator as written (`!` or `not`, `-`).
        case unary(UnaryOperator, spelling: String, Syntax)
        /// `spelling` is the operator as written (`&&` or `and`); `operatorColumn` where it is.
        case binary(BinaryOperator, spelling: String, operatorColumn: Int, Syntax, Syntax)
        case call(String, [Syntax])
    }

    var kind: Kind
    /// Where the expression starts in the text (1-based).
    var column: Int

    var isNullLiteral: Bool {
        if case .literal(.null) = kind { return true }
        return false
    }

    var stringLiteral: String? {
        if case .literal(.string(let text)) = kind { return text }
        return nil
    }
}
