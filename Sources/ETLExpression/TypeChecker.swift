/// Resolves names and computes static types, reporting the first problem with its column.
struct TypeChecker {
    let scope: ExpressionScope

    func check(_ syntax: Syntax) throws(ExpressionError) -> Checked {
        switch syntax.kind {
        case .literal(let value):
            return Checked(type: Self.type(ofLiteral: value), syntax: syntax, build: { _ in { _ in value } }, form: .literal(value))

        case .path(let root, let segments):
            let type = try scope.resolve(root, segments, column: syntax.column)
            let path = SourcePath(root: root, segments: segments.map(\.name))
            return Checked(type: type, syntax: syntax, build: { linker in
                let slot = linker.slot(for: path)
                return { context in context.slots[slot] }
            }, form: .path(path, type))

        case .unary(let op, let spelling, let operand):
            return try checkUnary(op, spelling: spelling, try check(operand), syntax: syntax)

        case .binary(let op, let spelling, let column, let left, let right):
            return try checkBinary(op, spelling: spelling, column: column,
                                   try check(left), try check(right), syntax: syntax)

        case .call(let name, let arguments):
            if FunctionLibrary.definition(name)?.looksUpDestinations == true && !scope.allowsDestinationLookups {
                throw ExpressionError(message: "\(name)() is only available in relationship expressions",
                                      column: syntax.column)
            }
            var checked: [Checked] = []
            for argument in arguments { checked.append(try check(argument)) }
            return try FunctionLibrary.check(name, checked, call: syntax, scope: scope)
        }
    }

    static func type(ofLiteral value: Value) -> ExprType {
        switch value {
        case .boolean: return .boolean
        case .integer: return .integer
        case .double: return .double
        case .string: return .string
        case .date: return .date
        case .binary: return .binary
        case .null, .row, .rows: return .null
        }
    }

    // MARK: Unary

    private func checkUnary(_ op: Syntax.UnaryOperator, spelling: String, _ operand: Checked,
                            syntax: Syntax) throws(ExpressionError) -> Checked {
        let column = syntax.column
        switch op {
        case .not:
            guard operand.type == .boolean || operand.type == .null else {
                throw ExpressionError(message: "operator '\(spelling)' needs a boolean, found \(operand.type)",
                                      column: column)
            }
            return Checked(type: .boolean, syntax: syntax, build: { linker in
                let evaluate = operand.build(linker)
                return { context in
                    if case .boolean(let flag) = try evaluate(context) { return .boolean(!flag) }
                    return .null
                }
            }, form: operand.form.map(ExpressionForm.not))
        case .negate:
            guard operand.type.isNumeric || operand.type == .null else {
                throw ExpressionError(message: "operator '-' needs a number, found \(operand.type)", column: column)
            }
            return Checked(type: operand.type, syntax: syntax, build: { linker in
                let evaluate = operand.build(linker)
                return { context in try Operators.negate(try evaluate(context), column: column) }
            })
        }
    }

    // MARK: Binary

    private func checkBinary(_ op: Syntax.BinaryOperator, spelling: String, column: Int,
                             _ left: Checked, _ right: Checked, syntax: Syntax) throws(ExpressionError) -> Checked {
        if (op == .equal || op == .notEqual) && (left.syntax.isNullLiteral || right.syntax.isNullLiteral) {
            // `x == null` written with the literal null: an "is null" test, never null.
            let other = left.syntax.isNullLiteral ? right : left
            let wantsNull = op == .equal
            return Checked(type: .boolean, syntax: syntax, build: { linker in
                let evaluate = other.build(linker)
                return { context in .boolean(try evaluate(context).isNull == wantsNull) }
            }, form: other.form.map { .isNull($0, wantsNull) })
        }
        switch op {
        case .and, .or:
            for operand in [left, right] where operand.type != .boolean && operand.type != .null {
                throw ExpressionError(message: "operator '\(spelling)' needs boolean operands, found \(operand.type)",
                                      column: operand.column)
            }
            return Checked(type: .boolean, syntax: syntax, build: { linker in
                let lhs = left.build(linker)
                let rhs = right.build(linker)
                if op == .and {
                    return { context in
                        let a = try lhs(context)
                        if case .boolean(false) = a { return a }
                        let b = try rhs(context)
                        if case .boolean(false) = b { return b }
                        if case .boolean(true) = a, case .boolean(true) = b { return a }
                        return .null
                    }
                }
                return { context in
                    let a = try lhs(context)
                    if case .boolean(true) = a { return a }
                    let b = try rhs(context)
                    if case .boolean(true) = b { return b }
                    if case .boolean(false) = a, case .boolean(false) = b { return a }
                    return .null
                }
            }, form: left.form.flatMap { l in right.form.map { r in op == .and ? .and(l, r) : .or(l, r) } })

        case .equal, .notEqual, .less, .lessOrEqual, .greater, .greaterOrEqual:
            try checkComparable(op, left.type, right.type, column: column)
            return Checked(type: .boolean, syntax: syntax, build: { linker in
                let lhs = left.build(linker)
                let rhs = right.build(linker)
                return { context in Operators.compare(op, try lhs(context), try rhs(context)) }
            }, form: left.form.flatMap { l in right.form.map { r in .compare(ExpressionForm.sql(op), l, r) } })

        case .plus, .minus, .times, .divide, .remainder:
            let type = try arithmeticType(op, left.type, right.type, column: column)
            return Checked(type: type, syntax: syntax, build: { linker in
                let lhs = left.build(linker)
                let rhs = right.build(linker)
                return { context in try Operators.arithmetic(op, try lhs(context), try rhs(context), column: column) }
            }, form: type == .double && op != .remainder
                ? left.form.flatMap { l in right.form.map { r in .arithmetic(op.rawValue, l, r) } } : nil)
        }
    }

    private func checkComparable(_ op: Syntax.BinaryOperator, _ a: ExprType, _ b: ExprType,
                                 column: Int) throws(ExpressionError) {
        let isEquality = op == .equal || op == .notEqual
        switch (a, b) {
        case (.null, _), (_, .null): return
        case _ where a.isNumeric && b.isNumeric: return
        case (.string, .string), (.date, .date), (.boolean, .boolean), (.binary, .binary): return
        case (.sourceRow(let x), .sourceRow(let y)), (.destinationRow(let x), .destinationRow(let y)):
            guard x == y else { break }
            if isEquality { return }
            throw ExpressionError(message: "rows can only be compared with '==' and '!=', not '\(op.rawValue)'",
                                  column: column)
        default: break
        }
        throw ExpressionError(message: "cannot compare \(a) with \(b) using '\(op.rawValue)'", column: column)
    }

    private func arithmeticType(_ op: Syntax.BinaryOperator, _ a: ExprType, _ b: ExprType,
                                column: Int) throws(ExpressionError) -> ExprType {
        guard (a.isNumeric || a == .null) && (b.isNumeric || b == .null) else {
            let hint = op == .plus && (a == .string || b == .string) ? "; use concat() to join text" : ""
            throw ExpressionError(message: "operator '\(op.rawValue)' needs numbers, found \(a) and \(b)\(hint)",
                                  column: column)
        }
        if a == .double || b == .double { return .double }
        if a == .integer || b == .integer { return .integer }
        return .null
    }
}
