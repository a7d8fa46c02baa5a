import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Checks the store a step built before anything uses it. Every problem is listed with
/// the entity, attribute or relationship and up to five row keys.
///
/// The checks do not depend on how the step ran (`StepExecutor`): row counts, required
/// values, every link and SQLite's foreign-key and quick checks run on a store built
/// inside SQLite exactly as on one built row by row. Only the associations' own
/// bookkeeping is counted where associations were kept.
struct ValidateStage {
    let context: StepContext
    /// Mappings whose rows were recorded in the work database's associations (see `StepOutcome`).
    let associationsKept: Set<MappingID>
    /// The rows each entity must hold, counted in the source beside the step (`SourceCounts.start`),
    /// for a step resumed from a checkpoint; nil for one whose counters are all this process's own.
    let sourceCounts: SideWork<SourceCounts.Rows>?

    /// The expression type that reads a raw SQLite value as itself.
    static func type(of value: SQLValue) -> ExprType {
        switch value {
        case .null: return .null
        case .integer: return .integer
        case .real: return .double
        case .text: return .string
        case .blob: return .binary
        }
    }

    /// Runs the checks; a stop request (SIGINT, SIGTERM) interrupts the one running — they
    /// only read, and a resume starts validation again — so the run stops at once, and
    /// never goes on to install a store after it.
    ///
    /// The checks that read only the new store run on a second connection (`SideWork`),
    /// on the second core, while this one counts rows and checks links; then it takes link
    /// checks too. The store is committed and nothing writes it until validation is over.
    ///
    /// A `SmallStore` gets the same checks, every one of them, on this connection alone:
    /// `storeProblems` and the link checks first, then the counts. They find what the
    /// second connection would: nothing is written between them, the one read transaction they share sees the committed store,
    /// and the checks read `main`'s tables (the attached work database comes after `main`
    /// in SQLite's name lookup, and the quick and foreign-key checks say `main`).
    /// Whether the checks of the store `db` run on a second connection (its store is not a
    /// `SmallStore`).
    static func usesSecondConnection(_ db: Database, tuning: EngineTuning) throws -> Bool {
        !(try SmallStore.holds(db, below: tuning.smallStoreBytes))
    }

    func run() throws {
        let db = context.destination
        let cancellation = context.cancellation
        let stop: @Sendable () -> Bool = { cancellation?.isCancelled ?? false }
        let plan = context.plan
        db.onProgress(every: 20_000, stop)
        defer { db.onProgress(every: 0, nil) }
        do {
            // The checks only read, the store they read is committed: in one read transaction,
            // its files' locks taken once instead of once per check (`Database.ReadTransaction`).
            let reading = try db.beginReading()
            defer { reading.end() }
            let small = !(try Self.usesSecondConnection(db, tuning: context.tuning))
            // Of the plan alone: worked out once for the stores of a kept plan (`PlanMemo`).
            let checks = context.memo?.value(LinkCheck.MemoKey(step: plan.index, stepName: plan.name)) { LinkCheck.all(of: plan) }
                ?? LinkCheck.all(of: plan)
            let links = LinkCheckQueue(checks, rangeTests: !small)
            let sideChecks: @Sendable (Database) throws -> StoreProblems = { database in
                let found = try Self.storeProblems(plan: plan, links: links.checks, database: database)
                try links.drain(on: database)
                return found
            }
            let side: SideWork<StoreProblems>
            if !small {
                let sideDatabase = try Database(path: db.path, mode: .readOnly, busyTimeout: db.busyTimeout)
                try sideDatabase.execute(PageCache.pragmas("main"))
                side = SideWork(on: sideDatabase) { database in
                    database.onProgress(every: 20_000, stop)
                    return try sideChecks(database)
                }
            } else {
                side = SideWork(inlineOn: db, sideChecks)
            }
            defer { side.cancel() }
            try check(links: links, side: side)
        } catch let error as StoreError where error.code & 0xff == SQLiteCode.interrupt {
            throw MigrationError.interrupted(checkpoint: nil)
        }
        try context.checkCancelled()
    }

