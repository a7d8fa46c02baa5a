import ArgumentParser
import ETL

/// The flags of a run that `etl run` and `etl batch` (for each store's run) share, read
/// into the one options type, `RunOptions`.
struct RunFlags: ParsableArguments {
    @Option(help: "Source rows per chunk, the unit of loading and checkpoints (default: the pipeline's options.chunkSize, else 1000).")
    var chunkSize: Int?

    @Option(help: "Worker queues transforming chunks (default: the pipeline's options.workers, else the number of cores; etl batch: 1 per store).")
    var workers: Int?

    @Option(help: ArgumentHelp("How long to wait for a source store locked by another program's write.", valueName: "seconds"))
    var lockTimeout: Double = 5

    @Flag(help: "Skip SQLite's quick check of the source store (one full read of it) beside the run.")
    var noCheck = false

    @Flag(help: ArgumentHelp("Run every step row by row, even one that could run inside SQLite.", discussion: """
        A step whose mappings are all declarative and translate exactly into SQL runs as \
        INSERT … SELECT statements over the attached source (many times faster); the \
        result is the same store. Use this to compare, or to see row-level rejects.
        """))
    var noPushdown = false

    @Flag(help: ArgumentHelp("Run every step on its own, writing the store between each two.", discussion: """
        Two adjacent steps whose second step reads the first step's rows only as the first \
        step wrote them (no policy, no value converted on the way) run as one step from \
        the first step's source: the store between them is never written, validated or \
        read. The result is the same store; the summary says which steps ran as one, and \
        etl plan why others did not. Use this to compare, or to see each step's counts.
        """))
    var separateSteps = false

    /// Numbers outside `OptionLimits` exit 2 before any work, named as flags.
    func validate() throws {
        var options = RunOptions()
        apply(to: &options)
        if let problem = options.numberProblem(asFlags: true) { throw ValidationError(problem) }
    }

    /// The options these flags say, on top of `options`.
    func apply(to options: inout RunOptions) {
        if let chunkSize { options.chunkSize = chunkSize }
        if let workers { options.workers = workers }
        options.lockTimeoutSeconds = lockTimeout
        options.checkSource = !noCheck
        options.pushdown = !noPushdown
        options.fuseSteps = !separateSteps
    }
}
