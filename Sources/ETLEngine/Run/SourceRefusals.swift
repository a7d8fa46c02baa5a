import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLPipeline

/// What a run refuses in its source before a step reads a row, whatever the destination
/// and the checkpoint: tables or columns the first step reads that the source lacks, Core
/// Data bookkeeping that does not hold, tables no entity owns that the pipeline says
/// nothing of (`UnmodeledTables`), and data a step would leave unread that the pipeline
/// does not drop (`RemovedData`); and, given the run's options, a store SQLite's quick
/// check finds damaged (which the run checks beside its work, and refuses before installing). `Engine` meets them one by one as it starts; `etl plan`
/// asks `check` for all of them, so that it refuses what `etl run` would refuse, with the
/// same message.
public enum SourceRefusals {
    /// Every refusal, in the order a run from the start meets them, over the steps the run
    /// runs first: the fused ones where the plan has them (`Engine.run`).
    /// - Parameter quickCheck: SQLite's quick check of the source as the run makes it
    ///   (`SourceCheck`, `RunOptions.checkSource`), whose damage the run reports instead of
    ///   what it met once the steps began; nil: none (`--no-check`).
    public static func check(_ plan: Plan, source: Database, quickCheck options: RunOptions? = nil) throws {
        var plan = plan
        if let fused = plan.fusedSteps { plan.steps = fused }
        guard let first = plan.steps.first else { return }
        let quickCheck = try options.map {
            try SourceCheck(path: plan.sourcePath, source: source, busyTimeout: $0.lockTimeoutMilliseconds,
                            smallStoreBytes: $0.tuning.smallStoreBytes)
        }
        defer { quickCheck?.cancel() }
        try schema(plan, source)
        _ = try UnmodeledTables(plan: plan, source: source)
        try laterSteps(plan, source)
        try quickCheck?.wait()
        _ = try unread(first, pipeline: plan.spec.file, source: source, path: plan.sourcePath)
    }

    /// Checks that the source has the tables and columns the first step reads, so a store
    /// of another version fails before any work, naming what is missing.
    static func schema(_ plan: Plan, _ db: Database) throws {
        guard let step = plan.steps.first else { return }
        let entities = step.mappings.flatMap { [$0.sourceEntity] + ($0.itemEntity.map { [$0] } ?? []) }
        try SourceSchemaCheck.checkTables(db, path: plan.sourcePath, layout: step.sourceLayout, entities: entities)
        if let layout = step.sourceLayout as? CoreDataLayout {
            try SourceBookkeeping.check(db, path: plan.sourcePath, layout: layout)
        }
    }

    /// What a later step would leave unread that the source already holds, under the same
    /// name: refused before the first step reads a row, not once the steps before it ran.
    static func laterSteps(_ plan: Plan, _ db: Database) throws {
        if let (step, items) = try RemovedData.laterUndeclared(plan.steps, source: db).first {
            throw MigrationError.dataLeftUnread(pipeline: plan.spec.file, step: step.name,
                                               source: "\(plan.sourcePath), under the same names (the steps before it carry them there)", unread: items)
        }
    }

    /// What `step` leaves unread of its source (`db`, at `path`), counted: refused where the
    /// pipeline does not say it is to go.
    static func unread(_ step: StepPlan, pipeline: String, source db: Database, path: String, memo: PlanMemo? = nil) throws -> RemovedData {
        let removed = try RemovedData(step: step, source: db, memo: memo)
        if !removed.undeclared.isEmpty {
            throw MigrationError.dataLeftUnread(pipeline: pipeline, step: step.name, source: path, unread: removed.undeclared)
        }
        return removed
    }
}
