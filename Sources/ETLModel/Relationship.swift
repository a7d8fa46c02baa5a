/// One relationship of an entity (NSRelationshipDescription).
public struct Relationship: Sendable, Equatable {
    public var name: String
    /// The entity the relationship points at.
    public var destination: String
    /// The relationship on the destination entity that points back, if any.
    public var inverse: String?
    public var isToMany: Bool
    public var isOrdered: Bool
    public var isOptional: Bool
    public var minCount: Int?
    public var maxCount: Int?
    public var renamingIdentifier: String?
    /// Core Data's `versionHashModifier`: changes the entity's version hash without a schema change.
    public var versionHashModifier: String?

    public init(name: String, destination: String, inverse: String? = nil, isToMany: Bool = false,
                isOrdered: Bool = false, isOptional: Bool = true, minCount: Int? = nil,
                maxCount: Int? = nil, renamingIdentifier: String? = nil) {
        self.name = name
        self.destination = destination
        self.inverse = inverse
        self.isToMany = isToMany
        self.isOrdered = isOrdered
        self.isOptional = isOptional
        self.minCount = minCount
        self.maxCount = maxCount
        self.renamingIdentifier = renamingIdentifier
    }
}
