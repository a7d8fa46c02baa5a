import Foundation
import ETLStore

/// What `CoreDataLayout.finish` writes once all rows are in, so that Core Data can open the
/// store and go on handing out keys:
///
/// 1. one-to-one links set on one side only are copied to the other side (Core Data stores
///    both); two sides that disagree are an error;
/// 2. the `Z<n>_<REL>` columns (the `Z_ENT` of a to-one's destination) are filled;
/// 3. ordering columns (`Z_FOK_…`) left null are numbered per owner in key order as Core
///    Data numbers a list it writes, 2048, 3072, … (1024·(k+1) for the k-th member), or
///    1024 apart after the highest number already there (values a migration copied:
///    `KeptBookkeeping` in the engine);
/// 4. derived counts (facts §5) are computed: the rows counted per row (`CoreDataDerivedCount`);
/// 5. `Z_PRIMARYKEY`: one row per entity with `Z_SUPER` (the parent's number, 0 for roots)
///    and `Z_MAX`. A root's `Z_MAX` is the highest `Z_PK` of its table — Core Data hands out
///    the keys of a whole inheritance tree from its root's row — and never lower than a
///    `Z_MAX` already there, so the app can never hand out a key that is taken; sub-entities
///    keep 0, as in stores Core Data writes;
/// 6. `Z_METADATA`: `Z_VERSION` 1, `Z_UUID` (the UUID is there only, never in the plist), and
///    the plist: the model keys of this version (version hashes and digest, computed or the
///    template's, version identifiers), `NSPersistenceFrameworkVersion` of the framework the
///    layout claims (the template's, else `CoreDataMetadata.defaultFrameworkVersion`), and
///    every other key of the migrated store's metadata (`carried`) unchanged, with its type;
/// 7. `Z_MODELCACHE`: the model, as Core Data keeps it (`ModelCacheWriter`, facts §6), so that
///    the store says what it holds to the next hop and to `etl model from-store`. A model with
///    a derivation etl cannot archive gets none (the table stays empty, as a store that keeps
///    no model).
///
/// Runs inside a savepoint (so it works in or out of the caller's transaction) and can run
/// again: every step only fills what is missing or rewrites the same values.
extension CoreDataLayout {
    public func finish(_ db: Database) throws {
        try db.execute("SAVEPOINT etl_coredata_finish")
        do {
            for sql in Self.bookkeepingSQLIfMissing { try db.execute(sql) }
            try mirrorOneToOnes(db)
            try fillEntityColumns(db)
            try fillOrderColumns(db)
            try computeDerivedValues(db)
            try writePrimaryKeys(db)
            try writeMetadata(db)
            try writeModelCache(db)
            try db.execute("RELEASE etl_coredata_finish")
        } catch {
            try? db.execute("ROLLBACK TO etl_coredata_finish")
            try? db.execute("RELEASE etl_coredata_finish")
            throw error
        }
    }

    /// `Z_ENT IN (…)` for the entity and its sub-entities, on `alias`.
    private func entityCondition(_ entity: String, alias: String) -> String {
        let numbers = model.descendants(of: entity).compactMap { names.numbers[$0] }.map(String.init)
        return "\(alias).Z_ENT IN (\(numbers.joined(separator: ", ")))"
    }

