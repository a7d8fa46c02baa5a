import ETLModel

/// A problem in an expression, at a 1-based character `column` of its text: what
/// `ExpressionError` and `EvaluationError` share.
public protocol ExpressionProblem: Error, Sendable, Hashable, CustomStringConvertible {
    var message: String { get }
    var column: Int { get }
}

extension ExpressionProblem {
    /// "column 12: unknown attribute 'titel' of Book (did you mean 'title'?)"
    public var description: String { "column \(column): \(message)" }
}

/// A problem found while compiling an expression: a syntax error, an unknown name,
/// or a type error. `column` is where the problem starts (one past the end for
/// "unexpected end of expression").
public struct ExpressionError: ExpressionProblem {
    public var message: String
    public var column: Int

    public init(message: String, column: Int) {
        self.message = message
        self.column = column
    }
}

/// A problem while evaluating a compiled expression for one row: integer overflow,
/// or `destination()` finding more than one row. The message names the operator or
/// function; `column` is where that operator or call starts in the expression text.
public struct EvaluationError: ExpressionProblem {
    public var message: String
    public var column: Int

    public init(message: String, column: Int) {
        self.message = message
        self.column = column
    }
}

/// " (did you mean 'x'?)" when a close candidate exists, else "".
func didYouMean(_ name: String, among candidates: [String]) -> String {
    closestName(to: name, among: candidates).map { " (did you mean '\($0)'?)" } ?? ""
}

/// A conversion function (`date()`, `integer()`…) that could not convert its value, at
/// `column` of the expression: the row is rejected, unless `orNull(…)` around it asks for
/// null.
public struct ConversionFailure: Error, Sendable, Hashable, CustomStringConvertible {
    public var error: ConversionError
    public var column: Int

    public var description: String { "column \(column): \(error)" }
}
