import Foundation
import ETLStore
import ETLModel
import ETLDocument

/// A table of a store that belongs to no entity of its model: Core Data's persistent
/// history (`ATRANSACTION`, `ACHANGE`, `ATRANSACTIONSTRING`), CloudKit mirroring
/// (`ANSCK…`), or anything else an app or a tool put there. No mapping reads it, so a
/// migration loses it unless the pipeline says what to do (`"history"`, `"cloudKit"`,
/// `"otherTables"`: `"drop"` or `"carry"`).
public struct UnmodeledTable: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        case history, cloudKit, other
        /// Not tables of rows but schema objects no layout makes: the source's triggers
        /// (Core Data's own derived-attribute triggers, `Z_DA_…`, aside), views, and
        /// virtual tables (FTS5, R*Tree; their shadow tables are theirs).
        case trigger, view, virtualTable

        /// The pipeline key that says what to do with tables of this kind.
        public var pipelineKey: PipelineKey {
            switch self {
            case .history: return PipelineFormat.Top.history
            case .cloudKit: return PipelineFormat.Top.cloudKit
            case .other: return PipelineFormat.Top.otherTables
            case .trigger: return PipelineFormat.Top.triggers
            case .view: return PipelineFormat.Top.views
            case .virtualTable: return PipelineFormat.Top.virtualTables
            }
        }

        /// How a user would call them.
        public var description: String {
            switch self {
            case .history: return "Core Data persistent history"
            case .cloudKit: return "CloudKit mirroring"
            case .other: return "unknown"
            case .trigger: return "trigger"
            case .view: return "view"
            case .virtualTable: return "virtual table"
            }
        }

        /// Whether the kind is schema objects rather than tables of rows.
        public var isSchemaObject: Bool { self == .trigger || self == .view || self == .virtualTable }
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
        // A virtual table's shadow tables hold its rows: they go (or come) with it.
        let virtual = try schemaObjects(in: store).filter { $0.kind == .virtualTable }.map { $0.name.uppercased() + "_" }
        let shadows = ["DATA", "IDX", "CONTENT", "DOCSIZE", "CONFIG", "NODE", "ROWID", "PARENT", "SEGMENTS", "SEGDIR", "STAT"]
        func isShadow(_ name: String) -> Bool {
            virtual.contains { name.uppercased().hasPrefix($0) && shadows.contains(String(name.uppercased().dropFirst($0.count))) }
        }
        return try store.tables().filter { !known.contains($0.name.uppercased()) && !isShadow($0.name) }.map { table in
            UnmodeledTable(name: table.name, kind: kind(of: table.name),
                           rows: Int(try store.scalarInt("SELECT count(*) FROM \(Database.quote(table.name))")))
        }
    }

    /// The triggers, views and virtual tables of `store`, but Core Data's derived-attribute
    /// triggers (`Z_DA_…`), which the destination's layout makes from its model. Rows are
    /// not counted (a virtual table's module may not run on a hardened connection).
    public static func schemaObjects(in store: Database) throws -> [UnmodeledTable] {
        try store.rows("""
            SELECT type, name FROM sqlite_schema
            WHERE (type IN ('trigger', 'view') OR (type = 'table' AND sql LIKE 'CREATE VIRTUAL TABLE%'))
              AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND NOT (type = 'trigger' AND name LIKE 'Z\\_DA\\_%' ESCAPE '\\')
            ORDER BY name
            """).compactMap { row in
            guard case .text(let type) = row[0], case .text(let name) = row[1] else { return nil }
            return UnmodeledTable(name: name, kind: type == "trigger" ? .trigger : type == "view" ? .view : .virtualTable, rows: 0)
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
