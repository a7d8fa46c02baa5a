import Foundation
import ETLStore
import ETLModel
import ETLDocument
import ETLExpression

/// Lightweight migration: the step between two model versions that follows from the models
/// alone, or an error saying what cannot be inferred and which explicit mapping to write.
///
///     let step = try InferredMapping.infer(from: v1, to: v2)
///     step.mappings[0].attributes   // [v2_name ← source v1_name]
///
/// Matching (entities, attributes, relationships alike): a destination element whose
/// renaming identifier is the *name* of a source element takes that element; otherwise one
/// with the same name takes it (unless another destination element claimed it by renaming
/// identifier). Renaming identifiers point one version back only: from v1 straight to v3,
/// an element renamed in v2 and again in v3 is not matched (its data is dropped and the
/// destination element is new). Chain the hops (v1 → v2 → v3) to carry it.
///
/// Inferred: renames, added optional attributes (null), added attributes with a default,
/// optional ↔ required where the destination has a default (null becomes the default),
/// removed attributes, relationships and entities (listed as dropped; the only attribute
/// of a type an entity loses, next to the only one of that type it gains, is listed as a
/// likely rename too),
/// to-one → to-many,
/// new entities (no mapping), sub-entities (inherited properties included).
///
/// Refused (`InferredMappingError`): an attribute type change; a new required attribute
/// without default; optional → required without default; to-many → to-one; a relationship
/// whose destination rows would have no mapping (their entity is gone) or a different
/// entity; a new or newly required relationship; a concrete entity becoming abstract; two
/// destination elements renamed from the same source element.
public enum InferredMapping {
    public static func infer(from source: Model, to destination: Model) throws -> InferredStep {
        var inference = Inference(source: source, destination: destination)
        return try inference.run()
    }
}

/// The work of one `infer` call.
private struct Inference {
    let source: Model
    let destination: Model
    var problems: [(mapping: Int?, problem: InferredMappingError.Problem)] = []
    /// Expressions per mapping (printed trees), problems fixed as well as can be guessed, for suggestions.
    var attributeExpressions: [[(String, String)]] = []
    var relationshipExpressions: [[(String, String)]] = []
    var notes: [Int: [String]] = [:]

    init(source: Model, destination: Model) {
        self.source = source
        self.destination = destination
    }

    mutating func problem(_ mapping: Int?, _ entity: String, _ property: String?, _ message: String) {
        problems.append((mapping, .init(entity: entity, property: property, message: message)))
    }

    /// Destination element name → source element name, by renaming identifier then by name.
    /// Returns also the source names claimed twice by renaming identifiers.
    static func match(_ destinations: [(name: String, renamed: String?)], among sources: [String]) -> (map: [String: String], twice: [String: [String]]) {
        var map: [String: String] = [:]
        var claimedBy: [String: [String]] = [:]
        let sources = Set(sources)  // a lookup per name, not a scan (an entity may have 40,000)
        for d in destinations {
            if let renamed = d.renamed, sources.contains(renamed) {
                map[d.name] = renamed
                claimedBy[renamed, default: []].append(d.name)
            }
        }
        for d in destinations where map[d.name] == nil {
            if sources.contains(d.name), claimedBy[d.name] == nil {
                map[d.name] = d.name
                claimedBy[d.name, default: []].append(d.name)
            }
        }
        return (map, claimedBy.filter { $0.value.count > 1 })
    }

