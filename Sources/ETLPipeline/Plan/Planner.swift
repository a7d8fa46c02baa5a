import Foundation
import ETLModel

/// Turns a pipeline spec into a `Plan`, or fails with the first problem, named by file,
/// line, column and JSON path.
public struct Planner {
    /// Names of the policies registered by the running program.
    public var policies: [String]

    public init(policies: [String] = []) {
        self.policies = policies
    }

    public func plan(_ spec: PipelineSpec) throws -> Plan {
        var models: [String: Model] = [:]
        func model(_ path: String, cursor: JSONCursor) throws -> Model {
            if let m = models[path] { return m }
            guard FileManager.default.fileExists(atPath: path) else {
                throw cursor.error("model file not found: \(path)")
            }
            let m = try ModelFile.load(path: path)
            models[path] = m
            return m
        }
        var sourceModel = try model(spec.source.model, cursor: spec.source.modelCursor)
        let destinationKind = LayoutKind(rawValue: spec.destination.layout)!
        var sourceLayout = LayoutKind(rawValue: spec.source.layout)!.layout(for: sourceModel)
        var steps: [StepPlan] = []
        for (index, step) in spec.steps.enumerated() {
            let destinationModel = try model(step.to, cursor: step.toCursor ?? spec.destination.modelCursor)
            // Intermediate stores use the destination's layout: only the ends are the user's.
            let destinationLayout = destinationKind.layout(for: destinationModel)
            let mappings = try planMappings(step, source: sourceModel, destination: destinationModel)
            steps.append(StepPlan(index: index, name: step.name, sourceModel: sourceModel, destinationModel: destinationModel,
                                  sourceLayout: sourceLayout, destinationLayout: destinationLayout, mappings: mappings))
            sourceModel = destinationModel
            sourceLayout = destinationLayout
        }
        return Plan(spec: spec, steps: steps)
    }

    func planMappings(_ step: StepSpec, source: Model, destination: Model) throws -> [MappingPlan] {
        var signatures: [String: MappingSignature] = [:]
        for m in step.mappings {
            try checkEntity(m.source, in: source, cursor: m.sourceCursor, side: "source")
            try checkEntity(m.destination, in: destination, cursor: m.destinationCursor, side: "destination")
            if destination.entity(named: m.destination)!.isAbstract {
                throw m.destinationCursor.error("entity \(m.destination) is abstract in model \(destination.version): map to one of its sub-entities")
            }
            signatures[m.name] = MappingSignature(sourceEntity: m.source, destinationEntity: m.destination)
        }
        return try step.mappings.map { try planMapping($0, source: source, destination: destination, signatures: signatures) }
    }

