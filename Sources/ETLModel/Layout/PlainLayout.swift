import ETLStore

/// The plain SQLite layout: what a person would write by hand.
///
/// - One table per root entity, named after it, with `id INTEGER PRIMARY KEY`.
///   Sub-entities share their root's table; a root with sub-entities gets an
///   `entity` TEXT column holding each row's entity name.
/// - An attribute is a column named after it. Dates are REAL seconds since 1970.
///   Booleans are 0/1.
/// - A to-one is a column `<relationship>_id` referencing the destination's `id`, with an
///   index. For a one-to-one pair only one side stores the column: the side whose
///   `Entity.relationship` sorts first.
/// - A to-many whose inverse is to-one is stored by that inverse's column.
/// - A many-to-many (or a to-many without inverse) is a join table named
///   `<Entity>_<relationship>` after the side that sorts first, with columns
///   `source_id` (that side's entity) and `target_id` (the other), primary key on both.
/// - A uniqueness constraint (`"unique"` in a model file) is a UNIQUE index
///   `<Table>_unique_<a>_<b>` on its columns.
public struct PlainLayout: StoreLayout {
    public let model: Model
    public var kind: LayoutKind { .plain }
    public var dateEpoch: Double { 0 }
    /// Declare required attributes `NOT NULL`, as an app's own store does (`etl sample`).
    /// Off for the stores a run writes: validation checks required values once the rows are
    /// in and names every row missing one, where a NOT NULL would stop the load at the first.
    public var declaresRequired = false
    /// Shared by the copies of this layout (`PlainLayoutAnswers`).
    private let answers = PlainLayoutAnswers()

    public init(model: Model) { self.model = model }

    public init(model: Model, declaresRequired: Bool) {
        self.model = model
        self.declaresRequired = declaresRequired
    }

    public func table(of entity: String) -> EntityTable {
        answers.table(of: entity) { workOutTable(of: entity) }
    }

    private func workOutTable(of entity: String) -> EntityTable {
        let root = model.root(of: entity)
        let shared = model.descendants(of: root).count > 1
        return EntityTable(name: root, keyColumn: "id",
                           discriminator: shared ? ("entity", .text(entity)) : nil,
                           insertDefaults: shared ? [("entity", .text(entity))] : [])
    }

    public func column(ofAttribute attribute: String, entity: String) -> String { attribute }

    public func storage(ofRelationship relationship: String, entity: String) -> RelationshipStorage {
        answers.storage(ofRelationship: relationship, entity: entity) { workOutStorage(ofRelationship: relationship, entity: entity) }
    }

    private func workOutStorage(ofRelationship relationship: String, entity: String) -> RelationshipStorage {
        guard let r = model.relationship(relationship, of: entity) else {
            preconditionFailure("unknown relationship \(entity).\(relationship): the planner checks names first")
        }
        let owner = declaringEntity(of: relationship, from: entity)
        let inverse = model.inverse(of: r)
        let inverseOwner = inverse.map { declaringEntity(of: $0.name, from: r.destination) }
        let thisSideFirst = inverse == nil || "\(owner).\(r.name)" <= "\(inverseOwner!).\(inverse!.name)"
        switch (r.isToMany, inverse?.isToMany) {
        case (false, .some(false)) where !thisSideFirst:
            return .inverseForeignKey(table: table(of: r.destination).name, column: inverse!.name + "_id")
        case (false, _):
            return .foreignKey(table: table(of: entity).name, column: r.name + "_id")
        case (true, .some(false)):
            return .inverseForeignKey(table: table(of: r.destination).name, column: inverse!.name + "_id")
        case (true, _):
            if thisSideFirst {
                return .joinTable(table: "\(owner)_\(r.name)", ownColumn: "source_id", otherColumn: "target_id")
            }
            return .joinTable(table: "\(inverseOwner!)_\(inverse!.name)", ownColumn: "target_id", otherColumn: "source_id")
        }
    }

    /// The entity that declares a property (a sub-entity may inherit it).
    private func declaringEntity(of property: String, from entity: String) -> String {
        model.lineage(of: entity).first { e in e.relationships.contains { $0.name == property } }?.name ?? entity
    }

    public func schemaSQL() -> [String] {
        answers.schemaSQL(declaresRequired: declaresRequired) { workOutSchemaSQL() }
    }

    private func workOutSchemaSQL() -> [String] {
        var statements: [String] = []
        let q = Database.quote
        for root in model.entities where root.parent == nil {
            let members = model.descendants(of: root.name)
            var columns = ["\"id\" INTEGER PRIMARY KEY"]
            if members.count > 1 { columns.append("\"entity\" TEXT NOT NULL") }
            var indexes: [String] = []
            var seen = Set<String>()
            for member in members {
                for a in model.entity(named: member)!.attributes where seen.insert(a.name).inserted {
                    columns.append("\(q(a.name)) \(a.type.columnType)" + (declaresRequired && !a.isOptional ? " NOT NULL" : ""))
                }
                for r in model.entity(named: member)!.relationships {
                    if case .foreignKey(_, let column) = storage(ofRelationship: r.name, entity: member), seen.insert(column).inserted {
                        let target = table(of: r.destination).name
                        columns.append("\(q(column)) INTEGER REFERENCES \(q(target))(\"id\")")
                        indexes.append("CREATE INDEX \(q("\(root.name)_\(column)_index")) ON \(q(root.name))(\(q(column)))")
                    }
                }
            }
            statements.append("CREATE TABLE \(q(root.name)) (" + columns.joined(separator: ", ") + ")")
            statements += indexes
            for member in members {
                for constraint in model.entity(named: member)!.uniquenessConstraints {
                    let columns = constraint.map { property -> String in
                        if model.attribute(property, of: member) != nil { return q(property) }
                        if case .foreignKey(_, let column) = storage(ofRelationship: property, entity: member) { return q(column) }
                        return q(property + "_id")
                    }
                    statements.append("CREATE UNIQUE INDEX \(q("\(root.name)_unique_" + constraint.joined(separator: "_"))) ON \(q(root.name))("
                        + columns.joined(separator: ", ") + ")")
                }
            }
        }
        var joins = Set<String>()
        for entity in model.entities {
            for r in entity.relationships {
                guard case .joinTable(let name, let own, let other) = storage(ofRelationship: r.name, entity: entity.name),
                      joins.insert(name).inserted else { continue }
                let (sourceEntity, targetEntity) = own == "source_id" ? (entity.name, r.destination) : (r.destination, entity.name)
                let s = table(of: sourceEntity).name, t = table(of: targetEntity).name
                _ = other
                statements.append("CREATE TABLE \(q(name)) (\"source_id\" INTEGER NOT NULL REFERENCES \(q(s))(\"id\"), \"target_id\" INTEGER NOT NULL REFERENCES \(q(t))(\"id\"), PRIMARY KEY (\"source_id\", \"target_id\")) WITHOUT ROWID")
                statements.append("CREATE INDEX \(q(name + "_target_index")) ON \(q(name))(\"target_id\")")
            }
        }
        return statements
    }

    public func finish(_ database: Database) throws {}
}
