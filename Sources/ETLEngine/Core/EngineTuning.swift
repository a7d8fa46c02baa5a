import ETLStore

/// The engine's thresholds and test hooks, passed in with the run's options instead of
/// living in process-wide variables: two runs in one process (a batch's jobs, tests in
/// parallel) each see their own.
///
///     var options = RunOptions()
///     options.tuning.smallStoreBytes = 0          // every store gets its second connection
///     options.tuning.observe = { event in … }     // see which shortcuts a run took
public struct EngineTuning: Sendable {
    /// Stores (main file and WAL, as a reader sees them) below this size are small
    /// (`SmallStore`): their checks run on the run's own connection. 0 sends every store to
    /// a second connection; `.max` keeps every store on one.
    public var smallStoreBytes: Int64 = 1 << 20
    /// How many owner rows a range of links worked out ahead covers, by key span
    /// (`AheadWork`); tests make it small to get many ranges from a small store.
    public var aheadRowsPerRange: Int64 = 250_000
    /// Called on the run's connection before each range of pairs it takes over from the
    /// work ahead (with how many it took before); a test throws from it, or stops the run.
    public var beforeHelpedRange: (@Sendable (Int) throws -> Void)?
    /// Called on the second connection before each statement worked out ahead (and each
    /// range of pairs); a test throws from it to see the run's connection take it over.
    public var beforeAheadStatement: (@Sendable (String) throws -> Void)?
    /// Told of each shortcut the run takes (the store is the same either way), and of the
    /// checks only some runs need, for tests and measurements to see which were taken.
    public var observe: (@Sendable (EngineEvent) -> Void)?

    public init() {}
}

/// A shortcut the engine took, as `EngineTuning.observe` hears of it.
public enum EngineEvent: Sendable, Equatable {
    /// A uniqueBy mapping's keys worked out ahead were copied in.
    case keysCopiedAhead
    /// A relate statement's pairs worked out ahead were copied in.
    case linksCopiedAhead
    /// The run's connection worked out this many ranges of pairs the work ahead had not reached.
    case rangesHelped(Int)
    /// A join table was copied whole from the source (`VerbatimLinks`).
    case joinTableCopiedWhole(String)
    /// A step resumed from a checkpoint is compared with counts made in its source (`SourceCounts`).
    case sourceCounted(step: String)
    /// The planner made a plan (`Migration`): a batch's stores of one kind share one
    /// (`PlanCache`), so a batch hears this once per kind.
    case planned
}
