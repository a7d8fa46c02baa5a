import ETLModel
import ETLExpression

/// A store is filled fastest without its secondary indexes, which SQLite then builds
/// from sorted keys in one pass. The engine creates the tables first, the plain indexes
/// after the relate stage (before the layout's bookkeeping and validation use them), and
/// the UNIQUE indexes (Core Data's uniqueness constraints) once validation found no
/// duplicates: a duplicate is then reported with its entity, values and keys
/// (`UniquenessCheck`) instead of failing a load half-way with SQLite's bare message.
extension StoreLayout {
    /// The statements of `schemaSQL()`, without the indexes and triggers.
    var tableSQL: [String] {
        schemaSQL().filter { !Self.isPlainIndex($0) && !Self.isUniqueIndex($0) && !Self.isTrigger($0) }
    }

    /// The `CREATE TRIGGER`s (Core Data's derived attributes), made safe to run again: created
    /// once the rows are in and the layout's `finish` computed the values they maintain.
    var triggerSQL: [String] {
        schemaSQL().filter(Self.isTrigger).map { Self.ifNotExists($0, after: "CREATE TRIGGER ") }
    }

    private static func isTrigger(_ sql: String) -> Bool {
        sql.uppercased().hasPrefix("CREATE TRIGGER ")
    }

    /// The plain `CREATE INDEX`es, made safe to run again (a resumed run may have made them).
    var deferredIndexSQL: [String] {
        schemaSQL().filter(Self.isPlainIndex).map { Self.ifNotExists($0, after: "CREATE INDEX ") }
    }

    /// The plain `CREATE INDEX`es as the layout states them: a small step's store starts with
    /// them (`EmptyStoreImage`), its few rows kept in them as they are written, rather than
    /// built after (each index a statement parsed, a schema change, a transaction).
    var plainIndexSQL: [String] {
        schemaSQL().filter(Self.isPlainIndex)
    }

    /// `deferredIndexSQL`, each with the table it indexes when its statement names it in a
    /// form `IndexStatement.table` reads.
    var deferredIndexes: [(sql: String, table: String?)] {
        deferredIndexSQL.map { ($0, IndexStatement.table($0)) }
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

enum IndexStatement {
    /// The table a `CREATE INDEX` statement indexes, unquoted (`CREATE INDEX [IF NOT EXISTS]
    /// name ON table (…)`, names bare or quoted with "", [] or ``, the index's perhaps with a
    /// schema); nil for anything else.
    static func table(_ sql: String) -> String? {
        var rest = Substring(sql)
        func skipSpace() { rest = rest.drop { $0.isWhitespace } }
        func word() -> String? {
            skipSpace()
            guard let first = rest.first else { return nil }
            let closing: Character? = switch first { case "\"": "\""; case "[": "]"; case "`": "`"; default: nil }
            guard let closing else {
                let name = rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "$" }
                rest = rest.dropFirst(name.count)
                return name.isEmpty ? nil : String(name)
            }
            var name = ""
            var index = rest.index(after: rest.startIndex)
            while index < rest.endIndex {
                let character = rest[index]
                index = rest.index(after: index)
                if character == closing {
                    // A doubled quote is one quote of the name.
                    guard closing != "]", index < rest.endIndex, rest[index] == closing else {
                        rest = rest[index...]
                        return name
                    }
                    index = rest.index(after: index)
                }
                name.append(character)
            }
            return nil
        }
        func keyword(_ expected: String) -> Bool {
            let saved = rest
            if word()?.uppercased() == expected { return true }
            rest = saved
            return false
        }
        func qualifiedName() -> String? {
            guard var name = word() else { return nil }
            skipSpace()
            if rest.first == "." {
                rest = rest.dropFirst()
                guard let inSchema = word() else { return nil }
                name = inSchema
            }
            return name
        }
        guard keyword("CREATE"), keyword("INDEX") else { return nil }
        if keyword("IF") { guard keyword("NOT"), keyword("EXISTS") else { return nil } }
        guard qualifiedName() != nil, keyword("ON"), let table = word() else { return nil }
        skipSpace()
        return rest.first == "(" ? table : nil
    }
}
