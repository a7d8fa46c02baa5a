import ETLStore
import ETLPipeline

/// How a step's create and relate stages run: row by row on the worker queues
/// (`RowByRowExecutor`) or inside SQLite (`PushdownExecutor`). The engine asks
/// `stepExecutor(for:pushdown:)` for one, runs it, and then validates what it built in the
/// same way whichever ran (`ValidateStage`).
protocol StepExecutor {
    /// Creates and relates every mapping of the step, from the context's resume position.
    func execute() throws -> StepOutcome
}

/// What an executor tells the rest of the run.
struct StepOutcome {
    /// Lines for the summary: how the step ran, and why.
    var notes: [String]
    /// Mappings whose rows were recorded in the work database's associations (those made row by row);
    /// validation counts their associations.
    var associationsKept: Set<MappingID>
}

/// The step inside SQLite when its mappings translate exactly and `pushdown` allows it;
/// otherwise row by row, with the reason in its notes. `rowByRow`: why an earlier attempt
/// of this step inside SQLite gave up (`PushdownStage.ValuesRejected`).
func stepExecutor(for context: StepContext, pushdown: Bool, rowByRow: String? = nil, policiesRowByRow: String? = nil) throws -> StepExecutor {
    guard pushdown else { return RowByRowExecutor(context: context, reason: nil) }
    if let rowByRow { return RowByRowExecutor(context: context, reason: rowByRow) }
    let (stage, reason) = try PushdownStage.prepare(context, policiesRowByRow: policiesRowByRow)
    if let stage { return PushdownExecutor(stage: stage) }
    return RowByRowExecutor(context: context, reason: reason)
}
