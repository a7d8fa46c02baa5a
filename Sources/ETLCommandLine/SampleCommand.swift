import ArgumentParser
import Foundation
import ETL

struct SampleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sample",
        abstract: "Write a deterministic sample store (the books app of the demo).",
        discussion: """
            The same --rows and --seed give the same store, byte for byte, on every machine.

            Examples:
              etl sample books --rows 50000 --seed 7 --out out/books-v1.sqlite
              etl sample books --layout coredata --rows 1000 --out out/v1-cd.sqlite
            """)

    @Argument(help: "The sample to write. Only 'books' exists.")
    var name: String

    @Option(help: "Model version of the store to write. Only 1 exists: later versions come from running pipelines/books.json.")
    var version: Int = 1

    @Option(help: "Number of books (users: rows/20, author names: rows/8).")
    var rows: Int = 1000

    @Option(help: "Seed of the generator.")
    var seed: UInt64 = 1

    @Option(help: "Path of the store to write.")
    var out: String

    @Option(help: "Store layout: plain, or coredata (Core Data's Z-tables, with Z_PRIMARYKEY and Z_METADATA).")
    var layout: String = "plain"

    @Flag(help: "Replace the file if it exists.")
    var force = false

    func validate() throws {
        guard name == "books" else { throw ValidationError("unknown sample '\(name)': the only sample is 'books'") }
        guard version == 1 else { throw ValidationError("--version \(version): only version 1 can be generated; run pipelines/books.json to get v2 or v3") }
        if let problem = OptionLimits.problem("--rows", rows, in: OptionLimits.sampleRows) { throw ValidationError(problem) }
        guard LayoutKind(rawValue: layout) != nil else {
            throw ValidationError("--layout \(layout): one of " + LayoutKind.allCases.map(\.rawValue).joined(separator: ", "))
        }
    }

    func run() throws {
        if FileManager.default.fileExists(atPath: out) && !force {
            throw CLIFailure(message: "\(out) already exists; pass --force to replace it")
        }
        let folder = URL(fileURLWithPath: out).deletingLastPathComponent().path
        guard FileManager.default.fileExists(atPath: folder) else {
            throw CLIFailure(message: "the folder \(folder) does not exist: create it first")
        }
        let started = Date()
        let counts = try BooksSample.write(rows: rows, seed: seed, to: out, layout: LayoutKind(rawValue: layout)!)
        let seconds = Date().timeIntervalSince(started)
        print("wrote \(out): \(counts.books) books, \(counts.users) users, \(counts.links) user–book links (seed \(seed), \(String(format: "%.2f", seconds)) s)")
    }
}
