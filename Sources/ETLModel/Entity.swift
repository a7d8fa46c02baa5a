/// One entity of a model version (NSEntityDescription). Holds its own properties only;
/// `Model` resolves what it inherits from its parents.
public struct Entity: Sendable, Equatable {
    public var name: String
    public var parent: String?
    public var isAbstract: Bool
    public var attributes: [Attribute]
    public var relationships: [Relationship]
    public var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`: changes the entity's version hash without a schema change.
    public var versionHashModifier: String?
    /// Uniqueness constraints (`<uniquenessConstraints>`): each a list of property names whose
    /// values together must be unique among the rows of this entity and its sub-entities.
    public var uniquenessConstraints: [[String]] = []
    /// Fetch indexes (`<fetchIndex>`), which Core Data creates as SQLite indexes.
    public var fetchIndexes: [FetchIndex] = []
    /// Compound indexes (`<compoundIndexes>`): each a list of property names Core Data
    /// indexes together.
    public var compoundIndexes: [[String]] = []

    public init(name: String, parent: String? = nil, isAbstract: Bool = false,
                attributes: [Attribute] = [], relationships: [Relationship] = [],
                renamingIdentifier: String? = nil) {
        self.name = name
        self.parent = parent
        self.isAbstract = isAbstract
        self.attributes = attributes
        self.relationships = relationships
        self.renamingIdentifier = renamingIdentifier
    }
}
