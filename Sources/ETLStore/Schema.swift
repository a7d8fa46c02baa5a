/// What a store holds, read from SQLite itself rather than assumed.
public struct TableInfo: Sendable, Equatable {
    public var name: String
    public var columns: [ColumnInfo]

    public func column(named name: String) -> ColumnInfo? {
        columns.first { Self.sameName($0.name, name) }
    }

    /// Whether SQLite takes `a` and `b` for one name: equal but for the case of ASCII
    /// letters (SQLite folds no other), compared without allocating (a table may have
    /// 2,000 columns, each looked up).
    public static func sameName(_ a: String, _ b: String) -> Bool {
        a.utf8.count == b.utf8.count && zip(a.utf8, b.utf8).allSatisfy { x, y in
            x == y || (x | 0x20 == y | 0x20 && (0x61...0x7A).contains(x | 0x20))
        }
    }
}

public struct ColumnInfo: Sendable, Equatable {
    public var name: String
    public var declaredType: String
    public var isPrimaryKey: Bool
}

extension Database {
    /// Base tables only, never views: a store's views could run anything on read.
    public func tables() throws -> [TableInfo] {
        try schemaAnswer("tables") { try askTables() }
    }

    private func askTables() throws -> [TableInfo] {
        let listed: [[SQLValue]]
        do {
            // The base tables of SQLite's parsed schema, all at once: `table(named:)` asks
            // `pragma_table_list` about one name at a time, a store's whole schema each time.
            listed = try rows("SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        } catch let error as StoreError where error.message.contains("pragma_table_list") {
            // An SQLite older than 3.37: each name of the stored text, asked about.
            return try rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").compactMap { row in
                guard case .text(let name) = row[0] else { return nil }
                return try table(named: name)
            }
        }
        return try listed.compactMap { row in
            guard case .text(let name) = row[0] else { return nil }
            return try columns(ofTable: name)
        }
    }

    /// The base table of the main database named `name` (case-insensitive, as SQLite
    /// compares names), or nil when there is none: a view, or a virtual table, of that
    /// name is not a table. `pragma_table_info` alone describes views too, so a store
    /// whose `Book` is a view would otherwise pass for one whose `Book` is a table, and
    /// reading it would run the view's query (see `objectType(named:)`).
    public func table(named name: String) throws -> TableInfo? {
        try schemaAnswer("table:" + name) {
            guard try objectType(named: name) == "table" else { return nil }
            return try columns(ofTable: name)
        }
    }

    /// The columns of base table `name`, known to be one.
    private func columns(ofTable name: String) throws -> TableInfo? {
        let info = try rows("SELECT name, type, pk FROM pragma_table_info(?, 'main')", [.text(name)])
        guard !info.isEmpty else { return nil }
        let columns = info.map { row -> ColumnInfo in
            var column = ColumnInfo(name: "", declaredType: "", isPrimaryKey: false)
            if case .text(let n) = row[0] { column.name = n }
            if case .text(let t) = row[1] { column.declaredType = t }
            if case .integer(let pk) = row[2] { column.isPrimaryKey = pk > 0 }
            return column
        }
        return TableInfo(name: name, columns: columns)
    }

    /// What `name` is in the main database's schema: "table", "view", "virtual" (a
    /// virtual table), "shadow" (a virtual table's storage), "index", "trigger", or nil
    /// when nothing has that name. Tables, views and indexes share one namespace; a
    /// trigger may have a table's name, and then the table wins.
    ///
    /// Asked of SQLite's parsed schema (`pragma_table_list`, SQLite 3.37+), not of the
    /// text in `sqlite_schema`, which a hostile file can word to mislead a pattern.
    public func objectType(named name: String) throws -> String? {
        try schemaAnswer("type:" + name) { try askObjectType(named: name) }
    }

    private func askObjectType(named name: String) throws -> String? {
        let listed: [[SQLValue]]
        do {
            listed = try rows("SELECT type FROM pragma_table_list(?) WHERE schema = 'main'", [.text(name)])
        } catch let error as StoreError where error.message.contains("pragma_table_list") {
            // An SQLite older than 3.37: the stored text, with virtual tables told apart by it.
            listed = try rows("""
                SELECT CASE WHEN type = 'table' AND sql LIKE 'CREATE%VIRTUAL%' THEN 'virtual' ELSE type END
                FROM main.sqlite_schema WHERE name = ? COLLATE NOCASE AND type IN ('table', 'view')
                """, [.text(name)])
        }
        if let row = listed.first, case .text(let type) = row[0] { return type }
        let other = try rows("SELECT type FROM main.sqlite_schema WHERE name = ? COLLATE NOCASE ORDER BY type = 'trigger'", [.text(name)])
        if let row = other.first, case .text(let type) = row[0] { return type }
        return nil
    }

    /// The column that is the rowid of base table `table` — its `INTEGER PRIMARY KEY` —
    /// or nil when it has none: a table WITHOUT ROWID, a composite or non-INTEGER primary
    /// key, no primary key, or `INTEGER PRIMARY KEY DESC` (which SQLite does not make an
    /// alias of the rowid, and backs with an index instead).
    ///
    /// Only a rowid column guarantees what a keyset scan (`key > ? ORDER BY key`) needs:
    /// every key an integer, unique, never null. A schema that says otherwise for a key
    /// column (a lying or foreign store) would make such a scan repeat rows or never end.
    public func rowIDColumn(ofTable table: String) throws -> String? {
        try schemaAnswer("rowid:" + table) { try askRowIDColumn(ofTable: table) }
    }

    private func askRowIDColumn(ofTable table: String) throws -> String? {
        guard try objectType(named: table) == "table" else { return nil }
        let withoutRowID: Bool
        do {
            let listed = try rows("SELECT wr FROM pragma_table_list(?) WHERE schema = 'main'", [.text(table)])
            withoutRowID = listed.first.map { $0[0] != .integer(0) } ?? true
        } catch let error as StoreError where error.message.contains("pragma_table_list") {
            let sql = try rows("SELECT sql FROM main.sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", [.text(table)])
            guard case .text(let text) = sql.first?.first else { return nil }
            withoutRowID = text.uppercased().replacingOccurrences(of: " ", with: "").hasSuffix("WITHOUTROWID")
        }
        guard !withoutRowID else { return nil }
        let keys = try rows("SELECT name, upper(type) FROM pragma_table_info(?, 'main') WHERE pk > 0", [.text(table)])
        guard keys.count == 1, case .text(let name) = keys[0][0], keys[0][1] == .text("INTEGER") else { return nil }
        // A primary key that is not the rowid is backed by an automatic index.
        let indexed = try rows("SELECT 1 FROM pragma_index_list(?, 'main') WHERE origin = 'pk'", [.text(table)])
        return indexed.isEmpty ? name : nil
    }
}
