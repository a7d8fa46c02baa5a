/// A function a program adds to the expression language, written in Swift:
///
///     let functions = ["titleCase": ExpressionFunction([.string], returns: .string) { arguments in
///         guard case .string(let text) = arguments[0] else { return .null }
///         return .string(text.capitalized)
///     }]
///
/// A pipeline calls it like a built-in, `titleCase($source.title)`. Each argument arrives
/// as its declared type (an integer widened for a double, or null); a result that is not of
/// the declared type counts as null. It must be pure and must not fail: it runs on any
/// worker, or inside SQLite when the step is pushed down, and both must give the same
/// value. (Logic that rejects rows, or writes several, is a `Policy`.)
public struct ExpressionFunction: Sendable {
    public var arguments: [ExprType]
    public var returns: ExprType
    public var body: @Sendable ([Value]) -> Value

    public init(_ arguments: [ExprType], returns: ExprType, _ body: @escaping @Sendable ([Value]) -> Value) {
        self.arguments = arguments
        self.returns = returns
        self.body = body
    }

    /// The built-in functions' names, which added functions cannot take.
    public static var builtinNames: [String] { FunctionLibrary.names }

    /// Calls the function, holding it to its declared result type.
    public func call(_ values: [Value]) -> Value {
        let result = body(values)
        switch (result, returns) {
        case (.null, _): return .null
        case (.integer(let i), .double): return .double(Double(i))
        case (.boolean, .boolean), (.integer, .integer), (.double, .double), (.string, .string),
             (.date, .date), (.binary, .binary):
            return result
        default: return .null
        }
    }
}
