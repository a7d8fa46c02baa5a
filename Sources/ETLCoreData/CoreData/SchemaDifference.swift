import ETLStore
import ETLModel

/// How a store's tables and columns differ from what a model version lays out.
///
/// Names are compared case-insensitively. For the Core Data layout, entity numbers inside
/// names (`Z_1SONGS`, `Z_4SONGS`, `Z9_OWNER`, `Z_FOK_4SONGS`) are not compared, because they
/// differ from store to store; the names listed are the store's (extra) or the
/// conventional ones (missing).
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

        func key(_ name: String) -> String { coreData ? normalized(name) : name.uppercased() }
        // Core Data's own tables: the metadata ones must be there, nothing else about them is compared;
        // tables not starting with Z belong to Core Data's other machinery (history, CloudKit).
        let required: Set<String> = ["Z_PRIMARYKEY", "Z_METADATA"]
        func skipped(_ name: String) -> Bool {
            guard coreData else { return false }
            let upper = name.uppercased()
            return CoreDataNames.bookkeepingTables.contains(upper) || !upper.hasPrefix("Z")
        }

        var difference = SchemaDifference()
        var actualByKey: [String: TableInfo] = [:]
        for table in actual { actualByKey[key(table.name)] = table }
        var matched = Set<String>()
        for table in expected {
            let upper = table.name.uppercased()
            if skipped(table.name) {
                if required.contains(upper), actualByKey[upper] == nil { difference.missingTables.append(table.name) }
                continue
            }
            guard let found = actualByKey[key(table.name)] else {
                difference.missingTables.append(table.name)
                continue
            }
            matched.insert(key(table.name))
            let have = Set(found.columns.map { key($0.name) })
            let want = Set(table.columns.map { key($0.name) })
            difference.missingColumns += table.columns.filter { !have.contains(key($0.name)) }.map { "\(found.name).\($0.name)" }
            difference.extraColumns += found.columns.filter { !want.contains(key($0.name)) }.map { "\(found.name).\($0.name)" }
        }
        difference.extraTables = actual.filter { !matched.contains(key($0.name)) && !skipped($0.name) }.map(\.name)
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
