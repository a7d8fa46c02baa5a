/// One call being checked: arity and argument checks, and evaluators for functions that
/// return null as soon as an argument is null.
struct FunctionCall {
    let name: String
    let arguments: [Checked]
    let syntax: Syntax

    func arity(_ range: ClosedRange<Int>) throws(ExpressionError) {
        guard !range.contains(arguments.count) else { return }
        let expected = range.count == 1
            ? "\(range.lowerBound) argument\(range.lowerBound == 1 ? "" : "s")"
            : "\(range.lowerBound) to \(range.upperBound) arguments"
        throw ExpressionError(message: "\(name) takes \(expected), found \(arguments.count)", column: syntax.column)
    }

    func arity(atLeast minimum: Int) throws(ExpressionError) {
        guard arguments.count < minimum else { return }
        throw ExpressionError(
            message: "\(name) takes at least \(minimum) argument\(minimum == 1 ? "" : "s"), found \(arguments.count)",
            column: syntax.column)
    }

    /// Argument `index` must be null or of a type `accepts` allows.
    func require(_ index: Int, _ description: String, _ accepts: (ExprType) -> Bool) throws(ExpressionError) {
        let argument = arguments[index]
        guard argument.type != .null, !accepts(argument.type) else { return }
        throw ExpressionError(message: "\(name): argument \(index + 1) must be \(description), found \(argument.type)",
                              column: argument.column)
    }

    func strict(_ type: ExprType, _ body: @escaping @Sendable (Value) throws -> Value) -> Checked {
        let argument = arguments[0]
        return Checked(type: type, syntax: syntax, build: { linker in
            let a = argument.build(linker)
            return { context in
                let x = try a(context)
                return x.isNull ? .null : try body(x)
            }
        })
    }

    func strict(_ type: ExprType, _ body: @escaping @Sendable (Value, Value) throws -> Value) -> Checked {
        let (first, second) = (arguments[0], arguments[1])
        return Checked(type: type, syntax: syntax, build: { linker in
            let a = first.build(linker)
            let b = second.build(linker)
            return { context in
                let x = try a(context)
                let y = try b(context)
                return x.isNull || y.isNull ? .null : try body(x, y)
            }
        })
    }

    func strict(_ type: ExprType, _ body: @escaping @Sendable (Value, Value, Value) throws -> Value) -> Checked {
        let (first, second, third) = (arguments[0], arguments[1], arguments[2])
        return Checked(type: type, syntax: syntax, build: { linker in
            let a = first.build(linker)
            let b = second.build(linker)
            let c = third.build(linker)
            return { context in
                let x = try a(context)
                let y = try b(context)
                let z = try c(context)
                return x.isNull || y.isNull || z.isNull ? .null : try body(x, y, z)
            }
        })
    }
}

/// Every form, or nil when one is missing.
func allForms(_ forms: [ExpressionForm?]) -> [ExpressionForm]? {
    let present = forms.compactMap { $0 }
    return present.count == forms.count ? present : nil
}

extension ExprType {
    /// A type `concat` and `string()` write as text.
    var isTextConvertible: Bool {
        switch self {
        case .string, .integer, .double, .boolean, .date: return true
        default: return false
        }
    }
}
