import ETLModel
import ETLExpression
import ETLStore

/// One entity mapping, checked against both models and compiled: what the engine runs.
public struct MappingPlan: Sendable {
    public var name: String
    public var sourceEntity: String
    public var destinationEntity: String

    /// Paths the create stage reads per source row (filter, attributes, uniqueBy, forEach).
    public var createPaths: [SourcePath]
    public var filter: CompiledExpression?
    /// The to-many expression fanning out one destination row per element; `itemEntity` is
    /// the entity of its elements, `$item` in the mapping's expressions.
    public var forEach: CompiledExpression?
    public var itemEntity: String?
    public var uniqueBy: CompiledExpression?
    /// Every attribute of the destination entity, in model order, with what fills it.
    public var attributes: [AttributeAssignment]

    /// Paths the relate stage reads per associated (source row, item) pair.
    public var relatePaths: [SourcePath]
    public var relationships: [RelationshipAssignment]

    /// The registered policy the mapping names, if any.
    public var policy: String?
    /// With a policy: every attribute and to-one of the source entity by name → its slot
    /// in `createPaths` / `relatePaths`, so the policy can read any of them.
    public var policyCreateSlots: [String: Int] = [:]
    public var policyRelateSlots: [String: Int] = [:]
    /// What the mapping does with a stored value the reading rule does not read.
    public var unreadable = UnreadableValues()
    /// The step's targets this mapping writes: its own first, then one per entity its policy creates.
    public var targets: [TargetID] = []

    /// The target of the mapping's destination entity: its rows, and its counts of rows read,
    /// filtered and rejected.
    public var ownTarget: TargetID { targets[0] }
}

/// Where created rows go: a mapping's own destination entity, or another entity its policy
/// creates rows of ("Posts/Section"). Each target has its own associations and counters.
public struct TargetPlan: Sendable {
    /// The mapping's name, or "Mapping/Entity".
    public var name: String
    public var mapping: MappingID
    public var entity: String
    /// Every attribute of the entity, in model order, with what fills it by default.
    public var attributes: [AttributeAssignment]
}

/// How one destination attribute is filled.
public struct AttributeAssignment: Sendable {
    public enum Source: Sendable {
        case expression(CompiledExpression)
        /// No expression: the model's default value, or null.
        case constant(SQLValue)
    }
    public var attribute: Attribute
    public var source: Source
}

/// One destination relationship and the expression giving its destination rows.
public struct RelationshipAssignment: Sendable {
    public var relationship: Relationship
    public var expression: CompiledExpression
}
