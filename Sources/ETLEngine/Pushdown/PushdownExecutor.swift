import ETLPipeline
import ETLExpression

/// A step inside SQLite (`PushdownStage`): mappings with a policy SQLite cannot call
/// (`PolicyInSQLite`) are still created row by row, and only they (and forEach pairs that
/// are looked up) keep associations.
struct PushdownExecutor: StepExecutor {
    let stage: PushdownStage

    func execute() throws -> StepEnd {
        try stage.run()
    }
}
