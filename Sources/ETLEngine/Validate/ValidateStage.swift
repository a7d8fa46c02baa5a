import ETLStore
import ETLModel
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
    func run() throws {
        let db = context.destination
        let cancellation = context.cancellation
        db.onProgress(every: 20_000) { cancellation?.isCancelled ?? false }
        defer { db.onProgress(every: 0, nil) }
        do {
            try check()
        } catch let error as StoreError where error.code & 0xff == SQLiteCode.interrupt {
            throw MigrationError.interrupted(checkpoint: nil)
        }
        try context.checkCancelled()
    }

    private func check() throws {
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
        for entity in plan.destinationModel.entities where !entity.isAbstract {
            let table = layout.table(of: entity.name)
            let rows = Int(try db.scalarInt("SELECT count(*) FROM \(q(table.name)) t0" + (table.condition(alias: "t0").map { " WHERE \($0)" } ?? "")))
            let expected = (madeBy[entity.name] ?? []).reduce(0) { $0 + context.counters[$1].written }
            if rows != expected {
                problems.append("entity \(entity.name): \(rows) rows in table \(table.name), but the mappings wrote \(expected)")
            }
        }
        context.event(.advanced, .validate, done: 1, total: 3)

        // 2. Required attributes and required to-one relationships have values.
        for entity in plan.destinationModel.entities where !entity.isAbstract {
            let table = layout.table(of: entity.name)
            let condition = table.condition(alias: "t0").map { " AND \($0)" } ?? ""
            func missing(_ column: String, what: String) throws {
                let keys = try db.rows("SELECT t0.\(q(table.keyColumn)) FROM \(q(table.name)) t0 WHERE t0.\(q(column)) IS NULL\(condition) ORDER BY 1 LIMIT 5")
                guard !keys.isEmpty else { return }
                let count = try db.scalarInt("SELECT count(*) FROM \(q(table.name)) t0 WHERE t0.\(q(column)) IS NULL\(condition)")
                problems.append("\(entity.name).\(what) is required but missing in \(count) rows (keys \(keys.map { $0[0].sqlLiteral }.joined(separator: ", "))\(count > 5 ? ", …" : "")): map it, give it a default in the model, or filter those rows")
            }
            for attribute in plan.destinationModel.attributes(of: entity.name) where !attribute.isOptional {
                try missing(layout.column(ofAttribute: attribute.name, entity: entity.name), what: attribute.name)
            }
            for r in plan.destinationModel.relationships(of: entity.name) where !r.isOptional && !r.isToMany {
                if case .foreignKey(_, let column) = layout.storage(ofRelationship: r.name, entity: entity.name) {
                    try missing(column, what: r.name)
                }
            }
        }
        // Values the model makes unique are (before the UNIQUE indexes are made).
        problems += try UniquenessCheck(plan: plan, database: db).problems()
        context.event(.advanced, .validate, done: 2, total: 3)

        // 3. Every link points at an existing row, whatever the layout declares (Core Data
        //    declares no foreign keys), and SQLite finds the file sound.
        var checked = Set<String>()
        for entity in plan.destinationModel.entities {
            for r in plan.destinationModel.relationships(of: entity.name) {
                let target = layout.table(of: r.destination)
                let own = layout.table(of: entity.name)
                var queries: [String] = []
                switch layout.storage(ofRelationship: r.name, entity: entity.name) {
                case .foreignKey(let table, let column):
                    queries.append("SELECT t.\(q(column)) FROM \(q(table)) t WHERE t.\(q(column)) IS NOT NULL AND NOT EXISTS (SELECT 1 FROM \(q(target.name)) x WHERE x.\(q(target.keyColumn)) = t.\(q(column))) LIMIT 5")
                case .joinTable(let table, let ownColumn, let otherColumn):
                    queries.append("SELECT t.\(q(ownColumn)) FROM \(q(table)) t WHERE NOT EXISTS (SELECT 1 FROM \(q(own.name)) x WHERE x.\(q(own.keyColumn)) = t.\(q(ownColumn))) LIMIT 5")
                    queries.append("SELECT t.\(q(otherColumn)) FROM \(q(table)) t WHERE NOT EXISTS (SELECT 1 FROM \(q(target.name)) x WHERE x.\(q(target.keyColumn)) = t.\(q(otherColumn))) LIMIT 5")
                case .inverseForeignKey:
                    continue  // checked from the side that holds the column
                }
                for sql in queries where checked.insert(sql).inserted {
                    let keys = try db.rows(sql)
                    if !keys.isEmpty {
                        problems.append("\(entity.name).\(r.name) links to rows that do not exist (keys \(keys.map { $0[0].sqlLiteral }.joined(separator: ", ")))")
                    }
                }
            }
        }
        let dangling = try db.rows("SELECT \"table\", rowid, parent FROM pragma_foreign_key_check LIMIT 5")
        for row in dangling {
            problems.append("a row of \(row[0].sqlLiteral) (rowid \(row[1].sqlLiteral)) points at a missing row of \(row[2].sqlLiteral)")
        }
        // quick_check reads every page and checks its structure; integrity_check would also
        // compare each index with its table, which costs as much again and only finds a
        // fault in SQLite itself, which wrote both.
        let integrity = try db.rows("PRAGMA main.quick_check(5)")
        let messages = integrity.compactMap { row -> String? in
            if case .text(let t) = row[0], t != "ok" { return t }
            return nil
        }
        problems += messages.map { "integrity check: \($0)" }

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
}
