import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// Whether a run may keep its fused steps (`StepFusion`): the source holds no row that a
/// fused step's first step would have rejected or left failing its store's validation, and
/// no link its lookups skip. Where it holds one, the steps run one after the other.
///
/// The fused step never reads the first step's values that the second step does not use,
/// so a value the first step would reject (`Value.unreadable`: a blob in a string
/// attribute that is not text), a null uniqueBy key, or a null in an attribute the store
/// between requires would pass unseen, and the two ways would give different stores.
///
/// The checks read only the fused step's source, on a connection of their own beside the run
/// (`SideWork`, the second core), while the step makes its rows; the step waits for them
/// before it validates, and where they object the `Engine` starts the run over with the steps
/// apart. The source never changes during a run: a resumed run decides the same way.
struct FusionCheck {
    let sourcePath: String
    let functions: [String: ExpressionFunction]
    /// `EngineTuning.smallStoreBytes`: a source below it is checked at once, on one connection.
    let smallStoreBytes: Int64

    /// What the checks found: the summary's note on the fused pair, and whether its steps must run apart.
    struct Outcome: Sendable {
        var note: String
        var apart = false
    }

    /// Starts the checks of `step` (a fused step) beside the run, on its source (at once, for
    /// a small source). The run checked that source's tables before (`SourceSchemaCheck`), or
    /// wrote it (the store a step before made).
    /// - Parameter source: the run's own read-only connection to that source (`SourceStore`,
    ///   hardened, for the first step's): a small source is checked at once on it, without
    ///   a second connection's open and schema parse.
    func start(_ step: StepPlan, source: Database) throws -> SideWork<Outcome> {
        let check = self
        let body: @Sendable (Database) throws -> Outcome = { db in try check.outcome(of: step, on: db) }
        if try SmallStore.holds(source, below: smallStoreBytes) {
            try SQLTranslator.registerValueFunction(on: source)
            try SQLTranslator.register(functions, on: source)
            return SideWork(inlineOn: source, body)
        }
        let db = try Database(path: sourcePath, mode: .readOnly, hardened: true)
        // Scans in key order, beside the run: a small cache keeps the memory they take from
        // the run's small too.
        try db.execute("PRAGMA cache_size = -256")
        try SQLTranslator.registerValueFunction(on: db)
        try SQLTranslator.register(functions, on: db)
        return SideWork(on: db, body)
    }

    func outcome(of step: StepPlan, on db: Database) throws -> Outcome {
        let (first, second) = (step.fusedFrom[0], step.fusedFrom[1])
        let names = "steps \(first.name) and \(second.name)"
        if let objection = try objection(to: first, on: db) ?? danglingLink(step, on: db) {
            return Outcome(note: "\(names) ran one after the other: \(objection)", apart: true)
        }
        return Outcome(note: "\(names) ran as one step: the \(first.destinationModel.version) store between them was not written")
    }

    /// A link of the fused step's `fusedLinkChecks` to a row that is not there: the first
    /// step's lookup skipped it, the fused step would read it.
    func danglingLink(_ step: StepPlan, on db: Database) throws -> String? {
        let layout = step.sourceLayout
        let q = Database.quote
        for check in step.fusedLinkChecks {
            guard let relationship = layout.model.relationship(check.relationship, of: check.entity) else { continue }
            let target = layout.table(of: relationship.destination)
            let keys = try db.contiguousKeys(ofTable: target.name, key: target.keyColumn, condition: target.condition(alias: "t"))
            func exists(_ key: String) -> String {
                // Keys with no gap: a key has its row exactly when it is an integer in their
                // range, a test instead of a search of the table (1.8 s against 0.4 s for the
                // 1.5M Book ↔ User pairs of 1M books).
                if let keys { return "(typeof(\(key)) = 'integer' AND \(key) BETWEEN \(keys.lowerBound) AND \(keys.upperBound))" }
                return "EXISTS (SELECT 1 FROM \(q(target.name)) t WHERE t.\(q(target.keyColumn)) = \(key)"
                    + (target.condition(alias: "t").map { " AND \($0)" } ?? "") + ")"
            }
            let sql: String
            switch layout.storage(ofRelationship: check.relationship, entity: check.entity) {
            case .joinTable(let table, let own, let other):
                // The pairs as the fused step's forEach reads them: each source row's, found by
                // its key in the join table (an index of the table, damaged, may say otherwise).
                let owner = layout.table(of: check.entity)
                sql = "SELECT 1 FROM \(q(owner.name)) a CROSS JOIN \(q(table)) j ON j.\(q(own)) = a.\(q(owner.keyColumn))"
                    + (owner.condition(alias: "a").map { " AND \($0)" } ?? "")
                    + " WHERE NOT " + exists("j.\(q(other))") + " LIMIT 1"
            case .foreignKey(let table, let column):
                sql = "SELECT 1 FROM \(q(table)) s NOT INDEXED WHERE s.\(q(column)) IS NOT NULL AND NOT " + exists("s.\(q(column))") + " LIMIT 1"
            case .inverseForeignKey:
                continue  // the linked rows are the rows that name it: all there
            }
            if try !db.rows(sql).isEmpty {
                return "the source holds a link of \(check.entity).\(check.relationship) to a \(relationship.destination) row that is not there, which the first step's lookup skips"
            }
        }
        return nil
    }

