import ETLModel

/// A store is filled fastest without its secondary indexes, which SQLite then builds
/// from sorted keys in one pass. The engine creates the tables first and these indexes
/// after the relate stage, before the layout's bookkeeping and validation use them.
/// (Unique indexes stay in the schema: they constrain the load.)
extension StoreLayout {
    /// The statements of `schemaSQL()`, without the plain `CREATE INDEX`es.
    var tableSQL: [String] {
        schemaSQL().filter { !Self.isPlainIndex($0) }
    }

    /// The plain `CREATE INDEX`es, made safe to run again (a resumed run may have made them).
    var deferredIndexSQL: [String] {
        schemaSQL().filter(Self.isPlainIndex).map { sql in
            let rest = sql.dropFirst("CREATE INDEX ".count)
            return rest.uppercased().hasPrefix("IF NOT EXISTS") ? sql : "CREATE INDEX IF NOT EXISTS " + rest
        }
    }

    private static func isPlainIndex(_ sql: String) -> Bool {
        sql.uppercased().hasPrefix("CREATE INDEX ")
    }
}