    private func mirrorOneToOnes(_ db: Database) throws {
        let q = Self.sqlName
        var done = Set<String>()
        for entity in CoreDataEntityNumbers.ordered(model, names.numbers) {
            for r in entity.relationships where !r.isToMany {
                guard let s = model.inverse(of: r), !s.isToMany else { continue }
                let b = CoreDataNames.declaring(s.name, from: r.destination, model)
                let keyA = "\(entity.name).\(r.name)", keyB = "\(b).\(s.name)"
                guard done.insert(keyA).inserted else { continue }
                done.insert(keyB)
                guard let colA = names.columns[keyA], let colB = names.columns[keyB] else { continue }
                let tA = q(table(of: entity.name).name), tB = q(table(of: b).name)
                // Fill B's side from A's, then A's side from B's.
                try db.execute("""
                    UPDATE \(tB) SET \(q(colB)) = (SELECT a.Z_PK FROM \(tA) AS a WHERE a.\(q(colA)) = \(tB).Z_PK AND \(entityCondition(entity.name, alias: "a")) ORDER BY a.Z_PK LIMIT 1)
                    WHERE \(q(colB)) IS NULL AND \(entityCondition(b, alias: tB))
                    """)
                try db.execute("""
                    UPDATE \(tA) SET \(q(colA)) = (SELECT b.Z_PK FROM \(tB) AS b WHERE b.\(q(colB)) = \(tA).Z_PK AND \(entityCondition(b, alias: "b")) ORDER BY b.Z_PK LIMIT 1)
                    WHERE \(q(colA)) IS NULL AND \(entityCondition(entity.name, alias: tA))
                    """)
                let disagreeing = try db.rows("""
                    SELECT a.Z_PK FROM \(tA) AS a JOIN \(tB) AS b ON b.Z_PK = a.\(q(colA))
                    WHERE \(entityCondition(entity.name, alias: "a")) AND b.\(q(colB)) IS NOT a.Z_PK
                    UNION SELECT b.\(q(colB)) FROM \(tB) AS b JOIN \(tA) AS a ON a.Z_PK = b.\(q(colB))
                    WHERE \(entityCondition(b, alias: "b")) AND a.\(q(colA)) IS NOT b.Z_PK
                    ORDER BY 1 LIMIT 5
                    """)
                if !disagreeing.isEmpty {
                    let keys = disagreeing.map { $0[0].sqlLiteral }.joined(separator: ", ")
                    throw CoreDataStoreError(store: db.path, "one-to-one \(entity.name).\(r.name) ↔ \(b).\(s.name): the two sides disagree "
                        + "(\(entity.name) rows with Z_PK \(keys)): each row may be linked to one row only, and both sides must name each other")
                }
            }
        }
    }

    private func fillEntityColumns(_ db: Database) throws {
        let q = Self.sqlName
        for (key, entityColumn) in names.entityColumns.sorted(by: { $0.key < $1.key }) {
            let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
            guard parts.count == 2, let r = model.relationship(parts[1], of: parts[0]), let column = names.columns[key] else { continue }
            let t = q(table(of: parts[0]).name), d = q(table(of: r.destination).name)
            try db.execute("""
                UPDATE \(t) SET \(q(entityColumn)) = (SELECT d.Z_ENT FROM \(d) AS d WHERE d.Z_PK = \(t).\(q(column)))
                WHERE \(q(column)) IS NOT NULL AND \(q(entityColumn)) IS NULL
                """)
        }
    }

    private func fillOrderColumns(_ db: Database) throws {
        let q = Self.sqlName
        // Each numbering only where a position is missing: a step that carried every one
        // (every hop of a store between versions that both order the list) spares the
        // statement, whose window query costs a small store more to compile than to run.
        // Where none is missing, the probe reads the rows the update would have read.
        func missing(_ table: String, _ condition: String) throws -> Bool {
            try !db.rows("SELECT 1 FROM \(table) WHERE \(condition) LIMIT 1").isEmpty
        }
        // The to-one side of an ordered to-many: rows numbered within their owner.
        for (key, order) in names.orderColumns.sorted(by: { $0.key < $1.key }) {
            let entity = String(key.split(separator: ".", maxSplits: 1)[0])
            guard let column = names.columns[key] else { continue }
            let t = q(table(of: entity).name)
            guard try missing(t, "\(q(column)) IS NOT NULL AND \(q(order)) IS NULL") else { continue }
            try db.execute("""
                UPDATE \(t) SET \(q(order)) = o.n FROM (
                  SELECT x.Z_PK AS pk, 1024 * row_number() OVER (PARTITION BY x.\(q(column)) ORDER BY x.Z_PK)
                    + coalesce((SELECT max(y.\(q(order))) FROM \(t) AS y WHERE y.\(q(column)) = x.\(q(column))), 1024) AS n
                  FROM \(t) AS x WHERE x.\(q(column)) IS NOT NULL AND x.\(q(order)) IS NULL) AS o
                WHERE \(t).Z_PK = o.pk
                """)
        }
        // Ordered sides of join tables: links numbered within their owner, in insertion order.
        var seen = Set<String>()
        for side in names.joins.values.sorted(by: { ($0.table, $0.own) < ($1.table, $1.own) }) {
            guard let order = side.order, seen.insert("\(side.table).\(order)").inserted else { continue }
            let t = q(side.table)
            guard try missing(t, "\(q(order)) IS NULL") else { continue }
            try db.execute("""
                UPDATE \(t) SET \(q(order)) = o.n FROM (
                  SELECT x.rowid AS rid, 1024 * row_number() OVER (PARTITION BY x.\(q(side.own)) ORDER BY x.rowid)
                    + coalesce((SELECT max(y.\(q(order))) FROM \(t) AS y WHERE y.\(q(side.own)) = x.\(q(side.own))), 1024) AS n
                  FROM \(t) AS x WHERE x.\(q(order)) IS NULL) AS o
                WHERE \(t).rowid = o.rid
                """)
        }
    }