    /// Why the fused step would not give the store `first` and the step after it give: the
    /// first source row found that `first` might reject or would leave invalid; nil when
    /// there is none. One scan per source table, whatever the number of mappings reading it,
    /// for rows of either kind (and two more to tell which, when it finds one):
    ///
    /// 1. a column the step reads holding a value of another storage class than its type's
    ///    usual one (`SQLTranslator.usual`): a value the extractor converts, or rejects;
    /// 2. with every value of its usual class, read as such: a passing row whose required
    ///    value or uniqueBy key is null.
    func objection(to first: StepPlan, on db: Database) throws -> String? {
        let q = Database.quote
        let layout = first.sourceLayout
        var tables: [String] = []
        var byTable: [String: [MappingPlan]] = [:]
        for m in first.mappings {
            let table = layout.table(of: m.sourceEntity).name
            if byTable[table] == nil { tables.append(table) }
            byTable[table, default: []].append(m)
        }
        for name in tables {
            let mappings = byTable[name]!
            let key = "s.\(q(layout.table(of: mappings[0].sourceEntity).keyColumn))"
            // 1.
            var unusual: [(test: String, what: String)] = []
            for m in mappings {
                for path in m.createPaths where path.root == .source && path.segments.count == 1 {
                    guard let attribute = layout.model.attribute(path.segments[0], of: m.sourceEntity) else { continue }
                    let column = "s.\(q(layout.column(ofAttribute: attribute.name, entity: m.sourceEntity)))"
                    // (Storage classes sort null < numbers < text < blob.)
                    let test: String
                    switch ExprType(attribute.type) {
                    case .string: test = "\(column) < '' OR \(column) >= x''"
                    case .integer, .double, .date, .boolean: test = "\(column) >= ''"
                    case .binary: test = "\(column) < x''"
                    default: return "mapping \(m.name) of step \(first.name) reads \(m.sourceEntity).\(attribute.name), of type \(attribute.type)"
                    }
                    if !unusual.contains(where: { $0.test == test }) { unusual.append((test, "\(m.sourceEntity).\(attribute.name)")) }
                }
            }
            // 2.
            var wanting: [(mapping: MappingPlan, condition: String)] = []
            for m in mappings {
                var translator = SQLTranslator(layout: layout, entity: m.sourceEntity, alias: "s")
                translator.usualValuesOnly = true
                func sql(_ expression: CompiledExpression) -> String? { expression.form.flatMap(translator.sql) }
                var missing: [String] = []
                for assignment in m.attributes where !assignment.attribute.isOptional {
                    switch assignment.source {
                    case .expression(let expression):
                        guard let value = sql(expression) else { return "'\(expression.text)' of mapping \(m.name) has no SQL form" }
                        missing.append("(\(value)) IS NULL")
                    case .constant(.null): missing.append("1")
                    case .constant: break
                    }
                }
                if let uniqueBy = m.uniqueBy {
                    guard let value = sql(uniqueBy) else { return "the uniqueBy of mapping \(m.name) has no SQL form" }
                    missing.append("(\(value)) IS NULL")
                }
                guard !missing.isEmpty else { continue }
                var conditions = [layout.table(of: m.sourceEntity).condition(alias: "s")].compactMap { $0 }
                if let filter = m.filter {
                    guard let passes = sql(filter) else { return "the filter of mapping \(m.name) has no SQL form" }
                    conditions.append("(\(passes))")
                }
                wanting.append((m, (conditions + ["(" + missing.joined(separator: " OR ") + ")"]).joined(separator: " AND ")))
            }
            func firstRow(_ conditions: [String]) throws -> SQLValue? {
                guard !conditions.isEmpty else { return nil }
                return try db.rows("SELECT \(key) FROM \(q(name)) s WHERE " + conditions.map { "(\($0))" }.joined(separator: " OR ") + " LIMIT 1").first?[0]
            }
            func holds(_ row: SQLValue, _ condition: String) throws -> Bool {
                try !db.rows("SELECT 1 FROM \(q(name)) s WHERE \(key) = ? AND (\(condition))", [row]).isEmpty
            }
            // Most sources hold no such row: one scan says so.
            guard try firstRow(unusual.map(\.test) + wanting.map(\.condition)) != nil else { continue }
            if let row = try firstRow(unusual.map(\.test)) {
                let found = try unusual.first { try holds(row, $0.test) }
                return "step \(first.name) reads \(found?.what ?? name) of row \(row.sqlLiteral) as a value of another type, which it converts or rejects"
            }
            guard let row = try firstRow(wanting.map(\.condition)) else { continue }
            let which = try wanting.first { try holds(row, $0.condition) }?.mapping
            return "mapping \((which ?? mappings[0]).name) of step \(first.name) leaves a required value or its uniqueBy key null "
                + "in \((which ?? mappings[0]).sourceEntity) row \(row.sqlLiteral)"
        }
        return nil
    }
}
