import Foundation
import ETLStore
import ETLModel
import ETLCoreData
import ETLPipeline

/// The source's tables that belong to no entity (`UnmodeledTable`), its triggers, views and
/// virtual tables, and what the pipeline says to do with them. Decided before a row is read:
/// a kind the pipeline does not name is refused with the names (and tables' row counts),
/// and so is a carry that cannot be faithful. Carried ones are made in the new store after
/// the last step, once every row is in: tables with their rows, then virtual tables with
/// theirs, then views, then triggers, so that no source trigger fires during the run.
struct UnmodeledTables {
    let tables: [UnmodeledTable]
    let actions: [UnmodeledTable.Kind: UnmodeledTableAction]
    /// History: source entity number → destination entity name, for `ZENTITY`.
    let historyEntities: [Int64: String]

    init(plan: Plan, source: Database) throws {
        let path = plan.sourcePath
        let first = plan.steps.first!
        let tables = try UnmodeledTable.find(in: source, layout: first.sourceLayout) + UnmodeledTable.schemaObjects(in: source)
        self.tables = tables
        actions = plan.spec.unmodeledTables
        var historyEntities: [Int64: String] = [:]
        for kind in UnmodeledTable.Kind.allCases {
            let found = tables.filter { $0.kind == kind }
            guard !found.isEmpty else { continue }
            let listed = Self.list(found)
            guard let action = actions[kind] else {
                if kind.isSchemaObject {
                    throw MigrationError.badSource(path: path, reason: "has \(kind.description)s that no model describes: \(listed). Nothing was read. "
                        + "Say in the pipeline what to do with them: \"\(kind.pipelineKey)\": \"drop\" (the destination goes without them) "
                        + "or \"carry\" (made in it once every row is in; a trigger never fires during the run)")
                }
                throw MigrationError.badSource(path: path, reason: "has \(kind.description) tables that belong to no entity of model \(plan.sourceVersion): "
                    + "\(listed). Nothing was read. Say in the pipeline what to do with them: \"\(kind.pipelineKey)\": \"drop\" "
                    + "(the destination goes without them) or \"carry\" (they are copied into it)")
            }
            guard action == .carry else { continue }
            switch kind {
            case .cloudKit:
                throw MigrationError.badSource(path: path, reason: "has CloudKit mirroring tables (\(listed)), which refer to rows by entity number and key: "
                    + "carrying them is not supported yet. Say \"cloudKit\": \"drop\" (CloudKit then mirrors the store anew)")
            case .history:
                historyEntities = try Self.historyEntities(plan: plan, source: source)
            case .other, .trigger, .view, .virtualTable:
                break
            }
        }
        self.historyEntities = historyEntities
    }

    static func list(_ tables: [UnmodeledTable]) -> String {
        tables.map { $0.kind.isSchemaObject ? $0.name : "\($0.name) (\($0.rows) row\($0.rows == 1 ? "" : "s"))" }.joined(separator: ", ")
    }

    /// The summary's lines: what was carried and what was dropped.
    var notes: [String] {
        UnmodeledTable.Kind.allCases.compactMap { kind in
            let found = tables.filter { $0.kind == kind }
            guard !found.isEmpty, let action = actions[kind] else { return nil }
            let what = kind.isSchemaObject ? "\(kind.description)s" : "\(kind.description) tables"
            return "\(action == .carry ? "carried" : "dropped") \(what) \(Self.list(found)), as the pipeline's \"\(kind.pipelineKey)\" says"
        }
    }

