import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// How many rows each destination entity of a resumed step must hold, counted in SQL in the
/// step's source, not taken from the run: a checkpoint anyone can write (a create position past
/// every key, a relate stage before the rows exist) changes what the run did, and with it
/// the run's counters, but not the source. (A step run from its start in one process counts
/// its own rows; counting the source too cost every run of the books benchmark 10 %.) A mapping counts when it makes one row per
/// source row passing its filter (`count(*)`), one per distinct uniqueBy key, or one per
/// (source row, item) pair of a forEach over a to-many, and its filter, key and forEach
/// translate to SQL (`SQLTranslator`); an entity counts when every mapping writing it
/// counts. Others are left to the run's counters. (Validation also leaves an entity to them
/// when one of its mappings rejected a row: the source holds that row, the store does not.)
///
/// The counts read only the source, which never changes during a run, so they are made
/// beside the step (`start`): on a connection and a thread of their own, from the step's
/// start, while the step makes its rows; validation waits for them. At a million rows they
/// cost seconds (a distinct key's sort, a forEach's join), the second core's time, not the run's.
struct SourceCounts {
    let step: StepPlan

    /// The rows each counted destination entity must hold, by entity name.
    typealias Rows = [String: Int]

    /// Starts counting `step`'s source (at `sourcePath`) beside the run; a `SmallStore`
    /// source is counted at once, on this thread (a second connection would cost more than
    /// the counts). A stop request (`stop` true) interrupts them as it does validation.
    static func start(_ step: StepPlan, sourcePath: String, functions: [String: ExpressionFunction],
                      busyTimeout: Int32, smallStoreBytes: Int64, stop: @escaping @Sendable () -> Bool) throws -> SideWork<Rows> {
        let db = try Database(path: sourcePath, mode: .readOnly, busyTimeout: busyTimeout, hardened: true)
        // Scans and sorts beside the run: a small cache keeps the memory they take from the run's small too.
        try db.execute("PRAGMA cache_size = -256")
        try SQLTranslator.registerValueFunction(on: db)
        try SQLTranslator.register(functions, on: db)
        let counts = SourceCounts(step: step)
        let body: @Sendable (Database) throws -> Rows = { db in
            // The connection closes with the `SideWork` that holds it (never under its `cancel()`).
            db.onProgress(every: 20_000, stop)
            return try counts.rows(on: db)
        }
        return try SmallStore.holds(db, below: smallStoreBytes) ? SideWork(inlineOn: db, body) : SideWork(on: db, body)
    }

    /// Counts every entity whose writers all count, on `db` (the step's source).
    func rows(on db: Database) throws -> Rows {
        var writers: [String: [TargetID]] = [:]
        for (index, target) in zip(step.targetIDs, step.targets) { writers[target.entity, default: []].append(index) }
        let scopes = step.uniqueKeyScopes
        var rows: Rows = [:]
        for entity in step.destinationModel.entities where !entity.isAbstract {
            guard let count = try expected(writers[entity.name] ?? [], scopes: { scopes[$0] }, on: db) else { continue }
            rows[entity.name] = count
        }
        return rows
    }

    /// What target `target` must make, as statements over the source: one counting its rows,
    /// or, for a uniqueBy mapping, one selecting its distinct non-null keys (mappings sharing
    /// keys make one row per key of them all) and one counting its rows whose key is null
    /// (each its own row). Nil when not counted here.
    enum Statements: Equatable {
        case rows(count: SQLSelect)
        case keys(distinct: SQLSelect, nullRows: SQLSelect)
    }

