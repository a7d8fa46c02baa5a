import ETLPipeline
import ETLExpression

/// How a step runs, as decided before any row is read.
enum StepStrategy {
    /// Inside SQLite, by these statements (mappings the plan lists in `rowByRow` are still
    /// created row by row).
    case insideSQLite(PushdownPlan)
    /// Every mapping row by row; nil when push-down is off (nothing to explain).
    case rowByRow(RowByRowReason?)
}

/// The one place that decides how a step runs, for `etl run`, `etl batch` (both through the
/// `Engine`) and `etl plan` (`StepExecution`): from the options, what earlier tries of the
/// step learned, and the push-down planner (`PushdownPlan.make`). The data may still send a
/// step row by row when the run looks at it (`PushdownStage.prepare`: a null uniqueBy key, a
/// rejected value) — `etl plan` says so in words.
struct StrategyDecider {
    /// False for `--no-pushdown`.
    let pushdown: Bool
    /// What earlier tries of the step learned (none for `etl plan`).
    var lessons = StepLessons()

    /// - Parameter plan: makes the step's push-down plan, with the policies row by row for
    ///   the reason given; throws `NotPushable` when there is none.
    func strategy(plan: (RowByRowReason?) throws -> PushdownPlan) throws -> StepStrategy {
        guard pushdown else { return .rowByRow(nil) }
        if let reason = lessons.rowByRow { return .rowByRow(reason) }
        do {
            return .insideSQLite(try plan(lessons.policiesRowByRow))
        } catch let notPushable as PushdownPlan.NotPushable {
            return .rowByRow(.untranslatable(mapping: notPushable.mapping, detail: notPushable.detail))
        }
    }
}

/// The executor `decider` chooses for the step (`StrategyDecider`), after a look at the data
/// for a step inside SQLite (`PushdownStage.prepare`), which may still send it row by row.
func stepExecutor(for context: StepContext, decider: StrategyDecider) throws -> StepExecutor {
    let strategy = try decider.strategy { policiesRowByRow in
        try PushdownStage.makePlan(context, policiesRowByRow: policiesRowByRow)
    }
    switch strategy {
    case .rowByRow(let reason):
        return RowByRowExecutor(context: context, reason: reason)
    case .insideSQLite(let plan):
        let (stage, reason) = try PushdownStage.prepare(context, plan: plan, policiesRowByRow: decider.lessons.policiesRowByRow)
        if let stage { return PushdownExecutor(stage: stage) }
        return RowByRowExecutor(context: context, reason: reason)
    }
}