    mutating func run() throws -> InferredStep {
        var step = InferredStep(sourceVersion: source.version, destinationVersion: destination.version)

        // Entities.
        let entityMatch = Self.match(destination.entities.map { ($0.name, $0.renamingIdentifier) }, among: source.entities.map(\.name))
        for (s, ds) in entityMatch.twice.sorted(by: { $0.key < $1.key }) {
            problem(nil, ds[0], nil, "entities \(ds.joined(separator: " and ")) both take source entity \(s) (renaming identifier): only one can")
        }
        var destinationOf: [String: String] = [:]   // source entity → destination entity
        for (d, s) in entityMatch.map { destinationOf[s] = d }
        step.newEntities = destination.entities.map(\.name).filter { entityMatch.map[$0] == nil }
        step.droppedEntities = source.entities.map(\.name).filter { destinationOf[$0] == nil }

        // One mapping per concrete destination entity taking a concrete source entity.
        var mappings: [InferredEntityMapping] = []
        var usedNames = Set<String>()
        for d in destination.entities {
            guard let sName = entityMatch.map[d.name], let s = source.entity(named: sName) else { continue }
            if d.isAbstract {
                if !s.isAbstract {
                    problem(nil, d.name, nil, "entity \(d.name) is abstract, but its source entity \(s.name) is not: the rows of \(s.name) have nowhere to go")
                }
                continue
            }
            if s.isAbstract { continue }   // no rows of the abstract entity itself
            var name = "\(s.name)To\(d.name)"
            var n = 2
            while !usedNames.insert(name).inserted { name = "\(s.name)To\(d.name)\(n)"; n += 1 }
            mappings.append(InferredEntityMapping(name: name, source: s.name, destination: d.name))
        }
        attributeExpressions = Array(repeating: [], count: mappings.count)
        relationshipExpressions = Array(repeating: [], count: mappings.count)

        for index in mappings.indices {
            inferAttributes(&mappings[index], index, &step)
        }
        for index in mappings.indices {
            inferRelationships(&mappings[index], index, mappings, destinationOf, &step)
        }
        keepOneSidePerInversePair(&mappings, index: mappings.indices)

        // Source entities whose rows are linked to from kept relationships are checked above;
        // an unmatched entity no relationship needs is simply dropped.
        if !problems.isEmpty {
            throw InferredMappingError(sourceVersion: source.version, destinationVersion: destination.version,
                                       problems: problems.map(\.problem), suggestedMappings: suggestion(mappings))
        }
        step.mappings = mappings
        for index in step.likelyRenames.indices {
            step.likelyRenames[index].mappings = explicitStep(mappings, renaming: step.likelyRenames[index])
        }
        var seen = Set<String>()
        step.droppedProperties = step.droppedProperties.filter { seen.insert($0).inserted }
        return step
    }

    // MARK: Attributes

