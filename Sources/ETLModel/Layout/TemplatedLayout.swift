import ETLStore

/// A layout whose new stores copy a template store's exact table and index definitions
/// (the store an app created at that version), instead of writing conventional ones.
public struct TemplatedLayout: StoreLayout {
    public let base: any StoreLayout
    /// The template's CREATE statements, tables first.
    public let schema: [String]

    public init(base: any StoreLayout, schema: [String]) {
        self.base = base
        self.schema = schema
    }

    public var kind: LayoutKind { base.kind }
    public var model: Model { base.model }
    public var dateEpoch: Double { base.dateEpoch }
    public func table(of entity: String) -> EntityTable { base.table(of: entity) }
    public func column(ofAttribute attribute: String, entity: String) -> String { base.column(ofAttribute: attribute, entity: entity) }
    public func storage(ofRelationship relationship: String, entity: String) -> RelationshipStorage {
        base.storage(ofRelationship: relationship, entity: entity)
    }
    public func schemaSQL() -> [String] { schema }
    public func finish(_ database: Database) throws { try base.finish(database) }
}
