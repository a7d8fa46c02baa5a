import ETLStore
import ETLModel

/// How a store's tables and columns differ from what a model version lays out.
///
/// Names are compared case-insensitively, exact names first. For the Core Data layout, a
/// join table is also found by its two key columns, and what is still unmatched is compared
/// without the entity numbers inside names (`Z_1SONGS`, `Z_4SONGS`, `Z9_OWNER`,
/// `Z_FOK_4SONGS`), which differ from store to store; the names listed are the store's
/// (extra) or the expected ones (missing).
public struct SchemaDifference: Sendable, Equatable, CustomStringConvertible {
    public var missingTables: [String] = []
    public var extraTables: [String] = []
    /// "TABLE.COLUMN" the model needs and the store lacks.
    public var missingColumns: [String] = []
    /// "TABLE.COLUMN" the store has and the model does not know.
    public var extraColumns: [String] = []

    public init() {}

    public var isEmpty: Bool { count == 0 }

    public var count: Int { missingTables.count + extraTables.count + missingColumns.count + extraColumns.count }

    public var description: String {
        guard !isEmpty else { return "no difference" }
        var parts: [String] = []
        if !missingTables.isEmpty { parts.append("missing tables: " + missingTables.joined(separator: ", ")) }
        if !missingColumns.isEmpty { parts.append("missing columns: " + missingColumns.joined(separator: ", ")) }
        if !extraTables.isEmpty { parts.append("extra tables: " + extraTables.joined(separator: ", ")) }
        if !extraColumns.isEmpty { parts.append("extra columns: " + extraColumns.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }

    /// Compares `store` with the tables `layout` would create for `model`.
    public static func between(store: Database, model: Model, layout kind: LayoutKind) throws -> SchemaDifference {
        // Core Data: the names the store really uses when it holds every part of the model
        // (digits Core Data appended to colliding names included), else the conventional ones.
        let layout: any StoreLayout = kind == .coredata
            ? ((try? CoreDataLayout(model: model, store: store)) ?? CoreDataLayout(model: model))
            : kind.layout(for: model)
        let expectedDB = try Database(path: ":memory:", mode: .create)
        for sql in layout.schemaSQL() { try expectedDB.execute(sql) }
        let expected = try expectedDB.tables()
        let actual = try store.tables()
        let coreData = kind == .coredata

        // Core Data's own tables: the metadata ones must be there, nothing else about them is compared;
        // tables not starting with Z belong to Core Data's other machinery (history, CloudKit).
        let required: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA"]
        func skipped(_ name: String) -> Bool {
            guard coreData else { return false }
            let upper = name.uppercased()
            return CoreDataNames.bookkeepingTables.contains(upper) || !upper.hasPrefix("Z")
        }

        var difference = SchemaDifference()
        let candidates = actual.filter { !skipped($0.name) }
        let present = Set(actual.map { $0.name.uppercased() })
        var pairs: [(expected: TableInfo, found: TableInfo)] = []
        var unmatched: [TableInfo] = []
        for table in expected {
            if skipped(table.name) {
                if required.contains(table.name.uppercased()), !present.contains(table.name.uppercased()) {
                    difference.missingTables.append(table.name)
                }
                continue
            }
            unmatched.append(table)
        }
        // Tables are matched by their exact names first: a store holding the model is read
        // under its own names (`CoreDataLayout(model:store:)`), and two join tables whose
        // names differ only in their entity numbers (`Z_16USERS` of SystemMessage.users and
        // `Z_20USERS` of Reaction.users, facts §1.3) are different tables. Then, for Core
        // Data, by their columns (a join table is known by its two key columns, whatever
        // Core Data named it, facts §1.2 b), exact and without entity numbers; last by the
        // name without entity numbers (another store's numbering).
        var taken = Set<String>()
        func match(_ same: (TableInfo, TableInfo) -> Bool) {
            unmatched.removeAll { table in
                guard let found = candidates.first(where: { !taken.contains($0.name.uppercased()) && same(table, $0) }) else { return false }
                taken.insert(found.name.uppercased())
                pairs.append((table, found))
                return true
            }
        }
        match { $0.name.uppercased() == $1.name.uppercased() }
        if coreData {
            func keyColumns(_ table: TableInfo, _ name: (String) -> String) -> Set<String>? {
                guard table.name.uppercased().hasPrefix("Z_") else { return nil }
                let keys = table.columns.map(\.name).filter { !$0.uppercased().hasPrefix("Z_FOK_") }
                return keys.count == 2 ? Set(keys.map(name)) : nil
            }
            match { a, b in keyColumns(a, { $0.uppercased() }).map { $0 == keyColumns(b, { $0.uppercased() }) } ?? false }
            match { a, b in keyColumns(a, normalized).map { $0 == keyColumns(b, normalized) } ?? false }
            match { normalized($0.name) == normalized($1.name) }
        }
        let order = Dictionary(expected.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { a, _ in a })
        difference.missingTables = (difference.missingTables + unmatched.map(\.name)).sorted { order[$0, default: 0] < order[$1, default: 0] }
        pairs.sort { order[$0.expected.name, default: 0] < order[$1.expected.name, default: 0] }
        for (table, found) in pairs {
            // Columns likewise: by exact name, then (Core Data) without entity numbers.
            var have = found.columns.map(\.name)
            var missing: [String] = []
            for column in table.columns {
                if let i = have.firstIndex(where: { $0.uppercased() == column.name.uppercased() }) {
                    have.remove(at: i)
                } else {
                    missing.append(column.name)
                }
            }
            missing.removeAll { column in
                guard coreData, let i = have.firstIndex(where: { normalized($0) == normalized(column) }) else { return false }
                have.remove(at: i)
                return true
            }
            difference.missingColumns += missing.map { "\(found.name).\($0)" }
            difference.extraColumns += have.map { "\(found.name).\($0)" }
        }
        difference.extraTables = candidates.filter { !taken.contains($0.name.uppercased()) }.map(\.name)
        return difference
    }

    /// A Core Data name with its entity numbers replaced by `#`: `Z_12CATEGORIES` → `Z_#CATEGORIES`,
    /// `Z9_OWNER` → `Z#_OWNER`, `Z_FOK_4SONGS` → `Z_FOK_#SONGS`.
    static func normalized(_ name: String) -> String {
        let upper = name.uppercased()
        func replaceDigits(after prefix: String, in text: String) -> String? {
            guard text.hasPrefix(prefix) else { return nil }
            let rest = text.dropFirst(prefix.count)
            let digits = rest.prefix { $0.isASCII && $0.isNumber }
            guard !digits.isEmpty else { return nil }
            return prefix + "#" + rest.dropFirst(digits.count)
        }
        if let n = replaceDigits(after: "Z_FOK_", in: upper) { return n }
        if let n = replaceDigits(after: "Z_", in: upper) { return n }
        if let n = replaceDigits(after: "Z", in: upper), n.dropFirst(2).hasPrefix("_") { return n }
        return upper
    }
}
