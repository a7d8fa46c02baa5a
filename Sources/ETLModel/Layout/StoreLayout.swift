import ETLStore

/// How a model is laid out in SQLite tables: the one place that knows table and column
/// names, so the engine reads and writes any layout (plain SQLite, Core Data's Z-tables)
/// through the same questions.
public protocol StoreLayout: Sendable {
    /// Plain SQLite or Core Data's, as pipelines name it (`"layout"`).
    var kind: LayoutKind { get }
    var model: Model { get }

    /// The table that holds rows of `entity` (sub-entities may share their root's table).
    func table(of entity: String) -> EntityTable

    /// The column of an attribute.
    func column(ofAttribute attribute: String, entity: String) -> String

    /// Where a relationship's links are stored.
    func storage(ofRelationship relationship: String, entity: String) -> RelationshipStorage

    /// CREATE statements for an empty store of this model.
    func schemaSQL() -> [String]

    /// Stored dates are seconds since this instant, given in seconds since 1970.
    var dateEpoch: Double { get }

    /// Writes the layout's own bookkeeping once all rows are in (Core Data's Z_PRIMARYKEY…).
    func finish(_ database: Database) throws
}

/// The table of an entity and how its rows are told apart from other entities sharing it.
public struct EntityTable: Sendable, Equatable {
    public var name: String
    public var keyColumn: String
    /// Set when several entities share the table: the column and this entity's value in it.
    public var discriminator: (column: String, value: SQLValue)?
    /// Columns every newly inserted row of this entity gets (e.g. Core Data's Z_ENT, Z_OPT).
    public var insertDefaults: [(column: String, value: SQLValue)]

    public init(name: String, keyColumn: String, discriminator: (column: String, value: SQLValue)? = nil,
                insertDefaults: [(column: String, value: SQLValue)] = []) {
        self.name = name
        self.keyColumn = keyColumn
        self.discriminator = discriminator
        self.insertDefaults = insertDefaults
    }

    /// A WHERE condition selecting this entity's rows (prefixed with `alias.`), or nil for all rows.
    public func condition(alias: String) -> String? {
        guard let d = discriminator else { return nil }
        return "\(alias).\(Database.quote(d.column)) = \(d.value.sqlLiteral)"
    }

    public static func == (a: EntityTable, b: EntityTable) -> Bool {
        a.name == b.name && a.keyColumn == b.keyColumn
            && a.discriminator?.column == b.discriminator?.column && a.discriminator?.value == b.discriminator?.value
            && a.insertDefaults.map(\.column) == b.insertDefaults.map(\.column)
            && a.insertDefaults.map(\.value) == b.insertDefaults.map(\.value)
    }
}

/// Where the links of one relationship live. Both sides of an inverse pair share one
/// storage, so setting either side sets the other and they can never disagree.
public enum RelationshipStorage: Sendable, Equatable {
    /// A to-one stored as a key column in the entity's own table.
    case foreignKey(table: String, column: String)
    /// A to-many whose inverse is a to-one: the key column sits in the destination's table.
    case inverseForeignKey(table: String, column: String)
    /// A many-to-many (or a to-many without inverse): rows of a join table.
    /// `ownColumn` holds this entity's key, `otherColumn` the destination's.
    case joinTable(table: String, ownColumn: String, otherColumn: String)
}
