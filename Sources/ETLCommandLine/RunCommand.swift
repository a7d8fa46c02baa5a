import ArgumentParser
import Foundation
import ETL

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline: migrate the source store into the destination, resuming an interrupted run.",
        discussion: """
            Paths in the pipeline file are relative to the pipeline file's folder; paths given \
            here are relative to the current folder. The destination is built in \
            DESTINATION.etl-tmp beside it and moved into place only after validation passed. \
            An existing destination is never replaced silently: pass --backup or --force.

            After every loaded chunk a checkpoint is saved in DESTINATION.etl-checkpoint. If the \
            run is stopped (Ctrl-C, kill, reboot, full disk), run the same command again: it \
            resumes where it stopped and ends with the same store as an uninterrupted run. \
            `etl status PIPELINE` shows where a stopped run is; --restart starts over.

            Examples:
              etl run pipelines/books.json
              etl run pipelines/books.json --source archive/a.sqlite --destination out/a-v3.sqlite --backup
              etl run pipelines/books.json --chunk-size 5000 --workers 4
              etl run pipelines/books.json --restart

            Exit codes: 0 done; 1 the migration failed (nothing replaced); 2 bad usage or bad \
            pipeline; 130 / 143 stopped by SIGINT / SIGTERM (resumable).
            """)

    @Argument(help: "The pipeline file (JSON, format 1; see docs/pipeline.md).")
    var pipeline: String

    @Option(help: "Source store; overrides the pipeline's source.store.")
    var source: String?

    @Option(help: "Destination store; overrides the pipeline's destination.store.")
    var destination: String?

    @Option(help: "Source rows per chunk, the unit of loading and checkpoints (default: the pipeline's options.chunkSize, else 1000).")
    var chunkSize: Int?

    @Option(help: "Worker queues transforming chunks (default: the pipeline's options.workers, else the number of cores).")
    var workers: Int?

    @Flag(help: "If the destination exists, keep it as DESTINATION.bak and replace it.")
    var backup = false

    @Flag(help: "If the destination exists, replace it without keeping a copy.")
    var force = false

    @Flag(help: "Discard the checkpoint and files of an earlier, interrupted run, and start over.")
    var restart = false

    @Flag(help: "Write no checkpoints (the run cannot resume; for measuring what checkpoints cost).")
    var noCheckpoint = false

    @Option(help: ArgumentHelp("How long to wait for a source store locked by another program's write (default 5).", valueName: "seconds"))
    var lockTimeout: Double = 5

    @Flag(help: "Refuse a pipeline whose paths lead outside its own folder (for pipelines you did not write).")
    var confine = false

    @Flag(help: "Skip SQLite's quick check of the source store (one full read of it) before the run.")
    var noCheck = false

    @Flag(help: ArgumentHelp("Run every step row by row, even one that could run inside SQLite.", discussion: """
        A step whose mappings are all declarative and translate exactly into SQL runs as \
        INSERT … SELECT statements over the attached source (many times faster); the \
        result is the same store. Use this to compare, or to see row-level rejects.
        """))
    var noPushdown = false

    @Option(help: "Progress on standard error: auto (a bar on a terminal, lines otherwise), bar, lines, json (one event per line), none.")
    var progress: ProgressStyle = .auto

    func validate() throws {
        if backup && force { throw ValidationError("--backup and --force exclude each other: choose one") }
        let problems = [chunkSize.flatMap { OptionLimits.problem("--chunk-size", $0, in: OptionLimits.chunkSize) },
                        workers.flatMap { OptionLimits.problem("--workers", $0, in: OptionLimits.workers) },
                        OptionLimits.problem("--lock-timeout", lockTimeout, in: OptionLimits.lockTimeout, unit: "seconds")]
        if let problem = problems.compactMap({ $0 }).first { throw ValidationError(problem) }
    }

    func run() throws {
        let trap = SignalTrap()
        var migration = Migration(pipeline: pipeline)
        migration.policies = ProgramPolicies.shared.registry
        migration.source = source
        migration.destination = destination
        migration.chunkSize = chunkSize
        migration.workers = workers
        migration.replace = backup ? .backup : force ? .force : .refuse
        migration.restart = restart
        migration.checkpoints = !noCheckpoint
        migration.cancellation = trap.cancellation
        migration.checkSource = !noCheck
        migration.pushdown = !noPushdown
        migration.confine = confine
        migration.lockTimeout = lockTimeout
        let display = ProgressDisplay(style: progress)
        let summary: RunSummary
        do {
            summary = try migration.run { display.show($0) }
        } catch MigrationError.interrupted(let checkpoint) {
            display.abandon()
            let where_ = checkpoint.map { " Progress is saved in \($0)." } ?? ""
            throw CLIFailure(message: "interrupted.\(where_) Run the same command again to resume.",
                             code: SignalTrap.exitStatus(for: trap.signal ?? SIGINT))
        } catch {
            display.abandon()
            throw error
        }
        display.abandon()
        if summary.upToDate {
            print("\(summary.source) is already at the target version: nothing to do, nothing written")
            return
        }
        print(SummaryTable.render(summary))
    }
}