    /// What the checks of the second connection found, by kind, in the order they are reported.
    struct StoreProblems: Sendable {
        var required: [String] = []
        var unique: [String] = []
        var foreignKeys: [String] = []
        var integrity: [String] = []
    }

    private func check(links: LinkCheckQueue, side: SideWork<StoreProblems>) throws {
        context.event(.started, .validate, total: 3)
        var problems: [String] = []
        let plan = context.plan
        let db = context.destination
        let workDatabase = WorkDatabase(attachedTo: db)
        let layout = plan.destinationLayout
        let q = Database.quote

        // 1. Every source row that passed the filter has its association (times fan-out),
        //    and every destination row was made by a mapping.
        var madeBy: [String: [TargetID]] = [:]
        let scopes = plan.uniqueKeyScopes
        for (index, target) in zip(plan.targetIDs, plan.targets) {
            madeBy[target.entity, default: []].append(index)
            guard associationsKept.contains(target.mapping) else { continue }
            let counters = context.counters[index]
            let associated = try workDatabase.associationCount(madeBy: index)
            if associated != counters.associated {
                problems.append("mapping \(target.name): \(counters.associated) source rows passed, but \(associated) have a destination row")
            }
            // Targets sharing unique keys are counted together: one may be associated with a
            // row another wrote.
            guard scopes[index] == index else { continue }
            let scope = scopes.targets(sharing: index)
            let written = scope.reduce(0) { $0 + context.counters[$1].written }
            let distinct = try workDatabase.destinationCount(madeBy: scope)
            if distinct != written {
                problems.append("mapping \(scope.map { plan.targets[$0].name }.joined(separator: ", ")): wrote \(written) rows, but associations point at \(distinct)")
            }
        }
        // The rows an entity must hold, counted in the source where its mappings allow it
        // (the run's counters come from a checkpoint anyone can write), beside the step.
        let fromSource = try sourceCounts?.wait() ?? [:]
        let rejected = try workDatabase.rejectCounts()
        for entity in plan.destinationModel.entities where !entity.isAbstract {
            let table = layout.table(of: entity.name)
            let rows = Int(try db.scalarInt("SELECT count(*) FROM \(q(table.name)) t0" + (table.condition(alias: "t0").map { " WHERE \($0)" } ?? "")))
            let writers = madeBy[entity.name] ?? []
            let expected = writers.reduce(0) { $0 + context.counters[$1].written }
            if rows != expected {
                problems.append("entity \(entity.name): \(rows) rows in table \(table.name), but the mappings wrote \(expected)")
            }
            // A rejected row is in the source and not in the store.
            guard writers.allSatisfy({ rejected[plan.targets[$0].mapping.index] == nil }) else { continue }
            guard let counted = fromSource[entity.name] else { continue }
            if rows != counted {
                problems.append("entity \(entity.name): \(rows) rows in table \(table.name), but the source holds \(counted) for "
                    + writers.map { plan.targets[$0].name }.joined(separator: ", ") + " to make (counted in it, not in the run)")
            }
        }
        context.event(.advanced, .validate, done: 1, total: 3)

        // 2. Every link points at an existing row: the checks are shared with the second
        //    connection, which takes them once its own are done.
        try links.drain(on: db)
        context.event(.advanced, .validate, done: 2, total: 3)

        // 3. What the second connection found: required values, unique values, declared
        //    foreign keys, the file's structure.
        let found = try side.wait()
        problems += found.required + found.unique + links.problems + found.foreignKeys + found.integrity

        // 4. The policies' own checks.
        for mapping in plan.mappings {
            guard let validate = context.policy(of: mapping)?.validate else { continue }
            let check = PolicyValidationContext(step: plan.name) { sql in
                try db.rows(sql).map { $0.map { Value(sql: $0, as: Self.type(of: $0)) } }
            }
            do {
                problems += try validate(check).map { "policy \(mapping.policy!) of mapping \(mapping.name): \($0)" }
            } catch {
                problems.append("policy \(mapping.policy!) of mapping \(mapping.name) failed to validate: \(error)")
            }
        }
        context.event(.finished, .validate, done: 3, total: 3)
        if !problems.isEmpty {
            throw MigrationError.validationFailed(step: plan.name, problems: problems)
        }
    }

