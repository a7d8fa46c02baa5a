import ETLDocument
import ETLModel
import ETLExpression
import ETLPipeline

/// What a policy's `prepare` hook sees, once per mapping when the pipeline is planned: it
/// resolves the fields the create closure reads and writes, so a wrong name or type fails
/// before a row is read, and per row nothing is looked up by name.
public struct PolicyPlan: Sendable {
    public let policy: String
    public let mapping: String
    /// The mapping's source and destination entities.
    public let sourceEntity: String
    public let entity: String
    /// Source attributes and to-ones: slot in the create stage's row and type.
    let sourceFields: [String: (slot: Int, type: ExprType)]
    /// Attributes, in the loader's order, of the mapping's entity and of those its policy creates.
    let attributes: [String: [Attribute]]

    init(step: StepPlan, mapping index: MappingID) {
        let mapping = step.mappings[index]
        policy = mapping.policy ?? ""
        self.mapping = mapping.name
        sourceEntity = mapping.sourceEntity
        entity = mapping.destinationEntity
        var types: [String: ExprType] = [:]
        for attribute in step.sourceModel.attributes(of: mapping.sourceEntity) { types[attribute.name] = ExprType(attribute.type) }
        for relationship in step.sourceModel.relationships(of: mapping.sourceEntity) where !relationship.isToMany {
            types[relationship.name] = .sourceRow(relationship.destination)
        }
        sourceFields = mapping.policyCreateSlots.reduce(into: [:]) { fields, named in
            if let type = types[named.key] { fields[named.key] = (named.value, type) }
        }
        attributes = mapping.targets.reduce(into: [:]) { byEntity, target in
            byEntity[step.targets[target].entity] = step.targets[target].attributes.map(\.attribute)
        }
    }

    /// The source entity's attribute or to-one `name`, read as `T` (`Value` for any).
    public func source<T: PolicyValue>(_ name: String, as type: T.Type = T.self) throws -> SourceField<T> {
        guard let (slot, held) = sourceFields[name] else {
            throw failure("the source entity \(sourceEntity) has no attribute or to-one '\(name)'", closestTo: name, among: Array(sourceFields.keys))
        }
        guard T.holds(held) else { throw failure("source field '\(name)' of \(sourceEntity) is \(held), not \(T.self)") }
        return SourceField(name: name, slot: slot)
    }

    /// The attribute `name` of `entity` (nil: the mapping's), written as `T` (`Value` for any).
    public func attribute<T: PolicyValue>(_ name: String, of entity: String? = nil, as type: T.Type = T.self) throws -> AttributeField<T> {
        let entity = entity ?? self.entity
        guard let attributes = attributes[entity] else {
            throw failure("'\(entity)' is neither the mapping's entity nor one the policy declares in `creates`",
                          closestTo: entity, among: Array(self.attributes.keys))
        }
        guard let index = attributes.firstIndex(where: { $0.name == name }) else {
            throw failure("the destination entity \(entity) has no attribute '\(name)'", closestTo: name, among: attributes.map(\.name))
        }
        let held = ExprType(attributes[index].type)
        guard T.holds(held) else { throw failure("attribute '\(name)' of \(entity) is \(held), not \(T.self)") }
        return AttributeField(name: name, entity: entity, index: index, count: attributes.count)
    }

    private func failure(_ reason: String, closestTo name: String? = nil, among names: [String] = []) -> PolicyPlanError {
        let hint = name.flatMap { closestName(to: $0, among: names) }.map { " (did you mean '\($0)'?)" } ?? ""
        return PolicyPlanError(description: "policy '\(policy)' of mapping '\(mapping)': \(reason)\(hint)")
    }
}

/// A policy's `prepare` hook refused the plan: a field it names does not exist or has
/// another type. Says which policy, mapping and field.
public struct PolicyPlanError: Error, CustomStringConvertible {
    public let description: String
}

extension Policy {
    /// The create closure to run per row of mapping `index`: `prepare`'s (its fields resolved
    /// for this mapping, `bySlot`) or `create`.
    func preparedCreate(step: StepPlan, mapping index: MappingID) throws -> (run: Create, bySlot: Bool)? {
        if let prepare {
            return (try prepare(PolicyPlan(step: step, mapping: index)), true)
        }
        return create.map { ($0, false) }
    }
}

extension PolicyRegistry {
    /// Runs every `prepare` hook the plan's mappings name: a wrong field fails when the
    /// pipeline is planned, before anything is read or written.
    public func prepare(_ plan: Plan) throws {
        for step in plan.steps {
            for index in step.mappingIDs {
                _ = try step.mappings[index].policy.flatMap { self[$0] }?.preparedCreate(step: step, mapping: index)
            }
        }
    }
}
