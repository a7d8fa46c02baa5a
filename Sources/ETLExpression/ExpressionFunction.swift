import Foundation
import ETLStore

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

extension ExpressionFunction {
    /// A function the program added: arguments checked against its declared types.
    func check(_ call: FunctionCall) throws(ExpressionError) -> Checked {
        let function = self
        try call.arity(function.arguments.count...function.arguments.count)
        for (index, (argument, type)) in zip(call.arguments, function.arguments).enumerated() {
            let fits = argument.type == .null || argument.type == type || (argument.type == .integer && type == .double)
            guard fits else {
                throw ExpressionError(message: "\(call.name): argument \(index + 1) must be \(type), found \(argument.type)",
                                      column: argument.column)
            }
        }
        let name = call.name
        return Checked(type: function.returns, syntax: call.syntax, build: { linker in
            let evaluators = zip(call.arguments, function.arguments).map { $0.build(as: $1, linker) }
            return { context in function.call(try evaluators.map { try $0(context) }) }
        }).with(form: allForms(zip(call.arguments, function.arguments).map { $0.form(as: $1) }).map { .function(name, $0) })
    }


    /// Its SQL name: any Swift name, spelled as an SQL identifier.
    static func sqlName(_ name: String) -> String {
        "etl_fn_" + name.utf8.map { String(format: "%02x", $0) }.joined()
    }
}

extension SQLTranslator {
    /// Registers the program's expression functions: the arguments read as their declared
    /// types (SQL holds dates as seconds since 1970, booleans as 0/1, as `Value.sqlValue`).
    public static func register(_ functions: [String: ExpressionFunction], on database: Database) throws {
        for (name, function) in functions {
            try database.createFunction(ExpressionFunction.sqlName(name), arity: Int32(function.arguments.count)) { arguments in
                function.call(zip(arguments, function.arguments).map { Value(sql: $0, as: $1) }).sqlValue
            }
        }
    }
}