    /// The checks that read only the destination store, on `database` (the second connection).
    static func storeProblems(plan: StepPlan, links: [LinkCheck], database db: Database) throws -> StoreProblems {
        var found = StoreProblems()
        let layout = plan.destinationLayout
        let q = Database.quote
        // Required attributes and required to-one relationships have values: the nulls of
        // all of a table's required columns counted in one scan of it, then the first keys
        // of each column that has some.
        for entity in plan.destinationModel.entities where !entity.isAbstract {
            let table = layout.table(of: entity.name)
            let condition = table.condition(alias: "t0")
            var required: [(column: String, what: String)] = []
            for attribute in plan.destinationModel.attributes(of: entity.name) where !attribute.isOptional {
                required.append((layout.column(ofAttribute: attribute.name, entity: entity.name), attribute.name))
            }
            for r in plan.destinationModel.relationships(of: entity.name) where !r.isOptional && !r.isToMany {
                if case .foreignKey(_, let column) = layout.storage(ofRelationship: r.name, entity: entity.name) {
                    required.append((column, r.name))
                }
            }
            guard !required.isEmpty else { continue }
            let nulls = required.map { "count(*) FILTER (WHERE t0.\(q($0.column)) IS NULL)" }.joined(separator: ", ")
            let counts = try db.rows("SELECT \(nulls) FROM \(q(table.name)) t0" + (condition.map { " WHERE \($0)" } ?? ""))
            for (index, (column, what)) in required.enumerated() {
                guard case .integer(let count)? = counts.first?[index], count > 0 else { continue }
                let keys = try db.rows("SELECT t0.\(q(table.keyColumn)) FROM \(q(table.name)) t0 WHERE t0.\(q(column)) IS NULL"
                                       + (condition.map { " AND \($0)" } ?? "") + " ORDER BY 1 LIMIT 5")
                found.required.append("\(entity.name).\(what) is required but missing in \(count) rows (keys \(keys.map { $0[0].sqlLiteral }.joined(separator: ", "))\(count > 5 ? ", …" : "")): map it, give it a default in the model, or filter those rows")
            }
        }
        // Values the model makes unique are (before the UNIQUE indexes are made).
        found.unique = try UniquenessCheck(plan: plan, database: db).problems()
        // The foreign keys the tables declare, where no link check proves them already: every
        // table's listed by one statement (a table that declares none has none to prove).
        var declaredBy: [(table: String, keys: [[SQLValue]])] = []
        for key in try db.rows("""
            SELECT m.name, f."table", f."from", f."to" FROM main.sqlite_master m, main.pragma_foreign_key_list(m.name) f
            WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite%' ORDER BY m.name, f.id, f.seq
            """) {
            guard case .text(let table) = key[0] else { continue }
            if declaredBy.last?.table != table { declaredBy.append((table, [])) }
            declaredBy[declaredBy.count - 1].keys.append(Array(key.dropFirst()))
        }
        for (table, declared) in declaredBy {
            let proven = declared.allSatisfy { key in
                guard case .text(let parent) = key[0], case .text(let from) = key[1] else { return false }
                let to: String? = if case .text(let to) = key[2] { to } else { nil }
                return links.contains { $0.covers(table: table, from: from, parent: parent, to: to) }
            }
            if proven { continue }
            for row in try db.rows("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check(?, 'main') LIMIT 5", [.text(table)]) {
                found.foreignKeys.append("a row of \(row[0].sqlLiteral) (rowid \(row[1].sqlLiteral)) points at a missing row of \(row[2].sqlLiteral)")
            }
        }
        // quick_check reads every page and checks its structure; integrity_check would also
        // compare each index with its table, which costs as much again and only finds a
        // fault in SQLite itself, which wrote both.
        found.integrity = try db.quickCheck(limit: 5).map { "integrity check: \($0)" }
        return found
    }
}
