import Foundation
import ETLStore

/// A table of a store that belongs to no entity of its model: Core Data's persistent
/// history (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`), CloudKit mirroring
/// (`ANSCK…`), or anything else an app or a tool put there. No mapping reads it, so a
/// migration loses it unless the pipeline says what to do (`"history"`, `"cloudKit"`,
/// `"otherTables"`: `"drop"` or `"carry"`).
public struct UnmodeledTable: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case history, cloudKit, other

        /// The pipeline key that says what to do with tables of this kind.
        public var pipelineKey: String {
            switch self {
            case .history: return "history"
            case .cloudKit: return "cloudKit"
            case .other: return "otherTables"
            }
        }

        /// How a user would call them.
        public var description: String {
            switch self {
            case .history: return "Core Data persistent history"
            case .cloudKit: return "CloudKit mirroring"
            case .other: return "unknown"
            }
        }
    }

    public var name: String
    public var kind: Kind
    public var rows: Int

    /// The tables of persistent history, in the order their rows refer to one another.
    public static let historyTables = ["ATRANSACTIONSTRING", "ATRANSACTION", "ACHANGE"]

    public static func kind(of name: String) -> Kind {
        let upper = name.uppercased()
        if historyTables.contains(upper) { return .history }
        if upper.hasPrefix("ANSCK") { return .cloudKit }
        return .other
    }

    /// The tables of `store` that `layout` does not lay out (its entities' and join tables,
    /// and for Core Data its bookkeeping tables), with their row counts, by name.
    public static func find(in store: Database, layout: any StoreLayout) throws -> [UnmodeledTable] {
        var known = try LaidOutTables.names(of: layout.schemaSQL())
        if layout.kind == .coredata { known.formUnion(CoreDataNames.bookkeepingTables) }
        return try store.tables().filter { !known.contains($0.name.uppercased()) }.map { table in
            UnmodeledTable(name: table.name, kind: kind(of: table.name),
                           rows: Int(try store.scalarInt("SELECT count(*) FROM \(Database.quote(table.name))")))
        }
    }
}

/// The tables a layout's statements make, by upper-cased name: learnt by running them on
/// an empty database in memory, once per set of statements (a batch asks it for every
/// store of the same kind; the answer depends on the statements alone).
private enum LaidOutTables {
    /// By set of statements, 32 kept at most.
    private static let known = BoundedCache<[String], Set<String>>(capacity: 32)

    static func names(of schemaSQL: [String]) throws -> Set<String> {
        try known.value(for: schemaSQL) { try laidOut(schemaSQL) }
    }

    private static func laidOut(_ schemaSQL: [String]) throws -> Set<String> {
        let laidOut = try Database(path: ":memory:", mode: .create)
        for sql in schemaSQL { try laidOut.execute(sql) }
        return Set(try laidOut.tables().map { $0.name.uppercased() })
    }
}
