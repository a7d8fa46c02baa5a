import ArgumentParser
import Foundation
import ETL

struct RunCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "run",
        abstract: "Run a pipeline: migrate the source store into the destination.",
        discussion: """
            Paths in the pipeline file are relative to the pipeline file's folder; paths given \
            here are relative to the current folder. The destination is built in \
            DESTINATION.etl-tmp beside it and moved into place only after validation passed. \
            An existing destination is never replaced silently: pass --backup or --force.

            Examples:
              etl run pipelines/books.json
              etl run pipelines/books.json --source archive/a.sqlite --destination out/a-v3.sqlite --backup
              etl run pipelines/books.json --chunk-size 5000 --workers 4

            Exit codes: 0 done; 1 the migration failed (nothing replaced); 2 bad usage or bad pipeline.
            """)

    @Argument(help: "The pipeline file (JSON, format 1; see docs/pipeline.md).")
    var pipeline: String

    @Option(help: "Source store; overrides the pipeline's source.store.")
    var source: String?

    @Option(help: "Destination store; overrides the pipeline's destination.store.")
    var destination: String?

    @Option(help: "Source rows per chunk (default: the pipeline's options.chunkSize, else 1000).")
    var chunkSize: Int?

    @Option(help: "Worker queues transforming chunks (default: the pipeline's options.workers, else the number of cores).")
    var workers: Int?

    @Flag(help: "If the destination exists, keep it as DESTINATION.bak and replace it.")
    var backup = false

    @Flag(help: "If the destination exists, replace it without keeping a copy.")
    var force = false

    @Flag(help: "No progress display; only the summary.")
    var quiet = false

    func validate() throws {
        if backup && force { throw ValidationError("--backup and --force exclude each other: choose one") }
        if let chunkSize, chunkSize < 1 { throw ValidationError("--chunk-size must be at least 1") }
        if let workers, !(1...256).contains(workers) { throw ValidationError("--workers must be between 1 and 256") }
    }

    func run() throws {
        var migration = Migration(pipeline: pipeline)
        migration.source = source
        migration.destination = destination
        migration.chunkSize = chunkSize
        migration.workers = workers
        migration.replace = backup ? .backup : force ? .force : .refuse
        let display = ProgressDisplay(interactive: isatty(STDERR_FILENO) == 1, quiet: quiet)
        let summary: RunSummary
        do {
            summary = try migration.run { display.show($0) }
        } catch {
            display.abandon()
            throw error
        }
        display.abandon()
        print(SummaryTable.render(summary))
    }
}
