import ETLStore

/// Reads the model a plain store's schema describes (`etl model from-store`), the way
/// Django's `inspectdb` starts a model from an existing database: the inverse of
/// `PlainLayout`.
///
/// - A table with an `id INTEGER PRIMARY KEY` is an entity; each other column an attribute,
///   its type read from the declared type (`attributeType(declared:)`), required when the
///   column is `NOT NULL`.
/// - A column `<name>_id` that references another table's `id` is a to-one relationship
///   `<name>`.
/// - A table `<Entity>_<relationship>` of `source_id` and `target_id` (a join table) is a
///   many-to-many: `<Entity>.<relationship>`, with an inverse on the other entity named
///   after `<Entity>` in the plural (`Book_users` gives `Book.users` ↔ `User.books`), the
///   name the schema cannot tell — when that name sorts after the table's own side, as the
///   layout requires of the side it names the table after; else no inverse. So the model
///   read lays out the store's tables again.
///
/// What a schema does not say comes back as its most common reading: INTEGER is integer64,
/// REAL double, BLOB binary; defaults, renaming identifiers and sub-entities are not read.
/// Edit the model where the app means otherwise.
public enum PlainModelReader {
    public static func read(_ store: Database, version: String) throws -> Model {
        let names = try store.rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY rowid")
            .compactMap { row -> String? in if case .text(let name) = row[0] { return name } else { return nil } }
        var entities: [Entity] = []
        var joins: [(table: String, owner: String, relationship: String, target: String)] = []
        for name in names {
            guard let table = try store.table(named: name) else { continue }
            let references = try foreignKeys(store, table: name)
            let columnNames = Set(table.columns.map { $0.name.lowercased() })
            if columnNames == ["source_id", "target_id"], let target = references["target_id"],
               let owner = references["source_id"], let cut = name.range(of: owner + "_"), cut.lowerBound == name.startIndex {
                joins.append((name, owner, String(name[cut.upperBound...]), target))
                continue
            }
            guard try store.rowIDColumn(ofTable: name)?.lowercased() == "id" else {
                throw StoreError(path: store.path, code: 1, message: "table \(name) has no id INTEGER PRIMARY KEY, which every entity table of the plain layout has (and it is not a join table of source_id and target_id)")
            }
            let notNull = Set(try store.rows("SELECT name FROM pragma_table_info(?) WHERE \"notnull\" = 1", [.text(name)])
                .compactMap { row -> String? in if case .text(let n) = row[0] { return n } else { return nil } })
            var entity = Entity(name: name)
            for column in table.columns where column.name.lowercased() != "id" {
                if let target = references[column.name], column.name.hasSuffix("_id") {
                    entity.relationships.append(Relationship(name: String(column.name.dropLast(3)), destination: target))
                    continue
                }
                entity.attributes.append(Attribute(name: column.name, type: attributeType(declared: column.declaredType),
                                                   isOptional: !notNull.contains(column.name)))
            }
            entities.append(entity)
        }
        for join in joins {
            guard let owner = entities.firstIndex(where: { $0.name == join.owner }),
                  let target = entities.firstIndex(where: { $0.name == join.target }) else { continue }
            // The layout names a pair's join table after the side that sorts first: an inverse
            // that would sort first would name another table, so there is none then.
            let inverse = plural(of: join.owner)
            guard "\(join.owner).\(join.relationship)" <= "\(join.target).\(inverse)",
                  !entities[target].relationships.contains(where: { $0.name == inverse }),
                  !entities[target].attributes.contains(where: { $0.name == inverse }) else {
                entities[owner].relationships.append(Relationship(name: join.relationship, destination: join.target, isToMany: true))
                continue
            }
            entities[owner].relationships.append(Relationship(name: join.relationship, destination: join.target, inverse: inverse, isToMany: true))
            entities[target].relationships.append(Relationship(name: inverse, destination: join.owner, inverse: join.relationship, isToMany: true))
        }
        return Model(version: version, entities: entities)
    }

    /// The attribute type of a declared column type: the names `PlainLayout` declares
    /// (`AttributeType.columnType`), then SQLite's affinity rules for any other.
    public static func attributeType(declared: String) -> AttributeType {
        let type = declared.uppercased()
        if let exact = AttributeType.allCases.first(where: { $0.columnType == type }) {
            // Of the types that share a declared name, the most common one.
            return [AttributeType.integer64, .double, .string, .binary].first { $0.columnType == type } ?? exact
        }
        if type.hasPrefix("BOOL") { return .boolean }
        if type.contains("URI") || type.contains("URL") { return .uri }
        if type.contains("UUID") { return .uuid }
        if type.contains("DATE") || type.contains("TIME") { return .date }
        if type.contains("INT") { return .integer64 }
        if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") { return .string }
        if type.contains("BLOB") || type.isEmpty { return .binary }
        if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") { return .double }
        return .double
    }

    /// `Book` → `books`, `Category` → `categories`, `Box` → `boxes`.
    static func plural(of entity: String) -> String {
        let name = entity.prefix(1).lowercased() + entity.dropFirst()
        if name.hasSuffix("y"), let before = name.dropLast().last, !"aeiou".contains(before) { return name.dropLast() + "ies" }
        if ["s", "x", "z", "ch", "sh"].contains(where: { name.hasSuffix($0) }) { return name + "es" }
        return name + "s"
    }

    /// Column → referenced table, for single-column references.
    private static func foreignKeys(_ store: Database, table: String) throws -> [String: String] {
        var found: [String: String] = [:]
        for row in try store.rows("SELECT \"from\", \"table\" FROM pragma_foreign_key_list(?)", [.text(table)]) {
            if case .text(let column) = row[0], case .text(let target) = row[1] { found[column] = target }
        }
        return found
    }
}
