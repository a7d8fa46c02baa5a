import ArgumentParser
import Foundation
import ETL

struct RejectsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rejects",
        abstract: "Print a reject file: the source rows a run could not migrate, with their errors and values.",
        discussion: """
            A run keeps every rejected row (an expression or a policy threw for it) in \
            DESTINATION.rejects.jsonl.zst, up to the pipeline's options.maxRejects.

            Examples:
              etl rejects out/books-v3.sqlite.rejects.jsonl.zst
              etl rejects out/books-v3.sqlite.rejects.jsonl.zst --json > rejects.jsonl
            """)

    @Argument(help: "The reject file.")
    var file: String

    @Flag(help: "Print JSON lines instead of text.")
    var json = false

    func run() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        var count = 0
        // Printed as read: memory stays bounded whatever the file's size (`RejectFile.forEach`).
        try RejectFile.forEach(file) { r in
            count += 1
            if json {
                print(String(decoding: try encoder.encode(r), as: UTF8.self))
                return
            }
            print("\(r.step) · mapping \(r.mapping) · \(r.stage) · source \(r.entity) row \(r.key)")
            print("  \(r.expression): \(r.error)")
            for (path, value) in r.values.sorted(by: { $0.key < $1.key }) { print("  \(path) = \(value)") }
        }
        if !json { print("\(count) rejected row\(count == 1 ? "" : "s")") }
    }
}
