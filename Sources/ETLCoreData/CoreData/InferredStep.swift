import ETLDocument
import ETLStore
import ETLModel

/// A step derived from two model versions alone (Core Data's lightweight migration), as
/// data: the pipeline layer turns it into entity mappings with expressions.
public struct InferredStep: Sendable, Equatable {
    public var sourceVersion: String
    public var destinationVersion: String
    /// One per destination entity that has rows to receive, in destination-model order.
    public var mappings: [InferredEntityMapping]
    /// Destination entities no source entity becomes: they start empty.
    public var newEntities: [String]
    /// Source entities no destination entity takes: their rows are not carried over.
    public var droppedEntities: [String]
    /// "Entity.property" of source properties no destination property takes (mapped entities only).
    public var droppedProperties: [String]
    /// Removed attributes that look renamed: the only attribute of its type an entity loses,
    /// and the only one of that type it gains, without a renaming identifier. Inferred as drop + add,
    /// which loses every value; the planner refuses them unless the pipeline says the
    /// removal is intended.
    public var likelyRenames: [LikelyRename] = []

    public init(sourceVersion: String, destinationVersion: String, mappings: [InferredEntityMapping] = [],
                newEntities: [String] = [], droppedEntities: [String] = [], droppedProperties: [String] = []) {
        self.sourceVersion = sourceVersion
        self.destinationVersion = destinationVersion
        self.mappings = mappings
        self.newEntities = newEntities
        self.droppedEntities = droppedEntities
        self.droppedProperties = droppedProperties
    }

    public func mapping(named name: String) -> InferredEntityMapping? {
        mappings.first { $0.name == name }
    }
}

/// Rows of one source entity become rows of one destination entity.
public struct InferredEntityMapping: Sendable, Equatable {
    /// `SourceToDestination`, as pipelines name mappings by default.
    public var name: String
    public var source: String
    public var destination: String
    /// One per attribute of the destination entity (inherited ones included).
    public var attributes: [InferredAttributeAssignment]
    /// The relationships to set. Of an inverse pair only one side is listed (setting one side
    /// sets both): the to-one side when there is one.
    public var relationships: [InferredRelationshipAssignment]

    public init(name: String, source: String, destination: String,
                attributes: [InferredAttributeAssignment] = [], relationships: [InferredRelationshipAssignment] = []) {
        self.name = name
        self.source = source
        self.destination = destination
        self.attributes = attributes
        self.relationships = relationships
    }

    public func attribute(_ name: String) -> InferredAttributeAssignment? {
        attributes.first { $0.destination == name }
    }

    public func relationship(_ name: String) -> InferredRelationshipAssignment? {
        relationships.first { $0.destination == name }
    }
}

/// The value a destination attribute gets.
public struct InferredAttributeAssignment: Sendable, Equatable {
    public enum Value: Sendable, Equatable {
        /// The source attribute's value, as is.
        case source(String)
        /// The source attribute's value, or the default where it is null (optional → required).
        case sourceOrDefault(String, SQLValue)
        /// The destination attribute's default (an added attribute that has one).
        case defaultValue(SQLValue)
        /// Null (an added optional attribute without default).
        case null
    }

    public var destination: String
    public var value: Value

    public init(destination: String, value: Value) {
        self.destination = destination
        self.value = value
    }
}

/// A destination relationship set from a source relationship: its links are the rows the
/// `mappings` made from the source rows the source relationship links to.
public struct InferredRelationshipAssignment: Sendable, Equatable {
    public var destination: String
    public var source: String
    /// The mappings whose rows the relationship points at (its destination entity and sub-entities).
    public var mappings: [String]
    /// The destination relationship is to-many (the source one may be a to-one).
    public var isToMany: Bool

    public init(destination: String, source: String, mappings: [String], isToMany: Bool) {
        self.destination = destination
        self.source = source
        self.mappings = mappings
        self.isToMany = isToMany
    }
}

/// An attribute removed and another of the same type added in one entity, without a
/// renaming identifier: probably a rename that the model does not say.
public struct LikelyRename: Sendable, Equatable {
    /// The source entity and its removed attribute.
    public var sourceEntity: String
    public var removed: String
    /// The destination entity and its added attribute.
    public var entity: String
    public var added: String
    public var type: AttributeType
    /// The explicit step's mappings that carry the value over (every mapping of the hop, as
    /// an explicit step replaces it whole).
    public var mappings: [PipelineValue]

    public init(sourceEntity: String, removed: String, entity: String, added: String, type: AttributeType, mappings: [PipelineValue]) {
        self.sourceEntity = sourceEntity
        self.removed = removed
        self.entity = entity
        self.added = added
        self.type = type
        self.mappings = mappings
    }
}
