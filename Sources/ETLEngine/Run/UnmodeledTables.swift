import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// The source's tables that belong to no entity (`UnmodeledTable`), its triggers, views and
/// virtual tables, and what the pipeline says to do with them. Decided before a row is read:
/// a kind the pipeline does not name is refused with the names (and tables' row counts),
/// and so is a carry that cannot be faithful: a definition that is no single plain CREATE
/// statement, a name the destination's layout makes, a view or trigger naming what the
/// result does not have (`readDefinitions`). Nothing of the source runs as SQL text: each
/// definition is checked by SQLite's parser first (`SchemaDefinition`). Carried ones are
/// made in the new store in the finalize stage, once every row is in, in one transaction
/// and once: tables with their rows, then virtual tables with theirs, then views, then
/// triggers, so that no source trigger fires during the run.
public struct UnmodeledTables {
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
        try readDefinitions(plan: plan, source: source)
    }

    /// What `etl plan` refuses of them, as `etl run` would, before a row is read.
    public static func check(plan: Plan, source: Database) throws {
        guard !plan.steps.isEmpty else { return }
        _ = try UnmodeledTables(plan: plan, source: source)
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

    /// The carried objects' definitions, as the source's `sqlite_schema` holds them, read
    /// once (through the run's hardened connection) and checked before a row is read.
    private(set) var definitions: [CarriedDefinition] = []

    /// One `sqlite_schema` entry of a carried object: the object itself, or an index of a carried table.
    struct CarriedDefinition {
        let object: UnmodeledTable
        let kind: SchemaDefinition.Kind
        let name: String
        let sql: String
    }

    /// Reads the carried objects' definitions from `source` and makes them, without rows,
    /// in an empty store of the last step's destination layout: a definition that is no
    /// single plain CREATE statement of its object, a name the destination's layout makes
    /// already, or a view or trigger that names what the result does not have, is refused
    /// here, by name, before a row is read.
    mutating func readDefinitions(plan: Plan, source: Database) throws {
        let carried = tables.filter { actions[$0.kind] == .carry }
        guard !carried.isEmpty else { return }
        var found: [CarriedDefinition] = []
        for object in carried {
            let rows = object.kind.isSchemaObject
                ? try source.rows("SELECT type, name, sql FROM sqlite_schema WHERE name = ? AND sql IS NOT NULL", [.text(object.name)])
                : try source.rows("SELECT type, name, sql FROM sqlite_schema WHERE tbl_name = ? AND type IN ('table', 'index') AND sql IS NOT NULL "
                                  + "ORDER BY type = 'table' DESC, rowid", [.text(object.name)])
            for row in rows {
                guard case .text(let type) = row[0], case .text(let name) = row[1], case .text(let sql) = row[2] else { continue }
                let kind: SchemaDefinition.Kind
                switch (type, object.kind) {
                case ("index", _): kind = .index
                case ("table", .virtualTable): kind = .virtualTable
                case ("table", _): kind = .table
                case ("view", _): kind = .view
                case ("trigger", _): kind = .trigger
                default: continue
                }
                found.append(CarriedDefinition(object: object, kind: kind, name: name, sql: sql))
            }
        }
        definitions = found
        let image = try Database(path: ":memory:", mode: .create)
        for sql in plan.steps.last!.destinationLayout.schemaSQL() { try image.execute(sql) }
        try make(in: image, sourcePath: plan.sourcePath, rowsFrom: nil)
    }

    /// Makes the carried objects in the new store, with the source's rows, in one
    /// transaction, once: a rerun after a kill finds them there (no layout makes their
    /// names, `readDefinitions` saw to it) and makes nothing again. Tables get their rows
    /// with their keys before any trigger exists, so no carried trigger fires during the
    /// carry; history's `ZENTITY` is renumbered for the destination's entities, and its
    /// entities' `Z_PRIMARYKEY` rows kept so Core Data goes on numbering them.
    /// Whether `carry` has anything to make (else the store need not be opened for it).
    var carries: Bool { !definitions.isEmpty }

    func carry(into db: Database, sourcePath: String) throws {
        guard !definitions.isEmpty else { return }
        try PushdownStage.attachSource(sourcePath, to: db)
        defer { try? db.execute("DETACH DATABASE src") }
        try db.transaction {
            let names = Set(try db.rows("SELECT name FROM main.sqlite_schema").compactMap { row -> String? in
                if case .text(let name) = row[0] { return name.lowercased() } else { return nil }
            })
            if definitions.contains(where: { names.contains($0.name.lowercased()) }) { return }
            try make(in: db, sourcePath: sourcePath, rowsFrom: "src")
        }
    }

    /// Makes every carried definition in `db`'s `main`, each checked first
    /// (`SchemaDefinition`), with the rows of the tables of schema `rowsFrom` when given;
    /// each view and trigger then prepared against the result (nothing stepped).
    private func make(in db: Database, sourcePath: String, rowsFrom src: String?) throws {
        let q = Database.quote
        let existing = Set(try db.rows("SELECT name FROM main.sqlite_schema").compactMap { row -> String? in
            if case .text(let name) = row[0] { return name.lowercased() } else { return nil }
        })
        func refuse(_ object: UnmodeledTable, _ what: String) -> MigrationError {
            .badSource(path: sourcePath, reason: "its \(object.kind.description)\(object.kind.isSchemaObject ? "" : " table") \(SchemaDefinition.quoted(object.name)) "
                + "cannot be carried: \(what). Say \"\(object.kind.pipelineKey)\": \"drop\", or change it in the source")
        }
        func make(_ definition: CarriedDefinition) throws -> SchemaDefinition {
            guard !existing.contains(definition.name.lowercased()) else {
                throw refuse(definition.object, "the destination's layout makes \(definition.kind == .index ? "an object" : "a table or object") named "
                    + "\(SchemaDefinition.quoted(definition.name)) (written by the mappings), and a carried object never touches one")
            }
            let checked: SchemaDefinition
            do {
                checked = try SchemaDefinition.check(definition.sql, kind: definition.kind, name: definition.name, on: db)
            } catch let refused as SchemaDefinition.Refused {
                throw refuse(definition.object, "its definition (\(definition.kind.rawValue) \(SchemaDefinition.quoted(definition.name)) in sqlite_schema) \(refused)")
            }
            if definition.kind == .index, checked.table.caseInsensitiveCompare(definition.object.name) != .orderedSame {
                throw refuse(definition.object, "its index \(SchemaDefinition.quoted(definition.name)) is on \(SchemaDefinition.quoted(checked.table)), not on it")
            }
            do { try checked.create(in: db) } catch let error as StoreError {
                throw refuse(definition.object, "SQLite cannot make it in the new store (\(error.message))")
            }
            return checked
        }
        let carried = definitions
        // Rows first, with no trigger of the source's in the new store yet.
        for definition in carried where definition.kind == .table {
            _ = try make(definition)
            if let src { try db.execute("INSERT INTO main.\(q(definition.name)) SELECT * FROM \(src).\(q(definition.name))") }
        }
        for definition in carried where definition.kind == .index { _ = try make(definition) }
        for definition in carried where definition.kind == .virtualTable {
            _ = try make(definition)
            guard let src else { continue }
            // With their row ids (an external-content index refers to its rows by them).
            let columns = try db.rows("SELECT name FROM pragma_table_info(?, ?)", [.text(definition.name), .text(src)])
                .compactMap { row -> String? in if case .text(let name) = row[0] { return q(name) } else { return nil } }
            let list = (["rowid"] + columns).joined(separator: ", ")
            try db.execute("INSERT INTO main.\(q(definition.name)) (\(list)) SELECT \(list) FROM \(src).\(q(definition.name))")
        }
        if src != nil, carried.contains(where: { $0.name.uppercased() == "ACHANGE" && $0.kind == .table }), !historyEntities.isEmpty {
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
        // Views, then triggers: each prepared against the result as it would be used, so
        // one naming what the result does not have (a column the step renamed) is refused,
        // never installed broken.
        for definition in carried where definition.kind == .view {
            _ = try make(definition)
            do { _ = try db.prepare("SELECT * FROM main.\(q(definition.name))") } catch let error as StoreError {
                throw refuse(definition.object, "it names what the new store does not have (\(error.message))")
            }
        }
        for definition in carried where definition.kind == .trigger {
            let checked = try make(definition)
            let table = q(checked.table)
            let columns = try db.rows("SELECT name FROM pragma_table_xinfo(?, 'main') WHERE hidden = 0", [.text(checked.table)])
                .compactMap { row -> String? in if case .text(let name) = row[0] { return q(name) } else { return nil } }
            // Preparing a statement compiles the triggers it would fire (never stepped).
            var uses = ["INSERT INTO main.\(table) DEFAULT VALUES", "DELETE FROM main.\(table)"]
            if !columns.isEmpty { uses.append("UPDATE main.\(table) SET \(columns.map { "\($0) = \($0)" }.joined(separator: ", "))") }
            for use in uses {
                do { _ = try db.prepare(use) } catch let error as StoreError {
                    // A view's statement without an INSTEAD OF trigger for it: nothing to compile.
                    if error.message.contains("because it is a view") { continue }
                    throw refuse(definition.object, "it names what the new store does not have (\(error.message))")
                }
            }
        }
    }
}
