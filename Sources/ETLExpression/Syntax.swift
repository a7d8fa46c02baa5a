/// The parsed, not yet checked form of an expression.
public struct Syntax: Sendable {
    public enum UnaryOperator: Sendable {
        case not, negate
    }

    public enum BinaryOperator: String, Sendable {
        case or = "||", and = "&&"
        case equal = "==", notEqual = "!="
        case less = "<", lessOrEqual = "<=", greater = ">", greaterOrEqual = ">="
        case plus = "+", minus = "-", times = "*", divide = "/", remainder = "%"
    }

    public struct Segment: Sendable {
        public var name: String
        public var column: Int
    }

    public indirect enum Kind: Sendable {
        /// A literal: `.null`, `.boolean`, `.integer`, `.double` or `.string`.
        case literal(Value)
        case path(PathRoot, [Segment])
        /// `spelling` is the operator as written (`!` or `not`, `-`).
        case unary(UnaryOperator, spelling: String, Syntax)
        /// `spelling` is the operator as written (`&&` or `and`); `operatorColumn` where it is.
        case binary(BinaryOperator, spelling: String, operatorColumn: Int, Syntax, Syntax)
        case call(String, [Syntax])
    }

    public var kind: Kind
    /// Where the expression starts in the text (1-based).
    public var column: Int

    public var isNullLiteral: Bool {
        if case .literal(.null) = kind { return true }
        return false
    }

    public var stringLiteral: String? {
        if case .literal(.string(let text)) = kind { return text }
        return nil
    }
}
