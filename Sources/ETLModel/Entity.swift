/// One entity of a model version (NSEntityDescription). Holds its own properties only;
/// `Model` resolves what it inherits from its parents.
public struct Entity: Sendable, Equatable {
    public var name: String
    public var parent: String?
    public var isAbstract: Bool
    public var attributes: [Attribute]
    public var relationships: [Relationship]
    public var renamingIdentifier: String?

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
