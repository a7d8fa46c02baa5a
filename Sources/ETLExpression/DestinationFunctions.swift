import ETLModel

/// The functions of rows: `count()` of a to-many path or of destination rows, the lookups
/// `destination()` and `destinations()` of the rows a mapping made, and `union()` of
/// several mappings' lookups. A lookup's form is written by the engine as a join of a
/// relationship statement, not as a scalar SQL value.
enum DestinationFunctions {
    static let definitions = [
        FunctionDefinition("count") { call, _ throws(ExpressionError) in
            try call.arity(1...1)
            try call.require(0, "a to-many path or destinations()") {
                if case .sourceRows = $0 { return true }
                if case .destinationRows = $0 { return true }
                return false
            }
            let arguments = call.arguments
            return Checked(type: .integer, syntax: call.syntax, build: { linker in
                let argument = arguments[0].build(linker)
                return { context in
                    switch try argument(context) {
                    case .rows(let keys): return .integer(Int64(keys.count))
                    case .row: return .integer(1)
                    default: return .integer(0)
                    }
                }
            })
        },
        FunctionDefinition("destination", looksUpDestinations: true) { call, scope throws(ExpressionError) in
            try destination(call, scope: scope, many: false)
        },
        FunctionDefinition("destinations", looksUpDestinations: true) { call, scope throws(ExpressionError) in
            try destination(call, scope: scope, many: true)
        },
        FunctionDefinition("union") { call, scope throws(ExpressionError) in try union(call, destinationModel: scope.destinationModel) },
    ]

    /// `destination('Mapping', row)` → the destination row the mapping made from that
    /// source row (null when none; an evaluation error when several);
    /// `destinations('Mapping', rowOrRows)` → all destination rows made from them.
    static func destination(_ call: FunctionCall, scope: ExpressionScope, many: Bool) throws(ExpressionError) -> Checked {
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

    /// `union(destinations('A', …), destinations('B', …), …)`: every destination row any
    /// argument gives, each once, in key order. The form for a to-many whose rows several
    /// mappings make (the sub-entities of a hierarchy, each with its own mapping): the rows
    /// meet at their entities' nearest common ancestor.
    static func union(_ call: FunctionCall, destinationModel: Model?) throws(ExpressionError) -> Checked {
        try call.arity(atLeast: 2)
        var entity: String?
        for (index, argument) in call.arguments.enumerated() {
            guard case .destinationRows(let e) = argument.type else {
                throw ExpressionError(message: "union: argument \(index + 1) is \(argument.type), but union() joins destinations('Mapping', …) of several mappings",
                                      column: argument.column)
            }
            guard let previous = entity else { entity = e; continue }
            guard let common = previous == e ? e : BranchingFunctions.commonAncestor(previous, e, in: destinationModel) else {
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
}
