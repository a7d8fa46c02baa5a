import ETLModel

/// The built-in functions: their argument checks, result types and evaluators.
///
/// Unless said otherwise a function returns null when any argument is null.
enum FunctionLibrary {
    static let names = [
        "coalesce", "if", "concat", "substring", "prefix", "upper", "lower", "trim", "normalize", "casefold",
        "diacriticfold", "replace", "length", "utf16length", "matches", "integer", "double", "string", "boolean", "orNull",
        "date", "epoch", "iso8601", "year", "month", "day",
        "count", "destination", "destinations", "union",
    ]

    static func check(_ name: String, _ arguments: [Checked], call syntax: Syntax,
                      scope: ExpressionScope) throws(ExpressionError) -> Checked {
        let call = Call(name: name, arguments: arguments, syntax: syntax)
        switch name {
        case "coalesce": return try coalesce(call, destinationModel: scope.destinationModel)
        case "if": return try conditional(call)
        case "concat": return try concat(call)
        case "substring": return try substring(call)
        case "prefix":
            try call.arity(2...2)
            try call.require(0, "a string") { $0 == .string }
            try call.require(1, "an integer") { $0 == .integer }
            return call.strict(.string) { text, count in
                guard case .string(let s) = text, case .integer(let n) = count else { return .null }
                return .string(TextOperations.substring(s, start: 1, length: n))
            }
        case "upper", "lower":
            try call.arity(1...1)
            try call.require(0, "a string") { $0 == .string }
            let operation: @Sendable (String) -> String = name == "upper" ? TextOperations.upper : TextOperations.lower
            return call.strict(.string) { value in
                guard case .string(let s) = value else { return .null }
                return .string(operation(s))
            }
        case "trim", "normalize", "casefold", "diacriticfold":
            try call.arity(1...1)
            try call.require(0, "a string") { $0 == .string }
            let function = TextFunction(rawValue: name)!
            return call.strict(.string) { value in
                guard case .string(let s) = value else { return .null }
                return .string(function.apply(s))
            }.with(form: call.arguments[0].form.map { .text(function, $0) })
        case "orNull":
            return try orNull(call)
        case "matches":
            try call.arity(2...2)
            for index in 0..<2 { try call.require(index, "a string") { $0 == .string } }
            if case .literal(.string(let pattern))? = call.arguments[1].form {
                do { try RegularExpression.check(pattern) } catch {
                    throw ExpressionError(message: "matches: \(error)", column: call.arguments[1].column)
                }
            }
            let column = call.arguments[1].column
            return call.strict(.boolean) { text, pattern in
                guard case .string(let s) = text, case .string(let p) = pattern else { return .null }
                do {
                    return .boolean(try RegularExpression.matches(s, pattern: p))
                } catch {
                    throw EvaluationError(message: "matches: \(error)", column: column)
                }
            }.with(form: allForms([call.arguments[0].form, call.arguments[1].form]).map { .matches($0[0], $0[1]) })
        case "replace":
            try call.arity(3...3)
            for index in 0..<3 { try call.require(index, "a string") { $0 == .string } }
            return call.strict(.string) { text, find, replacement in
                guard case .string(let s) = text, case .string(let f) = find, case .string(let r) = replacement
                else { return .null }
                return .string(TextOperations.replace(s, f, with: r))
            }
        case "length":
            try call.arity(1...1)
            try call.require(0, "a string or binary") { $0 == .string || $0 == .binary }
            return call.strict(.integer) { value in
                switch value {
                case .string(let s): return .integer(TextOperations.length(s))
                case .binary(let b): return .integer(Int64(b.count))
                default: return .null
                }
            }
        case "utf16length":
            // NSString's and NSData's `length`, which a mapping model's `length` means (`😀` is 2).
            try call.arity(1...1)
            try call.require(0, "a string or binary") { $0 == .string || $0 == .binary }
            let isString = call.arguments[0].type == .string
            return call.strict(.integer) { value in
                switch value {
                case .string(let s): return .integer(TextFunction.utf16Length(s))
                case .binary(let b): return .integer(Int64(b.count))
                default: return .null
                }
            }.with(form: isString ? call.arguments[0].form.map(ExpressionForm.utf16Length) : nil)
        case "integer", "double", "string", "boolean", "date":
            return try cast(call)
        case "epoch", "iso8601", "year", "month", "day":
            return try dateFunction(call)
        case "count":
            try call.arity(1...1)
            try call.require(0, "a to-many path or destinations()") {
                if case .sourceRows = $0 { return true }
                if case .destinationRows = $0 { return true }
                return false
            }
            return Checked(type: .integer, syntax: syntax, build: { linker in
                let argument = arguments[0].build(linker)
                return { context in
                    switch try argument(context) {
                    case .rows(let keys): return .integer(Int64(keys.count))
                    case .row: return .integer(1)
                    default: return .integer(0)
                    }
                }
            })
        case "destination", "destinations":
            return try destination(call, scope: scope, many: name == "destinations")
        case "union":
            return try union(call, destinationModel: scope.destinationModel)
        default:
            if let function = scope.functions[name] { return try added(call, function) }
            throw ExpressionError(message: "unknown function '\(name)'" + didYouMean(name, among: names + scope.functions.keys.sorted()),
                                  column: syntax.column)
        }
    }

