import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline

/// How a step will run — inside SQLite or row by row, mapping by mapping — decided before
/// any row is read by the run's own decider (`StrategyDecider`, with the push-down planner
/// `PushdownPlan.make`), so `etl plan` shows what `etl run` will do, not a second opinion.
///
///     let execution = try StepExecution.of(plan.steps[0], policies: registry)
///     execution.insideSQLite   // false
///     execution.reason         // "mapping Books has a policy with a relate hook"
///
/// One decision is left to the run: a `uniqueBy` mapping whose passing rows include one
/// with a null key sends its step row by row (the data says so, not the pipeline).
public struct StepExecution: Sendable, Equatable {
    /// One mapping's way of running.
    public struct Mapping: Sendable, Equatable {
        public var name: String
        public var insideSQLite: Bool
        /// Why, in words: which statement makes the rows and how their keys are chosen, or
        /// what sends the mapping row by row.
        public var why: String
    }

    /// The step's rows are made by `INSERT … SELECT` statements (all of them, or all but
    /// those of policy mappings).
    public var insideSQLite: Bool
    /// Why the whole step runs row by row, when it does.
    public var reason: String?
    public var mappings: [Mapping]

    /// - Parameter pushdown: false for `etl run --no-pushdown`: every step row by row.
    public static func of(_ step: StepPlan, policies: PolicyRegistry, pushdown: Bool = true) throws -> StepExecution {
        let strategy = try StrategyDecider(pushdown: pushdown).strategy { policiesRowByRow in
            // The destination's primary keys, read as the run reads them: from its tables.
            let tables = try Database(path: ":memory:", mode: .create)
            for sql in step.destinationLayout.tableSQL { try tables.execute(sql) }
            return try PushdownPlan.make(step, policy: { $0.policy.flatMap { policies[$0] } }, policiesRowByRow: policiesRowByRow) { table in
                try tables.rows("SELECT name FROM main.pragma_table_info(?) WHERE pk > 0 ORDER BY pk", [.text(table)]).map { row in
                    if case .text(let name) = row[0] { return name }
                    return ""
                }
            }
        }
        let plan: PushdownPlan
        switch strategy {
        case .insideSQLite(let made):
            plan = made
        case .rowByRow(let reason):
            let reason = reason ?? .pushdownOff
            let mappings = step.mappings.map { mapping in
                // A reason of the mapping's own is its; any other is the step's.
                if case .untranslatable(mapping.name?, let detail) = reason {
                    return Mapping(name: mapping.name, insideSQLite: false, why: "it " + detail)
                }
                return Mapping(name: mapping.name, insideSQLite: false, why: "with the rest of its step (\(reason))")
            }
            return StepExecution(insideSQLite: false, reason: reason.description, mappings: mappings)
        }
        let creates = Dictionary(uniqueKeysWithValues: plan.creates.map { ($0.mapping, $0) })
        let mappings = zip(step.mappingIDs, step.mappings).map { index, mapping -> Mapping in
            if let why = plan.rowByRow[index] {
                return Mapping(name: mapping.name, insideSQLite: false,
                               why: "\(why): created row by row, its closures on the workers; its links are set inside SQLite")
            }
            var why: String
            switch creates[index]?.kind {
            case .sourceKeys? where plan.policiesInSQLite.contains(index):
                why = "INSERT … SELECT in ranges of source keys, calling its policy per source row; each row keeps its source row's key"
                    + " (the step starts over with the policy row by row at a source row it rejects, drops or multiplies)"
            case .sourceKeys?:
                why = "INSERT … SELECT in ranges of source keys; each row keeps its source row's key"
            case .nextKeys?:
                why = "INSERT … SELECT in ranges of source keys; rows get the next free keys of a table other mappings write too"
            case .unique?:
                why = "INSERT … SELECT of one row per distinct uniqueBy key (row by row instead if a passing row's key is null)"
                if step.createRank(of: index) > index.index {
                    why += "; created after the mappings below it, while a second connection works out its keys (a source over 1 MiB)"
                }
            case .forEach?:
                why = "INSERT … SELECT of one row per (source row, item) pair in ranges of source keys; rows get the next free keys"
                let links = creates[index]!.links.map(\.relationship).sorted()
                if !links.isEmpty { why += "; " + links.joined(separator: " and ") + " written with the rows, found by key" }
            case .rowByRow?, nil:
                why = "created row by row"
            }
            return Mapping(name: mapping.name, insideSQLite: true, why: why)
        }
        return StepExecution(insideSQLite: true, reason: nil, mappings: mappings)
    }
}
