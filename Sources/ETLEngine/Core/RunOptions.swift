import ETLStore

/// Everything a run is told beyond its pipeline file: one type from the command line
/// (`etl run` and `etl batch` fill it from the same flags, `RunFlags`) through `Migration`
/// and `etl batch`'s per-store runs down to the `Engine`. Units are in the names.
///
///     var options = RunOptions()
///     options.chunkSize = 5000          // else the pipeline's options.chunkSize
///     options.lockTimeoutSeconds = 30
///     options.replace = .backup
public struct RunOptions: Sendable {
    /// Source rows per chunk, the unit of loading and checkpoints; nil: the pipeline's
    /// `options.chunkSize`.
    public var chunkSize: Int?
    /// Worker queues transforming chunks; nil: the pipeline's `options.workers`.
    public var workers: Int?
    /// Source rows that may be rejected (kept in the reject file) before the run fails;
    /// nil: the pipeline's `options.maxRejects`.
    public var maxRejects: Int?
    /// What to do with a destination that exists.
    public var replace: ReplacePolicy = .refuse
    /// Discard a checkpoint and the files of an earlier run, and start over.
    public var restart = false
    /// Write checkpoints (turned off only to measure what they cost).
    public var checkpoints = true
    /// Set it to stop after the chunk being loaded, with a checkpoint.
    public var cancellation: Cancellation?
    /// The policies and expression functions pipelines may name.
    public var policies = PolicyRegistry()
    /// Run SQLite's quick check over the source beside the run (`--no-check` turns it off).
    public var checkSource = true
    /// Run declarative steps inside SQLite when they translate exactly (`PushdownPlan`);
    /// off, every step runs row by row (`--no-pushdown`).
    public var pushdown = true
    /// Run adjacent steps as one where `StepFusion` can and the source allows it
    /// (`FusionCheck`), skipping the store between them; off, every step runs as written and
    /// writes its store (`--separate-steps`).
    public var fuseSteps = true
    /// The caller keeps its own durable record of the run and checks the result it finds
    /// after a crash (`etl batch --out`: the manifest's `started` entry, `BatchTriage`). A run
    /// that wrote no checkpoint then installs a destination that did not exist without a
    /// durable finalize checkpoint, and leaves the fsync of the destination's folder after
    /// the rename to the caller (`Batch` syncs each folder once, at its end): three fsyncs
    /// a store fewer. What a crash of the machine can then lose is a rename or a small
    /// store's work, never a complete result taken for another: the result is still fsynced
    /// before it is renamed, and a recorded outcome is trusted only while its result is there.
    public var installRecordedByCaller = false
    /// Runs just before the result is put in place (its external files, then the rename):
    /// `etl batch --out` waits there for its manifest's `started` entry to be durable, synced
    /// in the background while the store was migrated. A throw fails the run before the install.
    public var beforeInstall: (@Sendable () throws -> Void)?
    /// Where the run takes its lock and work database from and gives them back
    /// (`RunFileCarrier`: an `etl batch --out` job carries them from store to store); nil:
    /// files of its own.
    public var carriedFiles: RunFileCarrier?
    /// Refuse pipeline paths that lead outside the pipeline's folder (`--confine`).
    public var confine = false
    /// How long to wait for a source locked by another program's write.
    public var lockTimeoutSeconds: Double = 5
    /// Runs on each step's finished destination just before it is validated: for tests
    /// that damage a store to prove validation catches it, whichever executor built it.
    public var beforeValidation: (@Sendable (Database) throws -> Void)?
    /// The engine's thresholds and test hooks (`EngineTuning`); the defaults are the ones
    /// measured to pay (README *Speed*).
    public var tuning = EngineTuning()

    public init(chunkSize: Int? = nil, workers: Int? = nil, replace: ReplacePolicy = .refuse) {
        self.chunkSize = chunkSize
        self.workers = workers
        self.replace = replace
    }

    /// Why a number of these options is outside `OptionLimits` (named as the library names
    /// it, `chunkSize`, or as the command line does, `--chunk-size`); nil when all are in range.
    public func numberProblem(asFlags: Bool = false) -> String? {
        func name(_ property: String, _ flag: String) -> String { asFlags ? flag : property }
        return [chunkSize.flatMap { OptionLimits.problem(name("chunkSize", "--chunk-size"), $0, in: OptionLimits.chunkSize) },
                workers.flatMap { OptionLimits.problem(name("workers", "--workers"), $0, in: OptionLimits.workers) },
                maxRejects.flatMap { OptionLimits.problem(name("maxRejects", "--max-rejects"), $0, in: 0...Int.max) },
                OptionLimits.problem(name("lockTimeoutSeconds", "--lock-timeout"), lockTimeoutSeconds, in: OptionLimits.lockTimeout, unit: "seconds")]
            .compactMap { $0 }.first
    }

    /// SQLite's busy timeout. The seconds are clamped to what an Int32 of milliseconds
    /// holds, so no value can trap here (the command line refuses such values first).
    public var lockTimeoutMilliseconds: Int32 {
        guard lockTimeoutSeconds.isFinite, lockTimeoutSeconds > 0 else { return 0 }
        return Int32(min(lockTimeoutSeconds * 1000, Double(Int32.max)).rounded())
    }
}
