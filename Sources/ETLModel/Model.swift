/// One model version: its entities, attributes and relationships (NSManagedObjectModel).
///
/// Lookups include inherited properties: `attribute("name", of: "Employee")` finds
/// an attribute declared on `Person` when `Employee`'s parent is `Person`.
public struct Model: Sendable, Equatable {
    /// The version's name ("v1", "v1.1.0").
    public var version: String
    public var entities: [Entity] {
        didSet { index = EntityIndex() }
    }
    /// Core Data's version identifiers (`NSStoreModelVersionIdentifiers`): an Xcode model's
    /// `userDefinedModelVersionIdentifier`. Empty when the model does not say.
    public var versionIdentifiers: [String]
    /// The entities by name (not part of the model: equal models may hold different ones).
    private var index = EntityIndex()

    public init(version: String, entities: [Entity], versionIdentifiers: [String] = []) {
        self.version = version
        self.entities = entities
        self.versionIdentifiers = versionIdentifiers
    }

    public static func == (a: Model, b: Model) -> Bool {
        a.version == b.version && a.entities == b.entities && a.versionIdentifiers == b.versionIdentifiers
    }

    /// The first entity of that name (a dictionary probe: see `EntityIndex`).
    public func entity(named name: String) -> Entity? {
        index.position(of: name, in: entities).map { entities[$0] }
    }

    /// The entity and its parents, nearest first (a cycle ends where it would repeat).
    public func lineage(of name: String) -> [Entity] {
        index.lineage(of: name, in: entities).map { entities[$0] }
    }

    /// The root of the entity's inheritance tree (itself when it has no parent).
    public func root(of name: String) -> String {
        index.lineage(of: name, in: entities).last.map { entities[$0].name } ?? name
    }

    /// The entity and every entity below it.
    public func descendants(of name: String) -> [String] {
        // Depth first, each entity's sub-entities in the model's order; iterative, so a chain
        // thousands deep does not exhaust the stack, and a cycle ends where it would repeat.
        var result: [String] = []
        var seen: Set<String> = []
        var pending = [name]
        while let current = pending.popLast() {
            guard seen.insert(current).inserted else { continue }
            result.append(current)
            pending += index.children(of: current, in: entities).reversed().map { entities[$0].name }
        }
        return result
    }

    /// All attributes, inherited first, in declaration order.
    public func attributes(of name: String) -> [Attribute] {
        lineage(of: name).reversed().flatMap(\.attributes)
    }

    /// All relationships, inherited first, in declaration order.
    public func relationships(of name: String) -> [Relationship] {
        lineage(of: name).reversed().flatMap(\.relationships)
    }

    /// Inherited first, as `attributes(of:)` lists them; found without building that list
    /// (called once per attribute, for entities of up to 2,000 columns).
    public func attribute(_ attribute: String, of entity: String) -> Attribute? {
        for position in index.lineage(of: entity, in: entities).reversed() {
            if let found = entities[position].attributes.first(where: { $0.name == attribute }) { return found }
        }
        return nil
    }

    public func relationship(_ relationship: String, of entity: String) -> Relationship? {
        for position in index.lineage(of: entity, in: entities).reversed() {
            if let found = entities[position].relationships.first(where: { $0.name == relationship }) { return found }
        }
        return nil
    }

    /// The relationship that points back, as declared by `inverse`.
    public func inverse(of relationship: Relationship) -> Relationship? {
        guard let inverse = relationship.inverse else { return nil }
        return self.relationship(inverse, of: relationship.destination)
    }
}
