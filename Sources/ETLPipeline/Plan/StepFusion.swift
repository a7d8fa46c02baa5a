import ETLModel
import ETLExpression
import ETLStore

/// Two adjacent steps as one: the second step's mappings rewritten over the first step's
/// source rows, so that the store between them is never written, validated and read again.
/// The hand-written SQL of a whole pipeline does the same (v1 → v3 without a v2 store).
///
/// The second step reads the store between only as `$source.attribute` (the value the
/// first step stored: its expression over the first step's source row), `$source.relationship`
/// (the rows its lookup named: that lookup's argument), `$source` and `$item`. Fusing
/// replaces each of those by what the first step wrote there, so the fused step computes
/// every value, key and link of the second step's result from the first step's source.
/// It is refused (`Refused`, with the reason `etl plan` shows) wherever that could give
/// another store than the two steps one after the other:
/// - a policy in either step (its code reads the store between), a step that removes data
///   (its counts are of the store between), a step already fused;
/// - an entity of the store between made by several mappings, by a forEach, or with a
///   superentity or sub-entities; a table of the result written by several mappings;
/// - a mapping of the first step whose rows do not keep their source keys (unless made by
///   `uniqueBy`, and then read by a mapping with no filter, uniqueBy or forEach that keeps them);
/// - a read the first step's mappings do not determine: a deeper path, an attribute it
///   did not assign (other than a literal default or null), a value whose type it converted on
///   storing, a relationship it did not set or whose inverse another mapping sets, a
///   relationship read other than as the argument of `destination(s)` where its mapping
///   filters or groups rows;
/// - what only the store between checks or works out: uniqueness constraints, required or
///   counted relationships (a to-one's count of one aside), the positions of an ordered
///   relationship between rows a uniqueBy groups, derived attributes.
///
/// What depends on the data — a row the first step would reject (a blob in a string
/// attribute, a null uniqueBy key) or a required attribute it would leave null — is checked
/// against the source before the run uses the fused step (`FusionCheck` in the engine);
/// where the source has one, the steps run one after the other, as written.
public enum StepFusion {
    /// Why two adjacent steps are left apart, in the words `etl plan` shows: the one error
    /// fusing throws on purpose. Any other is a bug, and fails the plan rather than read as
    /// a reason.
    public struct Refused: Error, Sendable {
        public let reason: String
    }

    /// The plan's steps with each pair of adjacent steps fused where it can be, from the first;
    /// a fused step is not fused again. With the reasons of the pairs left apart.
    static func fuse(_ steps: [StepPlan], planner: Planner) throws -> (steps: [StepPlan], refusals: [String]) {
        var result: [StepPlan] = []
        var refusals: [String] = []
        var index = 0
        while index < steps.count {
            if index + 1 < steps.count {
                do {
                    var fused = try fuse(steps[index], steps[index + 1], planner: planner)
                    fused.index = result.count
                    result.append(fused)
                    index += 2
                    continue
                } catch let refused as Refused {
                    refusals.append("steps \(steps[index].name) and \(steps[index + 1].name) run one after the other: \(refused.reason)")
                }
            }
            var step = steps[index]
            step.index = result.count
            result.append(step)
            index += 1
        }
        return (result, refusals)
    }