    mutating func inferAttributes(_ mapping: inout InferredEntityMapping, _ index: Int, _ step: inout InferredStep) {
        let d = mapping.destination, s = mapping.source
        let wanted = destination.attributes(of: d)
        let offered = source.attributes(of: s)
        let matched = Self.match(wanted.map { ($0.name, $0.renamingIdentifier) }, among: offered.map(\.name))
        let offeredByName = Dictionary(offered.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (sName, ds) in matched.twice.sorted(by: { $0.key < $1.key }) {
            problem(index, d, ds[0], "attributes \(d).\(ds.joined(separator: " and \(d).")) both take \(s).\(sName) (renaming identifier): only one can")
        }
        for attribute in wanted {
            let value: InferredAttributeAssignment.Value
            var expression: Syntax
            if let sName = matched.map[attribute.name], let from = offeredByName[sName] {
                expression = .source(sName)
                if from.type != attribute.type {
                    let cast = Self.cast(expression, to: attribute.type)
                    problem(index, d, attribute.name, "attribute \(d).\(attribute.name) changes type from \(from.type.rawValue) (\(s).\(sName)) to \(attribute.type.rawValue): "
                        + (cast == nil ? "no expression converts it; register a policy that does"
                                       : "say how to convert it"))
                    expression = cast ?? expression
                    attributeExpressions[index].append((attribute.name, Printer.print(expression)))
                    continue
                }
                if from.isOptional && !attribute.isOptional {
                    if let fallback = attribute.defaultValue {
                        value = .sourceOrDefault(sName, fallback)
                        expression = .call("coalesce", expression, Self.literal(fallback, attribute.type))
                    } else {
                        problem(index, d, attribute.name, "attribute \(d).\(attribute.name) becomes required and has no default: "
                            + "\(s).\(sName) may be null; say what null becomes")
                        attributeExpressions[index].append((attribute.name, Printer.print(.call("coalesce", expression, Self.placeholder(attribute.type)))))
                        continue
                    }
                } else {
                    value = .source(sName)
                }
            } else if let fallback = attribute.defaultValue {
                value = .defaultValue(fallback)
                expression = Self.literal(fallback, attribute.type)
            } else if attribute.isOptional {
                value = .null
                expression = .null
            } else {
                problem(index, d, attribute.name, "attribute \(d).\(attribute.name) is new, required and has no default: say what existing rows get")
                attributeExpressions[index].append((attribute.name, Printer.print(Self.placeholder(attribute.type))))
                continue
            }
            mapping.attributes.append(InferredAttributeAssignment(destination: attribute.name, value: value))
            attributeExpressions[index].append((attribute.name, Printer.print(expression)))
        }
        let used = Set(matched.map.values)
        let removed = offered.filter { !used.contains($0.name) }
        step.droppedProperties += removed.map { "\(s).\($0.name)" }
        let added = wanted.filter { matched.map[$0.name] == nil }
        // A likely rename: the only attribute of its type the entity loses, next to the only
        // one of that type it gains.
        let lostByType = Dictionary(grouping: removed, by: \.type)
        let gainedByType = Dictionary(grouping: added, by: \.type)
        for gained in added {
            guard let lost = lostByType[gained.type], lost.count == 1, gainedByType[gained.type]?.count == 1 else { continue }
            step.likelyRenames.append(LikelyRename(sourceEntity: s, removed: lost[0].name, entity: d, added: gained.name,
                                                   type: gained.type, mappings: []))
        }
    }

    /// Every mapping of the step as a pipeline value, each attribute and relationship spelt
    /// out, the renamed attribute taken from the removed one: the explicit step to paste
    /// for a likely rename (an explicit step replaces the whole hop).
    func explicitStep(_ mappings: [InferredEntityMapping], renaming rename: LikelyRename) -> [PipelineValue] {
        mappings.indices.map { i in
            let m = mappings[i]
            let attributes = attributeExpressions[i].map { name, expression in
                (name, m.destination == rename.entity && name == rename.added ? Printer.print(.source(rename.removed)) : expression)
            }
            let relationships = relationshipExpressions[i].filter { name, _ in m.relationships.contains { $0.destination == name } }
            return Self.pipelineValue(m.name, m.source, m.destination, attributes: attributes, relationships: relationships)
        }
    }

    // MARK: Relationships

    /// The relationship is required: a to-one that is not optional, or a to-many with a minimum.
    static func isRequired(_ r: Relationship) -> Bool {
        r.isToMany ? (r.minCount ?? 0) > 0 && !r.isOptional : !r.isOptional
    }

    mutating func inferRelationships(_ mapping: inout InferredEntityMapping, _ index: Int, _ all: [InferredEntityMapping],
                                     _ destinationOf: [String: String], _ step: inout InferredStep) {
        let d = mapping.destination, s = mapping.source
        let wanted = destination.relationships(of: d)
        let offered = source.relationships(of: s)
        let matched = Self.match(wanted.map { ($0.name, $0.renamingIdentifier) }, among: offered.map(\.name))
        let offeredByName = Dictionary(offered.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for (sName, ds) in matched.twice.sorted(by: { $0.key < $1.key }) {
            problem(index, d, ds[0], "relationships \(d).\(ds.joined(separator: " and \(d).")) both take \(s).\(sName) (renaming identifier): only one can")
        }
        for r in wanted {
            guard let sName = matched.map[r.name], let from = offeredByName[sName] else {
                if Self.isRequired(r) {
                    problem(index, d, r.name, "relationship \(d).\(r.name) is new and required: say which rows it links to")
                    // A placeholder, not an expression: the user names the mapping and the rows.
                    relationshipExpressions[index].append((r.name, r.isToMany ? Self.toManyPlaceholder : Self.toOnePlaceholder))
                }
                continue
            }
            let targetsInSource = source.descendants(of: from.destination).filter { source.entity(named: $0)?.isAbstract == false }
            let allowed = Set(destination.descendants(of: r.destination))
            var ok = true
            for target in targetsInSource {
                guard let becomes = destinationOf[target] else {
                    problem(index, d, r.name, "relationship \(d).\(r.name) (from \(s).\(sName)) links to \(target) rows, "
                        + "but no destination entity takes entity \(target): map \(target) to an entity of the new model, or drop the relationship")
                    ok = false
                    continue
                }
                if !allowed.contains(becomes) {
                    problem(index, d, r.name, "relationship \(d).\(r.name) points at \(r.destination), but the rows \(s).\(sName) links to "
                        + "(\(target)) become \(becomes)")
                    ok = false
                }
            }
            if from.isToMany && !r.isToMany {
                problem(index, d, r.name, "relationship \(d).\(r.name) becomes to-one, but \(s).\(sName) is to-many: say which one row to keep")
                ok = false
            }
            if Self.isRequired(r) && !Self.isRequired(from) {
                problem(index, d, r.name, "relationship \(d).\(r.name) becomes required, but \(s).\(sName) may be empty: say what empty links become, or filter those rows")
                ok = false
            }
            let names = all.filter { allowed.contains($0.destination) && source.descendants(of: from.destination).contains($0.source) }.map(\.name)
            let call = r.isToMany ? "destinations" : "destination"
            // Rows of several mappings (a hierarchy's sub-entities): a to-one takes the one found, a to-many all.
            let lookups = (names.isEmpty ? ["…"] : names).map { Syntax.call(call, .string($0), .source(sName)) }
            let expression = lookups.count == 1 ? lookups[0] : .call(r.isToMany ? "union" : "coalesce", lookups)
            relationshipExpressions[index].append((r.name, Printer.print(expression)))
            if ok {
                mapping.relationships.append(InferredRelationshipAssignment(destination: r.name, source: sName, mappings: names, isToMany: r.isToMany))
            }
        }
        let used = Set(matched.map.values)
        step.droppedProperties += offered.filter { !used.contains($0.name) }.map { "\(s).\($0.name)" }
    }

    /// Of each inverse pair, keeps the to-one side (or the side whose "Entity.relationship"
    /// sorts first) when it is assigned anywhere; setting one side sets both.
    func keepOneSidePerInversePair(_ mappings: inout [InferredEntityMapping], index: Range<Int>) {
        // Each entity's relationships by name: one lookup per assignment, not a scan of the
        // lineage (an entity may have thousands). As `Model` finds them: the owner the nearest
        // entity declaring the name, the relationship the farthest's (inherited first).
        var declared: [String: [String: (owner: String, relationship: Relationship)]] = [:]
        func relationships(of entity: String) -> [String: (owner: String, relationship: Relationship)] {
            if let known = declared[entity] { return known }
            var byName: [String: (owner: String, relationship: Relationship)] = [:]
            for e in destination.lineage(of: entity) {
                for r in e.relationships { byName[r.name] = (byName[r.name]?.owner ?? e.name, r) }
            }
            declared[entity] = byName
            return byName
        }
        func key(_ entity: String, _ relationship: String) -> String {
            "\(relationships(of: entity)[relationship]?.owner ?? entity).\(relationship)"
        }
        var assigned = Set<String>()
        for m in mappings { for r in m.relationships { assigned.insert(key(m.destination, r.destination)) } }
        for i in index {
            let d = mappings[i].destination
            mappings[i].relationships.removeAll { assignment in
                guard let r = relationships(of: d)[assignment.destination]?.relationship, let name = r.inverse,
                      let inverse = relationships(of: r.destination)[name]?.relationship else { return false }
                let mine = key(d, r.name), theirs = key(r.destination, inverse.name)
                guard mine != theirs, assigned.contains(theirs) else { return false }
                let preferMine = r.isToMany == inverse.isToMany ? mine < theirs : !r.isToMany
                return !preferMine
            }
        }
    }

    // MARK: Suggestions

    /// A cast expression the pipeline language has for `type`, or nil.
    static func cast(_ expression: Syntax, to type: AttributeType) -> Syntax? {
        switch type {
        case .integer16, .integer32, .integer64: return .call("integer", expression)
        case .decimal, .double, .float: return .call("double", expression)
        case .string, .uri: return .call("string", expression)
        case .boolean: return .call("boolean", expression)
        case .date: return .call("date", expression)
        case .binary, .uuid, .transformable: return nil
        }
    }

    /// A value of `type` for the user to replace.
    static func placeholder(_ type: AttributeType) -> Syntax {
        switch type {
        case .integer16, .integer32, .integer64: return .literal(.integer(0))
        case .decimal, .double, .float: return .literal(.double(0))
        case .string, .uri: return .string("")
        case .boolean: return .literal(.boolean(false))
        case .date: return .call("date", .string("2001-01-01T00:00:00Z"))
        case .binary, .uuid, .transformable: return .null
        }
    }

    /// What a new required relationship is set to, for the user to write: no expression
    /// (the mapping and the rows are the user's to name), so text, and never parsed.
    static let toOnePlaceholder = "destination('…', …)"
    static let toManyPlaceholder = "destinations('…', …)"

    /// A default value as an expression.
    static func literal(_ value: SQLValue, _ type: AttributeType) -> Syntax {
        switch (value, type) {
        case (.integer(let v), .boolean): return .literal(.boolean(v != 0))
        case (.real(let v), .date): return .call("date", .literal(.double(v)))
        case (.integer(let v), _): return .literal(.integer(v))
        case (.real(let v), _): return .literal(.double(v))
        case (.text(let t), _): return .string(t)
        case (.null, _), (.blob, _): return .null
        }
    }

    /// A mapping as a pipeline value, for the user to paste: names and entities on the first
    /// line, attributes and relationships (when there are) on a line each.
    static func pipelineValue(_ name: String, _ source: String, _ destination: String,
                              attributes: [(String, String)], relationships: [(String, String)]) -> PipelineValue {
        typealias Key = PipelineFormat.Mapping
        var members = [PipelineValue.Member(Key.name, .string(name)), .init(Key.source, .string(source)), .init(Key.destination, .string(destination))]
        if !attributes.isEmpty { members.append(.init(Key.attributes, .strings(attributes.map { (name: $0.0, text: $0.1) }))) }
        if !relationships.isEmpty { members.append(.init(Key.relationships, .strings(relationships.map { (name: $0.0, text: $0.1) }))) }
        return .object(members, .lines(head: 3))
    }

    /// The mappings that have problems, as pipeline values with every attribute and
    /// relationship spelt out (problems given the closest expression, for the user to check).
    func suggestion(_ mappings: [InferredEntityMapping]) -> [PipelineValue] {
        let troubled = Set(problems.compactMap(\.mapping))
        var objects: [PipelineValue] = []
        for i in mappings.indices where troubled.contains(i) {
            let m = mappings[i]
            // The relationships the step sets (one side per inverse pair), and those with problems.
            let troubledProperties = Set(problems.filter { $0.mapping == i }.compactMap(\.problem.property))
            let relationships = relationshipExpressions[i].filter { name, _ in
                troubledProperties.contains(name) || m.relationships.contains { $0.destination == name }
            }
            objects.append(Self.pipelineValue(m.name, m.source, m.destination, attributes: attributeExpressions[i], relationships: relationships))
        }
        if objects.isEmpty {
            // Entity-level problems: show the shape of a mapping to write by hand.
            typealias Key = PipelineFormat.Mapping
            for p in problems where p.mapping == nil {
                let s = source.entity(named: p.problem.entity) != nil ? p.problem.entity : "SourceEntity"
                objects.append(.members([Key.name: .string("\(s)To\(p.problem.entity)"), Key.source: .string(s),
                                         Key.destination: .string(p.problem.entity), Key.attributes: .strings([])]))
            }
        }
        return objects
    }
}
