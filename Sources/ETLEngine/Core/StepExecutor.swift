import ETLStore
import ETLPipeline
import ETLExpression

/// How a step's create and relate stages run: row by row on the worker queues
/// (`RowByRowExecutor`) or inside SQLite (`PushdownExecutor`). The engine asks
/// `stepExecutor(for:decider:)` for one, runs it, and then validates what it built in the
/// same way whichever ran (`ValidateStage`).
protocol StepExecutor {
    /// Creates and relates every mapping of the step, from the context's resume position,
    /// or learns that the step must start over another way.
    func execute() throws -> StepResult
}

/// How a step's execution ended.
enum StepResult {
    /// Every mapping created and related.
    case built(StepOutcome)
    /// The step must start over another way (inside SQLite it met what only row by row
    /// does): nothing it made is kept.
    case startOver(StepLesson)
}

/// What an executor tells the rest of the run.
struct StepOutcome {
    /// Lines for the summary: how the step ran, and why.
    var notes: [String]
    /// Mappings whose rows were recorded in the work database's associations (those made row by row);
    /// validation counts their associations.
    var associationsKept: Set<MappingID>
}