    /// `first` then `second` as one step from `first`'s source to `second`'s result.
    static func fuse(_ first: StepPlan, _ second: StepPlan, planner: Planner) throws -> StepPlan {
        guard let a = first.written, let b = second.written else { throw Refused(reason: "a step has no written mappings") }
        guard first.fusedFrom.isEmpty, second.fusedFrom.isEmpty else { throw Refused(reason: "a step is fused already") }
        for (step, mappings) in [(first, first.mappings), (second, second.mappings)] {
            if let m = mappings.first(where: { $0.policy != nil }) {
                throw Refused(reason: "mapping \(m.name) of step \(step.name) has a policy, whose code reads its step's source rows")
            }
        }
        // The first step's values are checked against the source in SQL (`FusionCheck`); only
        // a conversion or arithmetic can fail beyond reading a value (an overflow, a text that
        // is no date), and those are not checked.
        for m in first.mappings {
            let expressions = [m.filter, m.uniqueBy] + m.attributes.map { assignment -> CompiledExpression? in
                if case .expression(let e) = assignment.source { return e } else { return nil }
            }
            for expression in expressions.compactMap({ $0 }) {
                guard let form = expression.form else {
                    throw Refused(reason: "'\(expression.text)' of mapping \(m.name) has no SQL form, so the source cannot be checked for what step \(first.name) rejects")
                }
                if form.contains(where: { if case .convert = $0 { return true }; if case .arithmetic = $0 { return true }; return false }) {
                    throw Refused(reason: "'\(expression.text)' of mapping \(m.name) converts or computes, which may reject a row of step \(first.name)")
                }
            }
        }
        let between = first.destinationModel
        try checkBetween(between, version: between.version)
        var producers: [String: [Int]] = [:]
        for (index, m) in first.mappings.enumerated() { producers[m.destinationEntity, default: []].append(index) }
        var writers: [String: [String]] = [:]
        for m in second.mappings { writers[second.destinationLayout.table(of: m.destinationEntity).name, default: []].append(m.name) }
        if let (table, names) = writers.first(where: { $0.value.count > 1 }) {
            throw Refused(reason: "table \(table) of the result is written by mappings \(names.sorted().joined(separator: " and "))")
        }
        // An ordered list of the store between holds its positions as the first step wrote
        // them, which the second carries on (`KeptBookkeeping`): from a source list, the
        // source's positions; else numbered in key order. Fused, the same positions come
        // straight from the source where both sides keep their keys. Rows a uniqueBy groups
        // get their positions worked out (`CarriedOrder`), which fusing would not repeat alike.
        for entity in between.entities {
            for r in entity.relationships where r.isToMany && r.isOrdered {
                for side in [entity.name, r.destination] {
                    for index in producers[side] ?? [] where first.mappings[index].uniqueBy != nil {
                        throw Refused(reason: "the ordered relationship \(entity.name).\(r.name) of \(between.version) links rows mapping \(first.mappings[index].name) groups by uniqueBy")
                    }
                }
            }
        }
        let composer = Composer(first: first, written: a, between: between, producers: producers)
        var fused = StepSpec(name: "\(first.name) + \(second.name)", from: a.from, to: b.to, toCursor: b.toCursor, mappings: [], cursor: b.cursor)
        // In the second step's order: no mapping's rows depend on it (each table of the result
        // has one writer, and links are set once every row is made). Rows are then created in
        // `StepPlan.createOrder`.
        var composed: [(mapping: MappingSpec, grouped: Bool, kept: Bool)] = []
        for (index, m) in b.mappings.enumerated() {
            let made = try composer.compose(m, planned: second.mappings[index], keptInSecond: second.keepsKeys(index))
            composed.append((made.mapping, made.grouped, second.keepsKeys(index)))
        }
        fused.mappings = composed.map(\.mapping)
        let planned: (mappings: [MappingPlan], targets: [TargetPlan])
        do {
            planned = try planner.planMappings(fused, source: first.sourceModel, destination: second.destinationModel)
        } catch {
            throw Refused(reason: "the composed mappings do not plan (\(error))")
        }
        var step = StepPlan(index: first.index, name: fused.name, sourceModel: first.sourceModel, destinationModel: second.destinationModel,
                            sourceLayout: first.sourceLayout, destinationLayout: second.destinationLayout,
                            mappings: planned.mappings, targets: planned.targets)
        step.written = fused
        step.fusedFrom = [first, second]
        step.fusedLinkChecks = composer.links
        // Keys: a row of the result keeps its first source row's key exactly when the two steps
        // kept it; one numbered anew is numbered in the same order (source keys are kept between).
        // Rows grouped by uniqueBy get their keys from the same numbering as the first step's,
        // which the second kept.
        for (index, made) in composed.enumerated() where !made.grouped && step.keepsKeys(index) != made.kept {
            throw Refused(reason: "mapping \(step.mappings[index].name) would \(made.kept ? "not " : "")keep its rows' keys fused")
        }
        // Checked last, so that a reason above is the one given: what a step leaves unread is
        // counted in its own source, and the fused step must leave nothing either.
        for step in [first, second] where !step.removed.isEmpty {
            throw Refused(reason: "step \(step.name) removes \(step.removed.joined(separator: ", ")), counted in its own source")
        }
        if !step.removed.isEmpty { throw Refused(reason: "fused, the steps would leave \(step.removed.joined(separator: ", ")) unread") }
        return step
    }