    /// Derived counts as their triggers would have kept them (the triggers are created after
    /// `finish`: `triggerSQL`).
    private func computeDerivedValues(_ db: Database) throws {
        for count in CoreDataDerivedCount.find(in: self).counts {
            let numbers = model.descendants(of: count.entity).compactMap { names.numbers[$0] }
            try db.execute(count.computeSQL(entities: numbers))
        }
    }

    private func writePrimaryKeys(_ db: Database) throws {
        let q = Self.sqlName
        var tableMax: [String: Int64] = [:]
        let insert = try db.prepare("INSERT OR REPLACE INTO Z_PRIMARYKEY (Z_ENT, Z_NAME, Z_SUPER, Z_MAX) VALUES (?, ?, ?, ?)")
        for entity in CoreDataEntityNumbers.ordered(model, names.numbers) {
            guard let number = names.numbers[entity.name] else { continue }
            let table = table(of: entity.name).name
            if tableMax[table] == nil {
                tableMax[table] = try db.scalarInt("SELECT coalesce(max(Z_PK), 0) FROM \(q(table))")
            }
            let existing = try db.scalarInt("SELECT coalesce(max(Z_MAX), 0) FROM Z_PRIMARYKEY WHERE Z_ENT = ?", [.integer(Int64(number))])
            let parent = entity.parent.flatMap { names.numbers[$0] } ?? 0
            try insert.run([.integer(Int64(number)), .text(entity.name), .integer(Int64(parent)),
                            .integer(entity.parent == nil ? max(tableMax[table]!, existing) : existing)])
        }
    }

    private func writeMetadata(_ db: Database) throws {
        // A model whose hashes cannot be computed (and no template) gets none: the planner
        // refuses that for the final store; an intermediate store needs none.
        let hashes: VersionHashes?
        do {
            hashes = try versionHashes()
        } catch let error as CoreDataStoreError {
            throw CoreDataStoreError(store: db.path, error.message)
        } catch {
            hashes = nil
        }
        var uuid = storeUUID
        if uuid == nil, case .text(let existing)? = try db.rows("SELECT Z_UUID FROM Z_METADATA WHERE Z_VERSION = 1").first?[0], !existing.isEmpty {
            uuid = existing
        }
        let storeUUID = uuid ?? UUID().uuidString
        let identifiers = versionIdentifiers
        var metadata = CoreDataMetadata(
            storeUUID: storeUUID, storeType: "SQLite",
            versionHashes: hashes?.entities ?? [:], versionIdentifiers: identifiers,
            versionHashesDigest: hashes?.digest,
            // The framework this layout claims to be (its indexes are that framework's: facts
            // §4), as Core Data's migration writes the migrating framework's version (§7).
            frameworkVersion: template?.frameworkVersion ?? CoreDataMetadata.defaultFrameworkVersion,
            hashesVersion: template?.hashesVersion ?? CoreDataMetadata.defaultHashesVersion,
            autoVacuumLevel: carried?.autoVacuumLevel ?? template?.autoVacuumLevel ?? "2")
        metadata.otherKeys = carried?.otherKeys
        let plist = try metadata.encodePlist()
        try db.run("INSERT OR REPLACE INTO Z_METADATA (Z_VERSION, Z_UUID, Z_PLIST) VALUES (1, ?, ?)",
                   [.text(storeUUID), .blob(Array(plist))])
    }

    /// The `NSStoreModelVersionIdentifiers` written: the model's, else the template's, else `[""]`
    /// (what Xcode's models without identifiers give).
    var versionIdentifiers: [String] {
        !model.versionIdentifiers.isEmpty ? model.versionIdentifiers
            : (template?.versionIdentifiers.isEmpty == false ? template!.versionIdentifiers : [""])
    }

    private func writeModelCache(_ db: Database) throws {
        try db.execute("DELETE FROM Z_MODELCACHE")
        let content: [UInt8]
        do {
            content = try ModelCacheWriter.content(of: model, versionIdentifiers: versionIdentifiers)
        } catch is ModelCacheWriter.Unwritable {
            return
        }
        try db.run("INSERT INTO Z_MODELCACHE (Z_CONTENT) VALUES (?)", [.blob(content)])
    }
}