    // MARK: Branching

    /// The nearest entity both `a` and `b` descend from (or are), in `model`.
    private static func commonAncestor(_ a: String, _ b: String, in model: Model?) -> String? {
        guard let model else { return nil }
        let ancestors = Set(model.lineage(of: b).map(\.name))
        return model.lineage(of: a).first { ancestors.contains($0.name) }?.name
    }

    /// `coalesce(a, b, …)`: the first non-null argument, arguments evaluated left to right
    /// only as far as needed. All arguments share one type (integer and double meet at double).
    /// Destination rows of entities of one hierarchy meet at their nearest common ancestor
    /// (a to-one into the hierarchy may hold a row of any of them).
    private static func coalesce(_ call: Call, destinationModel: Model?) throws(ExpressionError) -> Checked {
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

    /// `union(destinations('A', …), destinations('B', …), …)`: every destination row any
    /// argument gives, each once, in key order. The form for a to-many whose rows several
    /// mappings make (the sub-entities of a hierarchy, each with its own mapping): the rows
    /// meet at their entities' nearest common ancestor.
    private static func union(_ call: Call, destinationModel: Model?) throws(ExpressionError) -> Checked {
        try call.arity(atLeast: 2)
        var entity: String?
        for (index, argument) in call.arguments.enumerated() {
            guard case .destinationRows(let e) = argument.type else {
                throw ExpressionError(message: "union: argument \(index + 1) is \(argument.type), but union() joins destinations('Mapping', …) of several mappings",
                                      column: argument.column)
            }
            guard let previous = entity else { entity = e; continue }
            guard let common = previous == e ? e : commonAncestor(previous, e, in: destinationModel) else {
                throw ExpressionError(message: "union: argument \(index + 1) gives rows of \(e), which shares no entity hierarchy with \(previous)",
                                      column: argument.column)
            }
            entity = common
        }
        return Checked(type: .destinationRows(entity!), syntax: call.syntax, build: { linker in
            let evaluators = call.arguments.map { $0.build(linker) }
            return { context in
                var keys = Set<Int64>()
                for evaluate in evaluators {
                    switch try evaluate(context) {
                    case .row(let key): keys.insert(key)
                    case .rows(let found): keys.formUnion(found)
                    default: break
                    }
                }
                return .rows(keys.sorted())
            }
        }).with(form: allForms(call.arguments.map(\.form)).map(ExpressionForm.union))
    }

    /// `if(condition, then, else)`: `then` when the condition is true, otherwise (false or
    /// null, like SQL's CASE WHEN) `else`. Only the chosen branch is evaluated.
    private static func conditional(_ call: Call) throws(ExpressionError) -> Checked {
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

    // MARK: Text

    private static func isTextConvertible(_ type: ExprType) -> Bool {
        switch type {
        case .string, .integer, .double, .boolean, .date: return true
        default: return false
        }
    }

    /// `concat(a, …)`: the arguments' texts joined (numbers, booleans and dates converted
    /// as `string()` does); null if any argument is null, like SQLite's `||`.
    private static func concat(_ call: Call) throws(ExpressionError) -> Checked {
        try call.arity(atLeast: 1)
        for index in call.arguments.indices {
            try call.require(index, "a string, number, boolean or date", isTextConvertible)
        }
        return Checked(type: .string, syntax: call.syntax, build: { linker in
            let evaluators = call.arguments.map { $0.build(linker) }
            return { context in
                var result = ""
                for evaluate in evaluators {
                    guard let text = SQLiteConversion.text(from: try evaluate(context)) else { return .null }
                    result += text
                }
                return .string(result)
            }
        })
    }

    private static func substring(_ call: Call) throws(ExpressionError) -> Checked {
        try call.arity(2...3)
        try call.require(0, "a string") { $0 == .string }
        try call.require(1, "an integer") { $0 == .integer }
        if call.arguments.count == 2 {
            return call.strict(.string) { text, start in
                guard case .string(let s) = text, case .integer(let p) = start else { return .null }
                return .string(TextOperations.substring(s, start: p, length: nil))
            }
        }
        try call.require(2, "an integer") { $0 == .integer }
        return call.strict(.string) { text, start, length in
            guard case .string(let s) = text, case .integer(let p) = start, case .integer(let n) = length
            else { return .null }
            return .string(TextOperations.substring(s, start: p, length: n))
        }
    }

    // MARK: Casts

    /// `integer(x)`, `double(x)`, `boolean(x)`, `date(x)`: a `Conversion`, which fails on a
    /// value it cannot convert (the row is rejected); `string(x)`: the text `concat` uses.
    private static func cast(_ call: Call) throws(ExpressionError) -> Checked {
        try call.arity(1...1)
        let argument = call.arguments[0]
        switch call.name {
        case "integer", "double":
            try call.require(0, "a number, string, boolean or date", isTextConvertible)
        case "string":
            try call.require(0, "a string, number, boolean or date", isTextConvertible)
            return call.strict(.string) { value in SQLiteConversion.text(from: value).map(Value.string) ?? .null }
        case "boolean":
            try call.require(0, "a number, string or boolean") {
                $0.isNumeric || $0 == .string || $0 == .boolean
            }
        default:  // date
            try call.require(0, "a string, number or date") { $0 == .string || $0.isNumeric || $0 == .date }
        }
        let conversion = Conversion(rawValue: call.name)!
        let column = call.syntax.column
        return call.strict(conversion.type) { value in
            do {
                return try conversion.convert(value)
            } catch let error as ConversionError {
                throw ConversionFailure(error: error, column: column)
            }
        }.with(form: argument.form.map { .convert(conversion, $0, from: argument.type, orNull: false) })
    }

    /// `orNull(x)`: `x`, or null where a conversion inside `x` cannot convert its value
    /// (any other failure still rejects the row). The null is wanted, so it is counted
    /// apart from the rejects.
    private static func orNull(_ call: Call) throws(ExpressionError) -> Checked {
        try call.arity(1...1)
        let argument = call.arguments[0]
        var form: ExpressionForm?
        // Inside SQL only the outer conversion can give null: a failing one within it would
        // fail the statement where the evaluator gives null.
        if case .convert(let conversion, let inner, let type, _) = argument.form, !inner.mayFail {
            form = .convert(conversion, inner, from: type, orNull: true)
        }
        return Checked(type: argument.type, syntax: call.syntax, build: { linker in
            let evaluate = argument.build(linker)
            return { context in
                do {
                    return try evaluate(context)
                } catch is ConversionFailure {
                    context.nullsOnPurpose?.add()
                    return .null
                }
            }
        }).with(form: form)
    }

    // MARK: Dates

    /// `epoch(d)` → seconds since 1970 (double); `iso8601(d)` → text; `year(d)`,
    /// `month(d)`, `day(d)` → integers, in UTC.
    private static func dateFunction(_ call: Call) throws(ExpressionError) -> Checked {
        try call.arity(1...1)
        try call.require(0, "a date") { $0 == .date }
        switch call.name {
        case "epoch":
            return call.strict(.double) { value in
                guard case .date(let seconds) = value else { return .null }
                return .double(seconds)
            }
        case "iso8601":
            return call.strict(.string) { value in
                guard case .date(let seconds) = value, let text = CivilDate.format(seconds) else { return .null }
                return .string(text)
            }
        default:
            typealias Civil = (year: Int64, month: Int64, day: Int64)
            let field: @Sendable (Civil) -> Int64
            switch call.name {
            case "year": field = { $0.year }
            case "month": field = { $0.month }
            default: field = { $0.day }
            }
            return call.strict(.integer) { value in
                guard case .date(let seconds) = value, let civil = CivilDate.components(seconds) else { return .null }
                return .integer(field(civil))
            }
        }
    }

    /// A function the program added: arguments checked against its declared types.
    private static func added(_ call: Call, _ function: ExpressionFunction) throws(ExpressionError) -> Checked {
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

    /// Every form, or nil when one is missing.
    private static func allForms(_ forms: [ExpressionForm?]) -> [ExpressionForm]? {
        let present = forms.compactMap { $0 }
        return present.count == forms.count ? present : nil
    }

    // MARK: Destination lookups

    /// `destination('Mapping', row)` → the destination row the mapping made from that
    /// source row (null when none; an evaluation error when several);
    /// `destinations('Mapping', rowOrRows)` → all destination rows made from them.
    private static func destination(_ call: Call, scope: ExpressionScope, many: Bool) throws(ExpressionError) -> Checked {
        let name = call.name
        try call.arity(2...2)
        guard let mapping = call.arguments[0].syntax.stringLiteral else {
            throw ExpressionError(
                message: "\(name): the first argument must be a mapping name in quotes, like \(name)('Authors', $source)",
                column: call.arguments[0].column)
        }
        guard let signature = scope.mappings[mapping] else {
            throw ExpressionError(
                message: "\(name): unknown mapping '\(mapping)'" + didYouMean(mapping, among: scope.mappings.keys.sorted()),
                column: call.arguments[0].column)
        }
        let argument = call.arguments[1]
        let expected = signature.sourceEntity
        let entity: String?
        switch argument.type {
        case .sourceRow(let e): entity = e
        case .sourceRows(let e) where many: entity = e
        case .null: entity = expected
        default: entity = nil
        }
        // A row of the mapping's entity or of an ancestor (a to-one into a hierarchy, which
        // may hold a row of this sub-entity: one of another finds no row, so null).
        let isOfEntity = entity.map { e in
            scope.sourceModel.lineage(of: e).contains { $0.name == expected } || scope.sourceModel.lineage(of: expected).contains { $0.name == e }
        } ?? false
        guard isOfEntity else {
            let wanted = many ? "a row or rows of \(expected)" : "a row of \(expected)"
            throw ExpressionError(
                message: "\(name)('\(mapping)', …) needs \(wanted) (the source entity of mapping '\(mapping)'), but argument 2 is \(argument.type)",
                column: argument.column)
        }
        let column = call.syntax.column
        if many {
            return Checked(type: .destinationRows(signature.destinationEntity), syntax: call.syntax, build: { linker in
                let evaluate = argument.build(linker)
                return { context in
                    switch try evaluate(context) {
                    case .row(let key): return .rows(try context.lookup(mapping, [key]))
                    case .rows(let keys): return .rows(keys.isEmpty ? [] : try context.lookup(mapping, keys))
                    default: return .rows([])
                    }
                }
            }).with(form: argument.form.map { .destinations(mapping: mapping, argument: $0, many: true) })
        }
        return Checked(type: .destinationRow(signature.destinationEntity), syntax: call.syntax, build: { linker in
            let evaluate = argument.build(linker)
            return { context in
                guard case .row(let key) = try evaluate(context) else { return .null }
                let found = try context.lookup(mapping, [key])
                switch found.count {
                case 0: return .null
                case 1: return .row(found[0])
                default:
                    throw EvaluationError(
                        message: "destination('\(mapping)', …) found \(found.count) rows; use destinations()",
                        column: column)
                }
            }
        }).with(form: argument.form.map { .destinations(mapping: mapping, argument: $0, many: false) })
    }
}

/// One call being checked: arity and argument checks, and evaluators for functions that
/// return null as soon as an argument is null.
private struct Call {
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