    /// What only a store of the model between checks, and so refuses fusing.
    private static func checkBetween(_ model: Model, version: String) throws {
        for entity in model.entities {
            let name = "\(entity.name) of \(version)"
            if !entity.uniquenessConstraints.isEmpty { throw Refused(reason: "\(name) has uniqueness constraints, which its store checks") }
            if entity.parent != nil || model.entities.contains(where: { $0.parent == entity.name }) {
                throw Refused(reason: "\(name) is part of an inheritance hierarchy")
            }
            // A to-one's `maxCount` of 1 is what being to-one means: nothing to check.
            for r in entity.relationships where !r.isOptional || r.minCount != nil || (r.maxCount != nil && (r.isToMany || r.maxCount != 1)) {
                throw Refused(reason: "relationship \(name).\(r.name) is required or counted, which its store checks")
            }
            for a in entity.attributes where a.derivation != nil || a.allowsExternalStorage {
                throw Refused(reason: "attribute \(name).\(a.name) is derived or stored outside the store")
            }
        }
    }
}

extension StepPlan {
    /// Whether mapping `index`'s own rows keep their source rows' keys.
    func keepsKeys(_ index: Int) -> Bool { sourceKeyTargets.contains(mappings[index].ownTarget) }
}

/// Rewrites the second step's mappings over the first step's source.
private final class Composer {
    let first: StepPlan
    let written: StepSpec
    let between: Model
    /// By entity of the model between: the first step's mappings making its rows.
    let producers: [String: [Int]]
    /// Relationships of the first step's source read as the rows they link (a forEach, not a
    /// lookup's argument): see `StepPlan.fusedLinkChecks`.
    var links: [StepPlan.LinkCheck] = []

    init(first: StepPlan, written: StepSpec, between: Model, producers: [String: [Int]]) {
        self.first = first
        self.written = written
        self.between = between
        self.producers = producers
    }

    typealias Refused = StepFusion.Refused

    /// The one mapping of the first step making the rows of `entity`, and whether it groups
    /// them (`uniqueBy`); refused unless its rows are one per source row under the source key.
    func producer(of entity: String, for what: String) throws -> (index: Int, grouped: Bool) {
        let made = producers[entity] ?? []
        guard made.count == 1 else {
            throw Refused(reason: made.isEmpty ? "no mapping of step \(first.name) makes the \(entity) rows \(what) reads"
                          : "the \(entity) rows \(what) reads are made by several mappings of step \(first.name)")
        }
        let m = first.mappings[made[0]]
        if m.forEach != nil { throw Refused(reason: "the \(entity) rows \(what) reads are made by a forEach (mapping \(m.name))") }
        if m.uniqueBy != nil { return (made[0], true) }
        guard first.keepsKeys(made[0]) else { throw Refused(reason: "mapping \(m.name) of step \(first.name) gives its rows new keys") }
        return (made[0], false)
    }

    func compose(_ m: MappingSpec, planned: MappingPlan, keptInSecond: Bool) throws -> (mapping: MappingSpec, grouped: Bool) {
        let what = "mapping \(m.name)"
        let (index, grouped) = try producer(of: m.source, for: what)
        let maker = written.mappings[index]
        var item: (index: Int, grouped: Bool)?
        if let entity = planned.itemEntity {
            item = try producer(of: entity, for: "the forEach of \(what)")
            if item!.grouped { throw Refused(reason: "the forEach of \(what) reads rows a uniqueBy makes") }
        }
        if grouped, m.filter != nil || m.uniqueBy != nil || m.forEach != nil || !keptInSecond {
            throw Refused(reason: "\(what) reads the rows mapping \(maker.name) groups by uniqueBy, and filters, groups, multiplies or renumbers them")
        }
        func rewritten(_ spec: ExpressionSpec) throws -> Syntax {
            try self.rewrite(spec.text, source: (index, grouped), item: item, in: what)
        }
        func rewrite(_ spec: ExpressionSpec?) throws -> ExpressionSpec? {
            guard let spec else { return nil }
            return ExpressionSpec(text: Printer.print(try rewritten(spec)), cursor: spec.cursor)
        }
        var fused = m
        fused.source = maker.source
        fused.sourceCursor = maker.sourceCursor
        fused.forEach = try rewrite(m.forEach)
        fused.uniqueBy = grouped ? maker.uniqueBy : try rewrite(m.uniqueBy)
        // Lazily, as the two steps: the second filter is not evaluated for a row the first filtered out.
        switch (maker.filter, m.filter) {
        case (nil, let f): fused.filter = try rewrite(f)
        case (let f, nil): fused.filter = f
        case (let f1?, let f2?):
            let both = Syntax.call("if", try PathUse.parsed(f1.text), try rewritten(f2), .literal(.boolean(false)))
            fused.filter = ExpressionSpec(text: Printer.print(both), cursor: f2.cursor)
        }
        fused.attributes = []
        for (name, spec) in m.attributes { fused.attributes.append((name, try rewrite(spec)!)) }
        fused.relationships = []
        for (name, spec) in m.relationships { fused.relationships.append((name, try rewrite(spec)!)) }
        return (fused, grouped)
    }

