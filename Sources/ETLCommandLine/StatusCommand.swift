import ArgumentParser
import Foundation
import ETL

struct StatusCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "status",
        abstract: "Show where an interrupted run of a pipeline is, and its files.",
        discussion: """
            Reads the checkpoint beside the destination (DESTINATION.etl-checkpoint): step, \
            stage, mapping, rows done / total, when it was written, and the work files a \
            resume will continue with. Without --destination, looks beside the pipeline's \
            destination; when there is no checkpoint there, it looks for one of this pipeline \
            in the current folder and the destination's folder (a run given --destination), \
            and otherwise prints "no run in progress", naming the checkpoint file it looked for.

            Example:
              etl status pipelines/books.json
              etl status pipelines/books.json --destination out/a-v3.sqlite
            """)

    @Argument(help: "The pipeline file.")
    var pipeline: String

    @Option(help: "Destination store; overrides the pipeline's destination.store, as for run.")
    var destination: String?

    func run() throws {
        var migration = Migration(pipeline: pipeline)
        migration.policies = ProgramPolicies.shared.registry
        migration.destination = destination
        var status = try migration.status()
        if status.checkpoint == nil, destination == nil {
            let folders = [FileManager.default.currentDirectoryPath, URL(fileURLWithPath: status.file.path).deletingLastPathComponent().path]
            let found = migration.destinationsWithCheckpoints(in: folders)
            if found.count == 1 {
                print("found a run of this pipeline with --destination \(found[0])")
                migration.destination = found[0]
                status = try migration.status()
            } else if found.count > 1 {
                print("runs of this pipeline are in progress at several destinations: name one with --destination")
                for path in found { print("  \(path)") }
                return
            }
        }
        guard let checkpoint = status.checkpoint else {
            print("no run in progress: there is no \(status.file.path)"
                  + (status.files.isEmpty ? "" : " (work files without a checkpoint will be removed by the next run)"))
            for file in status.files { print("  \(file.path)  \(file.bytes) bytes") }
            return
        }
        let position = checkpoint.position
        print("run in progress: \(checkpoint.summary)")
        if position.total > 0 { print("  \(position.done) of \(position.total) done in this stage") }
        let age = Int(Date().timeIntervalSince(checkpoint.written))
        print("  checkpoint written \(ISO8601DateFormatter().string(from: checkpoint.written)) (\(age) s ago), run started \(ISO8601DateFormatter().string(from: checkpoint.started))")
        print("  source \(checkpoint.identity.source.path)")
        print("  files:")
        for file in status.files { print("    \(file.path)  \(file.bytes) bytes") }
        print("run the same `etl run` command to resume, or add --restart to start over")
    }
}