    func statements(_ target: TargetID) -> Statements? {
        let t = step.targets[target]
        let m = step.mappings[t.mapping]
        guard m.policy == nil, m.ownTarget == target else { return nil }
        let layout = step.sourceLayout
        let table = layout.table(of: m.sourceEntity)
        let rows = SQLTable(schema: "main", name: table.name, alias: "s")
        let translator = SQLTranslator(layout: layout, entity: m.sourceEntity, alias: "s", itemEntity: m.itemEntity, itemAlias: "i")
        var joins: [SQLJoin] = []
        var conditions = [table.condition(alias: "s")].compactMap { $0 }
        // A filter without an SQL form leaves the mapping to the run's counters.
        var filter: ExpressionForm?
        if let written = m.filter {
            guard let form = written.form else { return nil }
            filter = form
        }
        if let forEach = m.forEach {
            guard m.uniqueBy == nil, case .path(let path, _)? = forEach.form, path.root == .source, path.segments.count == 1,
                  let item = m.itemEntity, let r = step.sourceModel.relationship(path.segments[0], of: m.sourceEntity), r.isToMany else { return nil }
            let items = layout.table(of: item)
            // Items of one entity only: sub-entities' rows would need their own conditions.
            guard step.sourceModel.descendants(of: item).count == 1 else { return nil }
            // Every pair is a row, its item's row there or not (a missing one reads as nulls, as
            // row by row reads it): the item's table is joined only for a filter that reads it.
            let readsItem = filter?.contains {
                if case .path(let path, _) = $0 { return path.root == .item }
                return false
            } ?? false
            let itemRow = SQLTable(schema: "main", name: items.name, alias: "i")
            switch layout.storage(ofRelationship: r.name, entity: m.sourceEntity) {
            case .joinTable(let join, let own, let other):
                // CROSS: the source rows in key order, each one's pairs found by the join table's
                // index on them; SQLite's own choice scanned the pairs by their other side and
                // looked a source row up at random for each (1M books: 2.2 s against 0.27 s).
                let pairs = SQLTable(schema: "main", name: join, alias: "j")
                joins.append(.cross(pairs, on: ["j.\(Database.quote(own)) = \(rows.column(table.keyColumn))"]))
                if readsItem {
                    joins.append(.left(itemRow, on: ["i.\(Database.quote(items.keyColumn)) = j.\(Database.quote(other))"]
                        + [items.condition(alias: "i")].compactMap { $0 }))
                }
            case .inverseForeignKey(let other, let column):
                guard other == items.name else { return nil }
                joins.append(.inner(itemRow, on: ["\(itemRow.column(column)) = \(rows.column(table.keyColumn))"]
                    + [items.condition(alias: "i")].compactMap { $0 }))
            case .foreignKey:
                return nil
            }
        }
        if let filter {
            guard let sql = translator.sql(filter) else { return nil }
            conditions.append(sql)
        }
        let select = SQLSelect(["count(*)"], from: rows, joins: joins, where: conditions)
        if let key = m.uniqueBy {
            guard let form = key.form, let sql = translator.sql(form) else { return nil }
            var keys = select.selecting([sql]).filtered(["(\(sql)) IS NOT NULL"])
            keys.distinct = true
            return .keys(distinct: keys, nullRows: select.filtered(["(\(sql)) IS NULL"]))
        }
        return .rows(count: select)
    }

    /// The rows `targets` (every writer of one entity) must have made, or nil when one of
    /// them is not counted here (none for an entity no mapping writes).
    func expected(_ targets: [TargetID], scopes: (TargetID) -> TargetID, on db: Database) throws -> Int? {
        var statements: [(TargetID, Statements)] = []
        for target in targets {
            guard let made = self.statements(target) else { return nil }
            statements.append((target, made))
        }
        var total = 0
        var keys: [TargetID: [SQLSelect]] = [:]
        for (target, made) in statements {
            switch made {
            case .rows(let count):
                total += Int(try db.scalarInt(count.sql))
            case .keys(let distinct, let nullRows):
                total += Int(try db.scalarInt(nullRows.sql))
                keys[scopes(target), default: []].append(distinct)
            }
        }
        for selects in keys.values {
            total += Int(try db.scalarInt("SELECT count(*) FROM (" + selects.map(\.sql).joined(separator: " UNION ") + ")"))
        }
        return total
    }
}
