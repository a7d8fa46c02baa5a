import ETLPipeline
import ETLExpression

/// A step inside SQLite (`PushdownStage`): mappings with a policy SQLite cannot call
/// (`PolicyInSQLite`) are still created row by row, and only they (and forEach pairs that
/// are looked up) keep associations.
struct PushdownExecutor: StepExecutor {
    let stage: PushdownStage

    func execute() throws -> StepResult {
        let byKey: Set<MappingID>
        switch try stage.run() {
        case .startOver(let lesson): return .startOver(lesson)
        case .done(let kept): byKey = kept
        }
        let step = stage.context.plan
        let notes = stage.plan.rowByRow.sorted(by: { $0.key < $1.key }).map { index, why in
            let found = byKey.contains(index) ? ", finding its rows by key (each has its source row's key)" : ""
            return "step \(step.name): mapping \(step.mappings[index].name) was created row by row (\(why)); the rest of the step ran inside SQLite\(found)"
        }
        let called = stage.plan.policiesInSQLite.sorted(by: { $0.index < $1.index }).map { index in
            "step \(step.name): mapping \(step.mappings[index].name)'s policy \(step.mappings[index].policy ?? "") was called by SQLite, one row per source row, each keeping its source row's key"
        }
        // A forEach mapping's pairs are recorded too, when something reads them (`PushdownPlan.Create.associate`).
        let pairs = stage.plan.creates.filter { $0.kind == .forEach && $0.associate != nil }.map(\.mapping)
        return .built(StepOutcome(notes: called + notes, associationsKept: Set(stage.plan.rowByRow.keys).union(pairs)))
    }
}
