import ETLModel

/// A store is filled fastest without its secondary indexes, which SQLite then builds
/// from sorted keys in one pass. The engine creates the tables first, the plain indexes
/// after the relate stage (before the layout's bookkeeping and validation use them), and
/// the UNIQUE indexes (Core Data's uniqueness constraints) once validation found no
/// duplicates: a duplicate is then reported with its entity, values and keys
/// (`UniquenessCheck`) instead of failing a load half-way with SQLite's bare message.
extension StoreLayout {
    /// The statements of `schemaSQL()`, without the indexes.
    var tableSQL: [String] {
        schemaSQL().filter { !Self.isPlainIndex($0) && !Self.isUniqueIndex($0) }
    }

    /// The plain `CREATE INDEX`es, made safe to run again (a resumed run may have made them).
    var deferredIndexSQL: [String] {
        schemaSQL().filter(Self.isPlainIndex).map { Self.ifNotExists($0, after: "CREATE INDEX ") }
    }

    /// The `CREATE UNIQUE INDEX`es, made safe to run again.
    var uniqueIndexSQL: [String] {
        schemaSQL().filter(Self.isUniqueIndex).map { Self.ifNotExists($0, after: "CREATE UNIQUE INDEX ") }
    }

    private static func ifNotExists(_ sql: String, after prefix: String) -> String {
        let rest = sql.dropFirst(prefix.count)
        return rest.uppercased().hasPrefix("IF NOT EXISTS") ? sql : prefix + "IF NOT EXISTS " + rest
    }

    private static func isPlainIndex(_ sql: String) -> Bool {
        sql.uppercased().hasPrefix("CREATE INDEX ")
    }

    private static func isUniqueIndex(_ sql: String) -> Bool {
        sql.uppercased().hasPrefix("CREATE UNIQUE INDEX ")
    }
}