    func checkEntity(_ name: String, in model: Model, cursor: JSONCursor, side: String) throws {
        guard model.entity(named: name) == nil else { return }
        let hint = closestName(to: name, among: model.entities.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
        throw cursor.error("unknown \(side) entity '\(name)' in model \(model.version)\(hint)")
    }

    func planMapping(_ m: MappingSpec, source: Model, destination: Model, signatures: [String: MappingSignature]) throws -> MappingPlan {
        if let policy = m.policy {
            let known = policies.isEmpty ? "no policies are registered in this program (a program that links the ETL library registers them)"
                : "registered policies: " + policies.sorted().joined(separator: ", ")
            guard policies.contains(policy) else {
                throw (m.policyCursor ?? m.cursor).error("unknown policy '\(policy)': \(known)")
            }
        }
        let createSlots = SlotTable()
        var scope = ExpressionScope(sourceModel: source, source: m.source, item: nil, mappings: signatures, allowsDestinationLookups: false)

        var forEach: CompiledExpression?
        var itemEntity: String?
        if let spec = m.forEach {
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            guard case .sourceRows(let entity) = compiled.type else {
                throw spec.cursor.error("forEach must be a to-many relationship of the source (like $source.users), but this is \(compiled.type)")
            }
            forEach = compiled
            itemEntity = entity
            scope.item = entity
        }
        var filter: CompiledExpression?
        if let spec = m.filter {
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            guard ExprType.assignable(compiled.type, to: .boolean) else {
                throw spec.cursor.error("a filter must be a boolean, but this expression is \(compiled.type)")
            }
            filter = compiled
        }
        var uniqueBy: CompiledExpression?
        if let spec = m.uniqueBy {
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            switch compiled.type {
            case .sourceRows, .destinationRows, .destinationRow:
                throw spec.cursor.error("uniqueBy must be a single value (an attribute or a row), but this is \(compiled.type)")
            default: uniqueBy = compiled
            }
        }
        let destinationAttributes = destination.attributes(of: m.destination)
        let destinationRelationships = destination.relationships(of: m.destination)
        var given: [String: CompiledExpression] = [:]
        for (name, spec) in m.attributes {
            guard let attribute = destinationAttributes.first(where: { $0.name == name }) else {
                let isRelationship = destinationRelationships.contains { $0.name == name }
                let hint = isRelationship ? " ('\(name)' is a relationship: put it under \"relationships\")"
                    : closestName(to: name, among: destinationAttributes.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                throw spec.cursor.error("unknown attribute '\(name)' of destination entity \(m.destination)\(hint)")
            }
            let compiled = try compile(spec, scope: scope, slots: createSlots)
            let expected = ExprType(attribute.type)
            guard ExprType.assignable(compiled.type, to: expected) else {
                throw spec.cursor.error("attribute \(m.destination).\(name) is \(expected), but this expression is \(compiled.type)")
            }
            given[name] = compiled
        }
        let attributes = destinationAttributes.map { attribute in
            AttributeAssignment(attribute: attribute,
                                source: given[attribute.name].map { .expression($0) } ?? .constant(attribute.defaultValue ?? .null))
        }

        let relateSlots = SlotTable()
        var relateScope = scope
        relateScope.allowsDestinationLookups = true
        var relationships: [RelationshipAssignment] = []
        for (name, spec) in m.relationships {
            guard let relationship = destinationRelationships.first(where: { $0.name == name }) else {
                let isAttribute = destinationAttributes.contains { $0.name == name }
                let hint = isAttribute ? " ('\(name)' is an attribute: put it under \"attributes\")"
                    : closestName(to: name, among: destinationRelationships.map(\.name)).map { " (did you mean '\($0)'?)" } ?? ""
                throw spec.cursor.error("unknown relationship '\(name)' of destination entity \(m.destination)\(hint)")
            }
            let compiled = try compile(spec, scope: relateScope, slots: relateSlots)
            try checkRelationship(relationship, of: m.destination, type: compiled.type, model: destination, cursor: spec.cursor)
            relationships.append(RelationshipAssignment(relationship: relationship, expression: compiled))
        }
        return MappingPlan(name: m.name, sourceEntity: m.source, destinationEntity: m.destination,
                           createPaths: createSlots.paths, filter: filter, forEach: forEach, itemEntity: itemEntity,
                           uniqueBy: uniqueBy, attributes: attributes,
                           relatePaths: relateSlots.paths, relationships: relationships)
    }

    func checkRelationship(_ r: Relationship, of entity: String, type: ExprType, model: Model, cursor: JSONCursor) throws {
        let target: String
        switch type {
        case .null: return
        case .destinationRow(let e): target = e
        case .destinationRows(let e) where r.isToMany: target = e
        case .destinationRows:
            throw cursor.error("relationship \(entity).\(r.name) is to-one, but this expression gives several rows: use destination(…) instead of destinations(…)")
        default:
            throw cursor.error("relationship \(entity).\(r.name) needs destination rows of \(r.destination), made by a mapping: write destination('Mapping', $source…) — this expression is \(type)")
        }
        guard model.lineage(of: target).contains(where: { $0.name == r.destination }) else {
            throw cursor.error("relationship \(entity).\(r.name) points at \(r.destination), but this expression gives rows of \(target)")
        }
    }

    func compile(_ spec: ExpressionSpec, scope: ExpressionScope, slots: SlotTable) throws -> CompiledExpression {
        do {
            return try CompiledExpression.compile(spec.text, scope: scope, slots: slots)
        } catch {
            throw spec.cursor.error("in expression \"\(spec.text)\": \(error.message)", atColumnInString: error.column)
        }
    }
}
