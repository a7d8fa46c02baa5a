/// A fetch index of an entity (NSFetchIndexDescription): Core Data creates it as the SQLite
/// index `Z_<Entity>_<name>` on the entity's table.
public struct FetchIndex: Sendable, Equatable {
    /// One indexed property, with its order (`order="ascending"`, the default, or `"descending"`).
    public struct Element: Sendable, Equatable {
        public var property: String
        public var isAscending: Bool

        public init(property: String, isAscending: Bool = true) {
            self.property = property
            self.isAscending = isAscending
        }
    }

    public var name: String
    public var elements: [Element]

    public init(name: String, elements: [Element]) {
        self.name = name
        self.elements = elements
    }
}
