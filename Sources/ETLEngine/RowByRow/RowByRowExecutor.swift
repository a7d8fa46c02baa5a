import ETLPipeline
import ETLExpression

/// A step row by row: every mapping's create stage (extract → transform → load), in
/// `StepPlan.createOrder`, then every mapping's relate stage, each chunked and checkpointed.
struct RowByRowExecutor: StepExecutor {
    let context: StepContext
    /// Why the step could not run inside SQLite; nil when push-down was turned off.
    let reason: RowByRowReason?

    func execute() throws -> StepEnd {
        for index in context.plan.createOrder {
            try CreateStage(context: context, index: index).run()
        }
        for index in context.plan.mappingIDs {
            try RelateStage(context: context, index: index).run()
        }
        let notes = reason.map { ["step \(context.plan.name) ran row by row, not inside SQLite: \($0)"] } ?? []
        return .built(StepOutcome(notes: notes, associationsKept: Set(context.plan.mappingIDs)))
    }
}
