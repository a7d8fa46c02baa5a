import ETLPipeline

/// How a step ended: one value from the executor that creates and relates its rows
/// (`StepExecutor`), through the engine that validates them, to the run of the steps.
/// Errors are thrown, never ended with: an end is a way the step goes on.
enum StepEnd {
    /// Every mapping created and related (by the executor), then validated (by the engine).
    case built(StepOutcome)
    /// Inside SQLite the step met what only row by row does: it starts over that way, and
    /// nothing it made is kept. The engine starts it over itself (at most twice: a lesson
    /// once learned is not learned again), so the run never sees this end.
    case startOver(StepLesson)
    /// A fused step's check objected (`FusionCheck`): the run starts over with its steps apart.
    case apart(note: String)
}

/// What a built step tells the rest of the run.
struct StepOutcome {
    /// Lines for the summary: how the step ran, and why.
    var notes: [String]
    /// Mappings whose rows were recorded in the work database's associations (those made row by row);
    /// validation counts their associations.
    var associationsKept: Set<MappingID>
    /// The rows that had been loaded after the checkpoint the step resumed from and were
    /// loaded again (set by the engine, which undid them).
    var redone = 0
    /// The step's input is still attached as `src` to the destination's connection (a
    /// pushed-down step): the engine's kept bookkeeping reads it there, then detaches it.
    var sourceAttached = false
}
