import ArgumentParser
import Foundation
import ETL

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe a store: layout, entities and row counts, WAL state, Core Data metadata, version.",
        discussion: """
            The store is opened read-only and left byte-for-byte as it was (a -wal file is \
            read, never checkpointed). With --models, says which version of the bundle the \
            store is at, or what differs from the closest one.

            Examples:
              etl inspect data/books-v1.sqlite
              etl inspect archive/Example.sqlite --models Model.xcdatamodeld
              etl inspect archive/App.sqlite --models App.xcdatamodeld --models Sync.xcdatamodeld
            """)

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "A model bundle (Name.xcdatamodeld) to detect the store's version with; repeat it for a model merged from several bundles.")
    var models: [String] = []

    func run() throws {
        let report = try StoreInspection.inspect(path: store, bundle: models.first, mergedWith: Array(models.dropFirst()))
        print("store    \(report.path) (\(report.bytes) bytes)")
        print("layout   \(report.layout)")
        print("journal  \(report.journal)" + (report.walBytes.map { ", -wal file of \($0) bytes" + ($0 > 0 ? " (read with the store)" : "") } ?? ""))
        if let metadata = report.metadata {
            print("metadata store UUID \(metadata.storeUUID ?? "none"), type \(metadata.storeType ?? "?")"
                  + (metadata.versionHashes.isEmpty ? ", no version hashes" : ", version hashes for \(metadata.versionHashes.keys.sorted().joined(separator: ", "))")
                  + (metadata.versionIdentifiers.filter { !$0.isEmpty }.isEmpty ? "" : ", identifiers \(metadata.versionIdentifiers.joined(separator: ", "))"))
        }
        if let digest = report.metadata?.versionHashesDigest, !report.hashComparisons.isEmpty {
            print("digest   \(digest)")
        }
        // Per candidate version: which entity hashes of the store match that version's.
        for comparison in report.hashComparisons {
            let entities = comparison.unavailable ?? comparison.entities.map { "\($0.entity) \($0.outcome.rawValue)" }.joined(separator: ", ")
            let digest = comparison.digestMatches.map { $0 ? "; digest matches" : "; digest differs" } ?? ""
            print("hashes   \(comparison.matches ? "=" : "≠") \(comparison.version): \(entities)\(digest)")
        }
        switch report.version {
        case .success(let detected)?:
            print("version  \(detected.version) (by \(detected.evidence == .schema ? "schema" : "version hashes and schema"))")
        case .failure(let error)?:
            print("version  unknown: \(error.message)")
        case nil:
            break
        }
        print("")
        let width = max(6, report.entities.map(\.entity.count).max() ?? 0)
        print("entity".padding(toLength: width, withPad: " ", startingAt: 0) + "  table" + String(repeating: " ", count: 14) + "rows")
        for e in report.entities {
            print(e.entity.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                  + e.table.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%6d", e.rows))
        }
        if case .failure? = report.version { throw CLIFailure(message: "\(store) matches no version of \(models.joined(separator: " + "))") }
    }
}