    /// `text` (read over rows of the store between) read over the first step's source rows.
    func rewrite(_ text: String, source: (index: Int, grouped: Bool), item: (index: Int, grouped: Bool)?, in what: String) throws -> Syntax {
        try PathUse.substitute(text) { use in
            try replacement(use, producer: use.root == .source ? source : item!, in: "'\(text)' of \(what)")
        }
    }

    private func replacement(_ use: PathUse, producer: (index: Int, grouped: Bool), in what: String) throws -> Syntax {
        let planned = first.mappings[producer.index]
        let maker = written.mappings[producer.index]
        let entity = planned.destinationEntity
        guard let name = use.names.first else {
            if producer.grouped { throw Refused(reason: "\(what) reads a row mapping \(maker.name) groups by uniqueBy") }
            return .path(use.root, [])
        }
        guard use.names.count == 1 else { throw Refused(reason: "\(what) follows \(Printer.print(.path(use.root, use.names))) across the store between") }
        if let attribute = between.attribute(name, of: entity) {
            guard let assignment = planned.attributes.first(where: { $0.attribute.name == name }) else {
                throw Refused(reason: "\(what) reads \(entity).\(name), which is not an attribute of the store between")
            }
            switch assignment.source {
            case .constant(let value):
                guard let literal = Self.literal(value, type: attribute.type) else {
                    throw Refused(reason: "\(what) reads \(entity).\(name), which mapping \(maker.name) leaves to a default no literal writes")
                }
                return literal
            case .expression(let expression):
                // The value read back is the value stored only where storing converts nothing.
                guard expression.type == ExprType(attribute.type), Self.storesExactly(attribute.type) else {
                    throw Refused(reason: "\(what) reads \(entity).\(name), which mapping \(maker.name) converts to \(attribute.type) on storing")
                }
                let text = maker.attributes.first { $0.name == name }!.expression.text
                return use.root == .item ? try rerooted(text) : try PathUse.parsed(text)
            }
        }
        guard let relationship = between.relationship(name, of: entity) else {
            throw Refused(reason: "\(what) reads \(entity).\(name), unknown in the store between")
        }
        guard use.root == .source else { throw Refused(reason: "\(what) reads a relationship of $item") }
        guard let set = maker.relationships.first(where: { $0.name == name })?.expression.text,
              let lookup = try? Parser.parse(set), case .call(let function, let arguments) = lookup.kind,
              function == "destination" || function == "destinations", arguments.count == 2,
              let target = arguments[0].stringLiteral, case .path(.source, let segments) = arguments[1].kind, segments.count <= 1 else {
            throw Refused(reason: "\(what) reads \(entity).\(name), which mapping \(maker.name) does not set with destination(s)('Mapping', $source[.relationship])")
        }
        let targets = producers[relationship.destination] ?? []
        guard targets.count == 1, first.mappings[targets[0]].name == target else {
            throw Refused(reason: "\(what) reads \(entity).\(name), whose rows are not those of mapping \(target) alone")
        }
        if let inverse = between.inverse(of: relationship),
           first.mappings.contains(where: { $0.destinationEntity == relationship.destination && $0.relationships.contains { $0.relationship.name == inverse.name } }) {
            throw Refused(reason: "\(what) reads \(entity).\(name), whose inverse \(inverse.name) a mapping of step \(first.name) sets too")
        }
        // Read other than as a lookup's argument (a forEach, count()), the links are the rows
        // themselves: only the source's when the target mapping neither filters nor groups.
        let targetMaker = written.mappings[targets[0]]
        if !use.lookup, targetMaker.filter != nil || targetMaker.uniqueBy != nil {
            throw Refused(reason: "\(what) reads the \(entity).\(name) rows of mapping \(target), which filters or groups its rows, other than through destination(s)()")
        }
        if !use.lookup, let linked = segments.first?.name {
            let check = StepPlan.LinkCheck(entity: planned.sourceEntity, relationship: linked)
            if !links.contains(check) { links.append(check) }
        }
        return .path(.source, segments.map(\.name))
    }

