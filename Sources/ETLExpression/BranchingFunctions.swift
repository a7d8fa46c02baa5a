import ETLModel

/// `coalesce()` and `if()`: branching, each argument evaluated only as far as needed; SQL
/// has both (`coalesce`, `CASE WHEN`).
enum BranchingFunctions {
    static let definitions = [
        FunctionDefinition("coalesce") { call, scope throws(ExpressionError) in try coalesce(call, destinationModel: scope.destinationModel) },
        FunctionDefinition("if") { call, _ throws(ExpressionError) in try conditional(call) },
    ]

    /// The nearest entity both `a` and `b` descend from (or are), in `model`.
    static func commonAncestor(_ a: String, _ b: String, in model: Model?) -> String? {
        guard let model else { return nil }
        let ancestors = Set(model.lineage(of: b).map(\.name))
        return model.lineage(of: a).first { ancestors.contains($0.name) }?.name
    }

    /// `coalesce(a, b, …)`: the first non-null argument, arguments evaluated left to right
    /// only as far as needed. All arguments share one type (integer and double meet at double).
    /// Destination rows of entities of one hierarchy meet at their nearest common ancestor
    /// (a to-one into the hierarchy may hold a row of any of them).
    static func coalesce(_ call: FunctionCall, destinationModel: Model?) throws(ExpressionError) -> Checked {
        try call.arity(atLeast: 2)
        func common(_ a: String, _ b: String) -> String? { commonAncestor(a, b, in: destinationModel) }
        var type = call.arguments[0].type
        for (index, argument) in call.arguments.enumerated().dropFirst() {
            var rows: ExprType?
            if case .destinationRow(let a) = type, case .destinationRow(let b) = argument.type { rows = common(a, b).map(ExprType.destinationRow) }
            guard let unified = ExprType.unify(type, argument.type) ?? rows else {
                throw ExpressionError(
                    message: "coalesce: argument \(index + 1) is \(argument.type), but the arguments before it are \(type)",
                    column: argument.column)
            }
            type = unified
        }
        return Checked(type: type, syntax: call.syntax, build: { linker in
            let evaluators = call.arguments.map { $0.build(as: type, linker) }
            return { context in
                for evaluate in evaluators {
                    let value = try evaluate(context)
                    if !value.isNull { return value }
                }
                return .null
            }
        }).with(form: allForms(call.arguments.map { $0.form(as: type) }).map(ExpressionForm.coalesce))
    }

    /// `if(condition, then, else)`: `then` when the condition is true, otherwise (false or
    /// null, like SQL's CASE WHEN) `else`. Only the chosen branch is evaluated.
    static func conditional(_ call: FunctionCall) throws(ExpressionError) -> Checked {
        try call.arity(3...3)
        let (condition, then, otherwise) = (call.arguments[0], call.arguments[1], call.arguments[2])
        guard condition.type == .boolean || condition.type == .null else {
            throw ExpressionError(message: "if: the condition must be a boolean, found \(condition.type)",
                                  column: condition.column)
        }
        guard let type = ExprType.unify(then.type, otherwise.type) else {
            throw ExpressionError(message: "if: the branches have different types, \(then.type) and \(otherwise.type)",
                                  column: otherwise.column)
        }
        return Checked(type: type, syntax: call.syntax, build: { linker in
            let test = condition.build(linker)
            let whenTrue = then.build(as: type, linker)
            let whenFalse = otherwise.build(as: type, linker)
            return { context in try test(context).isTrue ? try whenTrue(context) : try whenFalse(context) }
        }).with(form: allForms([condition.form, then.form(as: type), otherwise.form(as: type)]).map { .conditional($0[0], $0[1], $0[2]) })
    }

}
