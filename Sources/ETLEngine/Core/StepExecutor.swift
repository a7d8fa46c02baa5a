import ETLStore
import ETLPipeline
import ETLExpression

/// How a step's create and relate stages run: row by row on the worker queues
/// (`RowByRowExecutor`) or inside SQLite (`PushdownExecutor`). The engine asks
/// `stepExecutor(for:decider:)` for one, runs it, and then validates what it built in the
/// same way whichever ran (`ValidateStage`).
protocol StepExecutor {
    /// Creates and relates every mapping of the step, from the context's resume position
    /// (`.built`), or learns that the step must start over another way (`.startOver`).
    func execute() throws -> StepEnd
}
