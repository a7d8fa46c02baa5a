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
            """)

    @Argument(help: "The store file.")
    var store: String

    @Option(help: "A model bundle (Name.xcdatamodeld) to detect the store's version with.")
    var models: String?

    func run() throws {
        let report = try StoreInspection.inspect(path: store, bundle: models)
        print("store    \(report.path) (\(report.bytes) bytes)")
        print("layout   \(report.layout)")
        print("journal  \(report.journal)" + (report.walBytes.map { ", -wal file of \($0) bytes" + ($0 > 0 ? " (read with the store)" : "") } ?? ""))
        if let metadata = report.metadata {
            print("metadata store UUID \(metadata.storeUUID ?? "none"), type \(metadata.storeType ?? "?")"
                  + (metadata.versionHashes.isEmpty ? ", no version hashes" : ", version hashes for \(metadata.versionHashes.keys.sorted().joined(separator: ", "))")
                  + (metadata.versionIdentifiers.filter { !$0.isEmpty }.isEmpty ? "" : ", identifiers \(metadata.versionIdentifiers.joined(separator: ", "))"))
        }
        switch report.version {
        case .success(let detected)?:
            print("version  \(detected.version) (by \(detected.evidence == .schema ? "schema" : "schema and version hashes"))")
        case .failure(let error)?:
            print("version  unknown: \(error.message)")
        case nil:
            break
        }
        if report.externalFiles > 0 {
            print("external \(report.externalFiles) files of externally stored values, \(report.externalBytes) bytes")
        }
        for missing in report.missingExternalFiles { print("missing  \(missing)") }
        if !report.unmodeledTables.isEmpty {
            print("tables   belonging to no entity: " + report.unmodeledTables.map { "\($0.name) (\($0.rows) rows, \($0.kind.description))" }.joined(separator: ", "))
        }
        print("")
        let width = max(6, report.entities.map(\.entity.count).max() ?? 0)
        print("entity".padding(toLength: width, withPad: " ", startingAt: 0) + "  table" + String(repeating: " ", count: 14) + "rows")
        for e in report.entities {
            print(e.entity.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                  + e.table.padding(toLength: 18, withPad: " ", startingAt: 0) + String(format: "%6d", e.rows))
        }
        if case .failure? = report.version { throw CLIFailure(message: "\(store) matches no version of \(models ?? "")") }
    }
}
