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
              etl run pipelines/books.json --source archive/a.sqlite \\
                  --destination out/a-v3.sqlite --backup
              etl run pipelines/books.json --chunk-size 5000 --workers 4
              etl run pipelines/books.json --restart

            Exit codes: 0 done; 1 the migration failed (nothing replaced); 2 bad usage, a bad \
            pipeline, or a source store that does not exist (nothing read); 130 / 143 stopped by \
            SIGINT / SIGTERM (resumable).
            """)

    @Argument(help: "The pipeline file (JSON, format 1; see docs/pipeline.md).")
    var pipeline: String

    @Option(help: "Source store; overrides the pipeline's source.store.")
    var source: String?

    @Option(help: "Destination store; overrides the pipeline's destination.store.")
    var destination: String?

    @Flag(help: "If the destination exists, keep it as DESTINATION.bak and replace it.")
    var backup = false

    @Flag(help: "If the destination exists, replace it without keeping a copy.")
    var force = false

    @Flag(help: "Discard the checkpoint and files of an earlier, interrupted run, and start over.")
    var restart = false

    @Flag(help: "Write no checkpoints (the run cannot resume; for measuring what checkpoints cost).")
    var noCheckpoint = false

    @Flag(help: "Refuse a pipeline whose paths lead outside its own folder (for pipelines you did not write).")
    var confine = false

    @OptionGroup var flags: RunFlags

    @Option(help: "Progress on standard error: auto (a bar on a terminal, lines otherwise), bar, lines, json (one event per line), none.")
    var progress: ProgressStyle = .auto

    @Flag(help: "Print the summary with every step and mapping name whole (by default it fits 100 columns: steps as 1 → 2, named below it).")
    var wide = false

    func validate() throws {
        if backup && force { throw ValidationError("--backup and --force exclude each other: choose one") }
    }

    func run() throws {
        let trap = SignalTrap()
        var migration = Migration(pipeline: pipeline)
        migration.policies = ProgramPolicies.shared.registry
        migration.source = source
        migration.destination = destination
        flags.apply(to: &migration.options)
        migration.replace = backup ? .backup : force ? .force : .refuse
        migration.restart = restart
        migration.checkpoints = !noCheckpoint
        migration.cancellation = trap.cancellation
        migration.confine = confine
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
        print(SummaryTable.render(summary, wide: wide))
    }
}
