import ArgumentParser
import Foundation
import ETL
import ETLModel
import ETLExpression

/// The `etl` command line.
///
/// A program that links the library becomes the whole `etl`, with its policies:
///
///     import ETL
///     import ETLCommandLine
///     ETLCommand.main(policies: ["addSection": Policy(creates: ["Section"]) { row, output in … }])
public struct ETLCommand: ParsableCommand {
    public init() {}

    public static let configuration = CommandConfiguration(
        commandName: "etl",
        abstract: "Upgrade SQLite stores offline: extract, transform, load, relate, validate, replace.",
        discussion: """
            A pipeline file names the source store and its model version, the destination and \
            its model version, and the steps between them. `etl run` reads the source in \
            chunks, transforms rows on worker queues, builds the destination in a temporary \
            file beside it, validates it, and only then moves it into place. The source is \
            never modified.

            Try it:
              etl sample books --version 1 --rows 10000 --out data/books-v1.sqlite
              etl run pipelines/books.json

            Exit codes:
              0         done
              1         the migration failed (bad store, validation, a row that failed);
                        nothing was replaced
              2         bad usage, an unknown command, a bad pipeline or model file, or a
                        source store that does not exist; nothing was read
              3         etl batch: some stores failed (each with its reason); the others
                        are done
              130, 143  stopped by SIGINT or SIGTERM after saving a checkpoint: run the
                        same command to resume
            """,
        subcommands: [RunCommand.self, PlanCommand.self, BatchCommand.self, StatusCommand.self, InspectCommand.self, ModelCommand.self,
                      MappingCommand.self, RejectsCommand.self, SampleCommand.self])

    /// Runs the command line with these policies and expression functions available to
    /// every pipeline that names them.
    public static func main(policies: [String: Policy], functions: [String: ExpressionFunction] = [:]) -> Never {
        ProgramPolicies.shared.set(PolicyRegistry(policies, functions: functions))
        main()
        Foundation.exit(0)
    }

    public static func main() {
        // Before any connection opens (a batch of small stores spent a sixth of its CPU
        // time on the lock SQLite's memory statistics take; see there).
        Database.turnOffMemoryStatistics()
        // `etl --version`, answered before parsing. Not ArgumentParser's `version:`: with
        // it, any argument error of a subcommand prints the version and exits 0 whenever
        // "--version" is among the arguments, so `etl sample books --version 1 --output x`
        // (sample's own option, and a typo) exited 0 without writing a store. Nor a flag of
        // the root command: its flags are parsed after a subcommand too, taking sample's.
        if Array(CommandLine.arguments.dropFirst()) == ["--version"] {
            print(ETLVersion.current)
            return
        }
        // An unknown command is an error, even with --help after it: ArgumentParser would
        // print the top-level help and exit 0, as if `etl validate --help` had worked.
        if let message = unknownCommand(Array(CommandLine.arguments.dropFirst())) {
            printError(message)
            Foundation.exit(ExitStatus.badInput)
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            exit(with: error)
        }
    }

    /// The error for arguments whose first word names no command, or nil.
    static func unknownCommand(_ arguments: [String]) -> String? {
        guard let first = arguments.first, !first.hasPrefix("-") else { return nil }
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard !names.contains(first) else { return nil }
        let hint = closestName(to: first, among: names).map { " (did you mean '\($0)'?)" } ?? ""
        return "error: unknown command '\(first)'\(hint); the commands are \(names.dropLast().joined(separator: ", ")). See 'etl --help'."
    }

    /// What `etl` says of an error that ended a command, and its documented exit code.
    struct Ending: Equatable {
        var message: String
        var code: Int32
        /// `--help` and `--version`: the answer, on standard output.
        var isAnswer: Bool { code == ExitStatus.done }
    }

    static func ending(for error: Error) -> Ending {
        switch error {
        case is DocumentError:
            return Ending(message: "error: \(error)", code: ExitStatus.badInput)
        // Errors of a store or of the run: each already names the file and the place.
        // A source that does not exist: nothing was read, like a bad pipeline.
        case MigrationError.badSource(_, SourceStore.noSuchFile):
            return Ending(message: "error: \(error)", code: ExitStatus.badInput)
        case is MigrationError, is VersionDetectionError, is CoreDataStoreError:
            return Ending(message: "error: \(error)", code: ExitStatus.failed)
        case let error as CLIFailure:
            return Ending(message: "error: \(error.message)", code: error.code)
        default:
            let argumentCode = exitCode(for: error)
            let code = argumentCode == .success ? ExitStatus.done : argumentCode == .validationFailure ? ExitStatus.badInput : ExitStatus.failed
            return Ending(message: fullMessage(for: error), code: code)
        }
    }

    /// Prints an error and exits with the documented code.
    static func exit(with error: Error) -> Never {
        let ending = ending(for: error)
        if ending.isAnswer { print(ending.message) } else { printError(ending.message) }
        Foundation.exit(ending.code)
    }
}

/// The documented exit codes.
enum ExitStatus {
    static let done: Int32 = 0
    static let failed: Int32 = 1
    static let badInput: Int32 = 2
}

/// A failure the command line itself reports.
struct CLIFailure: Error {
    var message: String
    var code: Int32 = ExitStatus.failed
}

func printError(_ text: String) {
    FileHandle.standardError.write(Data((text + "\n").utf8))
}

/// The policies of the running program, for the subcommands ArgumentParser creates.
final class ProgramPolicies: @unchecked Sendable {
    static let shared = ProgramPolicies()
    private let lock = NSLock()
    private var value = PolicyRegistry()

    func set(_ registry: PolicyRegistry) {
        lock.lock()
        value = registry
        lock.unlock()
    }

    var registry: PolicyRegistry {
        lock.lock()
        defer { lock.unlock() }
        return value
    }
}
