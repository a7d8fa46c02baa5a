import ETLStore
import ETLModel
import ETLExpression

/// What every command checks of a source store before it reads a row, so that `run`,
/// `batch`, `plan` and `inspect` say the same thing about the same file:
///
/// - `layout`: the store is in the layout the pipeline reads. A Core Data store has
///   `Z_PRIMARYKEY` and `Z_METADATA`; a plain one has neither. Given the other layout, the
///   error says so, and lists the store's tables, rather than "no table ZBOOK".
/// - `tables`: every table and column the model lays out for the entities read is there,
///   the key column is the rowid, and the join tables are base tables. A missing table is
///   named with the tables the store does have (a misnamed table is then easy to spot).
///
/// Both throw `MigrationError.badSource` naming the store.
public enum SourceSchemaCheck {
    /// The layout a store's own tables show: Core Data's when it has its bookkeeping tables.
    public static func layout(of database: Database) throws -> LayoutKind {
        layout(ofTables: try database.tables())
    }

    private static func layout(ofTables tables: [TableInfo]) -> LayoutKind {
        let names = Set(tables.map { $0.name.uppercased() })
        return names.contains("Z_PRIMARYKEY") && names.contains("Z_METADATA") ? .coredata : .plain
    }

    /// Refuses a store in the other layout than `expected` (nil: either layout), or one with no tables.
    public static func checkLayout(_ database: Database, path: String, expected: LayoutKind?) throws {
        let tables: [TableInfo]
        do { tables = try database.tables() } catch {
            throw MigrationError.badSource(path: path, reason: "cannot read the schema: \(error)")
        }
        guard !tables.isEmpty else {
            throw MigrationError.badSource(path: path, reason: "has no tables: it is an empty SQLite database, not a store")
        }
        // Only a store that is clearly of the other layout is refused here; one in between
        // (Z-tables without Core Data's bookkeeping) is left to version detection, which says
        // what differs.
        let names = tables.map(\.name)
        let coreDataLike = names.contains { $0.hasPrefix("Z") && $0 == $0.uppercased() }
        // From the tables just read: reading them again (two statements a table) told
        // nothing more, and cost every store of a batch.
        let found = layout(ofTables: tables)
        guard let expected, found != expected, found == .coredata || !coreDataLike else { return }
        let reason: String
        switch found {
        case .coredata:
            reason = "is a Core Data store (it has Z_PRIMARYKEY and Z_METADATA), but the pipeline reads the plain layout: "
                + "read it with a pipeline whose source has \"layout\": \"coredata\" (and a model bundle, \"models\")"
        case .plain:
            reason = "is a plain SQLite store (it has no Z_PRIMARYKEY and Z_METADATA), but the pipeline reads Core Data's layout: "
                + "read it with a pipeline whose source has \"layout\": \"plain\" and JSON model files"
        }
        throw MigrationError.badSource(path: path, reason: reason + ". " + tableList(tables))
    }

    /// Checks that `database` holds the tables and columns `layout` lays out for `entities`
    /// (and every join table of the model), keyed by their rowid.
    public static func checkTables(_ database: Database, path: String, layout: any StoreLayout, entities: [String]) throws {
        for entity in Set(entities).sorted() {
            let table = layout.table(of: entity)
            let found: TableInfo?
            do { found = try database.table(named: table.name) } catch {
                throw MigrationError.badSource(path: path, reason: "cannot read the schema: \(error)")
            }
            guard let info = found else {
                throw MigrationError.badSource(path: path, reason: "has no table \(table.name) for entity \(entity): is it a store of model \(layout.model.version) in the \(layout.kind.rawValue) layout? "
                    + (try tableList(database.tables())))
            }
            try SourceStore.checkKey(database, path: path, table: table.name, keyColumn: table.keyColumn)
            for attribute in layout.model.attributes(of: entity) {
                let column = layout.column(ofAttribute: attribute.name, entity: entity)
                guard info.column(named: column) != nil else {
                    throw MigrationError.badSource(path: path, reason: "table \(table.name) has no column \(column) for \(entity).\(attribute.name): is it a store of model \(layout.model.version)? "
                        + "Its columns: " + info.columns.map(\.name).joined(separator: ", "))
                }
            }
        }
        // The join tables must be base tables: never read a view of the store.
        var checked = Set<String>()
        for entity in layout.model.entities {
            for r in layout.model.relationships(of: entity.name) {
                guard case .joinTable(let table, _, _) = layout.storage(ofRelationship: r.name, entity: entity.name),
                      checked.insert(table).inserted else { continue }
                if try database.table(named: table) == nil {
                    throw MigrationError.badSource(path: path, reason: "has no table \(table) for \(entity.name).\(r.name): is it a store of model \(layout.model.version)? "
                        + (try tableList(database.tables())))
                }
            }
        }
    }

    private static func tableList(_ tables: [TableInfo]) -> String {
        tables.isEmpty ? "It has no tables." : "Its tables: " + tables.map(\.name).sorted().joined(separator: ", ") + "."
    }
}