    /// Where the rows persistent history refers to (`ACHANGE.ZENTITY`, `ZENTITYPK`) end up:
    /// each entity through one mapping per step that keeps the source keys. Otherwise the
    /// history would point at other rows, or none: refused.
    static func historyEntities(plan: Plan, source: Database) throws -> [Int64: String] {
        let path = plan.sourcePath
        guard try source.table(named: "ACHANGE") != nil, try source.table(named: "Z_PRIMARYKEY") != nil else { return [:] }
        var names: [Int64: String] = [:]
        for row in try source.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY") {
            if case .integer(let number) = row[0], case .text(let name) = row[1] { names[number] = name }
        }
        var result: [Int64: String] = [:]
        for row in try source.rows("SELECT DISTINCT ZENTITY FROM ACHANGE WHERE ZENTITY IS NOT NULL ORDER BY 1") {
            guard case .integer(let number) = row[0] else { continue }
            guard var entity = names[number] else {
                throw MigrationError.badSource(path: path, reason: "ACHANGE refers to entity number \(number), which Z_PRIMARYKEY does not name: the history cannot be carried; say \"history\": \"drop\"")
            }
            for step in plan.steps {
                let keeping = step.sourceKeyTargets
                let mappings = step.mappings.filter { $0.sourceEntity == entity }
                guard mappings.count == 1, keeping.contains(mappings[0].ownTarget) else {
                    let why = mappings.isEmpty ? "no mapping of step \(step.name) carries \(entity)"
                        : "the rows of \(entity) do not keep their keys in step \(step.name) (\(mappings.map(\.name).joined(separator: ", ")))"
                    throw MigrationError.badSource(path: path, reason: "its persistent history refers to rows by entity and key, and \(why): "
                        + "carried, it would point at other rows. Say \"history\": \"drop\", or map \(entity) with one mapping that keeps its keys")
                }
                entity = mappings[0].destinationEntity
            }
            result[number] = entity
        }
        return result
    }

    /// Copies the carried tables from the source into the new store (idempotent: a resume
    /// copies them again over themselves): definitions and indexes as the source has them,
    /// rows with their keys; history's `ZENTITY` renumbered for the destination's entities,
    /// and its entities' `Z_PRIMARYKEY` rows kept so Core Data goes on numbering them.
    func carry(into db: Database, sourcePath: String) throws {
        let carried = tables.filter { actions[$0.kind] == .carry }
        guard !carried.isEmpty else { return }
        try db.execute("ATTACH DATABASE \(SQLValue.text(PushdownStage.readOnlyURI(sourcePath)).sqlLiteral) AS src")
        defer { try? db.execute("DETACH DATABASE src") }
        let q = Database.quote
        func create(_ object: UnmodeledTable, types: String) throws {
            let definitions = try db.rows("SELECT sql FROM src.sqlite_schema WHERE \(types) AND sql IS NOT NULL ORDER BY type = 'table' DESC, rowid",
                                          [.text(object.name)])
            for row in definitions {
                guard case .text(let sql) = row[0] else { continue }
                guard (try db.rows("SELECT 1 FROM main.sqlite_schema WHERE sql = ?", [.text(sql)])).isEmpty else { continue }
                do {
                    try db.execute(sql)
                } catch {
                    throw MigrationError.badSource(path: sourcePath, reason: "its \(object.kind.description) \(object.name) cannot be made in the new store "
                        + "(\(error)): say \"\(object.kind.pipelineKey)\": \"drop\", or change it in the source")
                }
            }
        }
        try db.transaction {
            // Rows first, with no trigger of the source's in the new store yet.
            for table in carried where !table.kind.isSchemaObject {
                try create(table, types: "tbl_name = ? AND type IN ('table', 'index')")
                try db.execute("INSERT OR REPLACE INTO main.\(q(table.name)) SELECT * FROM src.\(q(table.name))")
            }
            for table in carried where table.kind == .virtualTable {
                try create(table, types: "name = ?")
                // With their row ids (an external-content index refers to its rows by them).
                let columns = try db.rows("SELECT name FROM pragma_table_info(?, 'src')", [.text(table.name)])
                    .compactMap { row -> String? in if case .text(let name) = row[0] { return q(name) } else { return nil } }
                let list = (["rowid"] + columns).joined(separator: ", ")
                try db.execute("DELETE FROM main.\(q(table.name))")
                try db.execute("INSERT INTO main.\(q(table.name)) (\(list)) SELECT \(list) FROM src.\(q(table.name))")
            }
            for kind in [UnmodeledTable.Kind.view, .trigger] {
                for object in carried where object.kind == kind { try create(object, types: "name = ?") }
            }
            if carried.contains(where: { $0.name.uppercased() == "ACHANGE" }), !historyEntities.isEmpty {
                var numbers: [String: Int64] = [:]
                for row in try db.rows("SELECT Z_NAME, Z_ENT FROM main.Z_PRIMARYKEY") {
                    if case .text(let name) = row[0], case .integer(let number) = row[1] { numbers[name] = number }
                }
                let cases = try historyEntities.sorted { $0.key < $1.key }.map { old, entity -> String in
                    guard let new = numbers[entity] else {
                        throw MigrationError.badDestination(path: db.path, reason: "has no entity number for \(entity) in Z_PRIMARYKEY")
                    }
                    return "WHEN \(old) THEN \(new)"
                }
                try db.execute("UPDATE main.ACHANGE SET ZENTITY = CASE ZENTITY \(cases.joined(separator: " ")) END WHERE ZENTITY IS NOT NULL")
                try db.execute("INSERT OR REPLACE INTO main.Z_PRIMARYKEY SELECT * FROM src.Z_PRIMARYKEY WHERE Z_NAME IN ('CHANGE', 'TRANSACTION', 'TRANSACTIONSTRING')")
            }
        }
    }
}