    /// A first-step expression (over `$source`) over `$item` instead.
    private func rerooted(_ text: String) throws -> Syntax {
        try PathUse.substitute(text) { use in
            guard use.root == .source else { throw Refused(reason: "'\(text)' reads $item") }
            return .path(.item, use.names)
        }
    }

    /// Types whose values are stored as the expression gives them (no narrowing, no rounding).
    private static func storesExactly(_ type: AttributeType) -> Bool {
        switch type {
        case .integer64, .double, .string, .uri, .boolean, .date, .binary: return true
        case .integer16, .integer32, .decimal, .float, .uuid, .transformable: return false
        }
    }

    /// A default value as an expression literal of the attribute's own expression type.
    private static func literal(_ value: SQLValue, type: AttributeType) -> Syntax? {
        switch (value, ExprType(type)) {
        case (.null, _): return .literal(.null)
        case (.integer(let i), .integer): return .literal(.integer(i))
        case (.real(let d), .double) where d.isFinite: return .literal(.double(d))
        case (.text(let t), .string): return .string(t)
        default: return nil
        }
    }
}

/// A key path in an expression, and whether it is the argument of a `destination(s)` lookup.
private struct PathUse {
    var root: PathRoot
    var names: [String]
    var lookup: Bool

    static func parsed(_ text: String) throws -> Syntax {
        guard let syntax = try? Parser.parse(text) else { throw StepFusion.Refused(reason: "'\(text)' does not parse") }
        return syntax
    }

    /// The tree of `text` with each key path replaced by `replacement`'s tree for it. The
    /// replacements are asked for from the last path of the text to the first, so that of
    /// two paths refused, the reason given is the last one's.
    static func substitute(_ text: String, _ replacement: (PathUse) throws -> Syntax) throws -> Syntax {
        let syntax = try parsed(text)
        var uses: [PathUse] = []
        collect(syntax, lookup: false, into: &uses)
        var replacements = uses.map { _ in Syntax.null }
        for index in uses.indices.reversed() { replacements[index] = try replacement(uses[index]) }
        var next = 0
        return replaced(syntax, by: replacements, next: &next)
    }

    /// `syntax` with its paths, in the order `collect` finds them, replaced from `next` on.
    private static func replaced(_ syntax: Syntax, by replacements: [Syntax], next: inout Int) -> Syntax {
        var result = syntax
        switch syntax.kind {
        case .literal: break
        case .path:
            result = replacements[next]
            next += 1
        case .unary(let op, let spelling, let operand):
            result.kind = .unary(op, spelling: spelling, replaced(operand, by: replacements, next: &next))
        case .binary(let op, let spelling, let column, let left, let right):
            let newLeft = replaced(left, by: replacements, next: &next)
            result.kind = .binary(op, spelling: spelling, operatorColumn: column, newLeft, replaced(right, by: replacements, next: &next))
        case .call(let name, let arguments):
            var newArguments: [Syntax] = []
            for argument in arguments { newArguments.append(replaced(argument, by: replacements, next: &next)) }
            result.kind = .call(name, newArguments)
        }
        return result
    }

    /// The key paths of `syntax` in the order of its text.
    static func collect(_ syntax: Syntax, lookup: Bool, into uses: inout [PathUse]) {
        switch syntax.kind {
        case .literal: break
        case .path(let root, let segments):
            uses.append(PathUse(root: root, names: segments.map(\.name), lookup: lookup))
        case .unary(_, _, let operand): collect(operand, lookup: false, into: &uses)
        case .binary(_, _, _, let left, let right):
            collect(left, lookup: false, into: &uses)
            collect(right, lookup: false, into: &uses)
        case .call(let name, let arguments):
            for (position, argument) in arguments.enumerated() {
                collect(argument, lookup: (name == "destination" || name == "destinations") && position == 1, into: &uses)
            }
        }
    }
}
