/// What a store holds, read from SQLite itself rather than assumed.
public struct TableInfo: Sendable, Equatable {
    public var name: String
    public var columns: [ColumnInfo]

    public func column(named name: String) -> ColumnInfo? {
        columns.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }
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
        let names = try rows("SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
        return try names.compactMap { row -> TableInfo? in
            guard case .text(let name) = row[0] else { return nil }
            return try table(named: name)
        }
    }

    public func table(named name: String) throws -> TableInfo? {
        let info = try rows("SELECT name, type, pk FROM pragma_table_info(?)", [.text(name)])
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
}
