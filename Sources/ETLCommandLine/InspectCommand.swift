import ArgumentParser
import Foundation
import ETL
import ETLModel
import ETLExpression

struct InspectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "inspect",
        abstract: "Describe a store: layout, entities and row counts, WAL state, Core Data metadata, version.",
        discussion: """
            The store is opened read-only and left byte-for-byte as it was (a -wal file is \
            read, never checkpointed). With --models — a bundle, or JSON model files — the \
            store is checked as `etl run` checks a source (same errors for the same file: \
            wrong layout, missing table or column), and the version it is at is named, or \
            what differs from the closest one.

            Examples:
              etl inspect data/books-v1.sqlite
              etl inspect v2.sqlite --models books-v1.json --models books-v2.json
              etl inspect archive/Example.sqlite --models Model.xcdatamodeld --json
              etl inspect App.sqlite --models App.xcdatamodeld --models Sync.xcdatamodeld
            """)

    @Argument(help: "The store file.")
    var store: String

    @Option(help: ArgumentHelp("A model bundle (Name.xcdatamodeld; repeat it for a model merged from several bundles), or a JSON model file (repeat for several), to check the store against and detect its version with.", valueName: "bundle-or-model"))
    var models: [String] = []

    @Option(help: "The layout the store should be in: plain or coredata (default: coredata with a bundle, plain with model files).")
    var layout: LayoutKind?

    @Flag(help: "Print the report as one JSON object, for scripts.")
    var json = false

    func validate() throws {
        let bundles = models.filter { $0.hasSuffix(".xcdatamodeld") }.count
        if bundles > 0 && bundles < models.count {
            throw ValidationError("--models takes bundles (merged into one model), or JSON model files: not both")
        }
    }

    func run() throws {
        let report = try StoreInspection.inspect(path: store, models: models, layout: layout)
        if json {
            print(try InspectionJSON(report).encoded())
            if case .failure(let error)? = report.version { throw CLIFailure(message: "\(report.path): \(error.message)") }
            return
        }
        print("store    \(report.path) (\(report.bytes) bytes)")
        print("layout   \(report.layout)")
        print("journal  \(report.journal)" + (report.walBytes.map { ", -wal file of \($0) bytes" + ($0 > 0 ? " (read with the store)" : "") } ?? ""))
        if let error = report.metadataError {
            print("metadata unreadable: \(error)")
        }
        if let metadata = report.metadata {
            print("metadata store UUID \(metadata.storeUUID ?? "none"), type \(metadata.storeType ?? "?")"
                  + (metadata.versionHashes.isEmpty ? ", no version hashes" : ", version hashes for \(metadata.versionHashes.keys.sorted().joined(separator: ", "))")
                  + (metadata.versionIdentifiers.filter { !$0.isEmpty }.isEmpty ? "" : ", identifiers \(metadata.versionIdentifiers.joined(separator: ", "))"))
        }
        if report.layout == "coredata" {
            print("model    " + (report.modelCache.map { "kept in the store (Z_MODELCACHE): \($0.summary)" } ?? "none kept in the store (Z_MODELCACHE missing or empty)"))
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
            print(String(repeating: " ", count: width + 2) + "columns: " + e.columns.map { $0.type.isEmpty ? $0.name : "\($0.name) \($0.type)" }.joined(separator: ", "))
        }
        if case .failure(let error)? = report.version { throw CLIFailure(message: "\(report.path): \(error.message)") }
    }
}

extension LayoutKind: ExpressibleByArgument {}

/// `etl inspect --json`: the report as scripts read it.
struct InspectionJSON: Encodable {
    struct ModelCache: Encodable {
        var agrees: Bool
        var unreadable: String?
        var matching: [String]
        var differing: [String]
        var notComputable: [String]
        var unmatched: [String]
    }
    struct Metadata: Encodable {
        var storeUUID: String?
        var storeType: String?
        var versionHashEntities: [String]
        var versionIdentifiers: [String]
    }
    var path: String
    var bytes: Int64
    var layout: String
    var journal: String
    var walBytes: Int64?
    var metadata: Metadata?
    /// The model kept in the store: whether it agrees with the metadata's hashes.
    var modelCache: ModelCache?
    var metadataError: String?
    var version: String?
    var versionEvidence: String?
    var versionError: String?
    var entities: [StoreInspection.EntityCount]

    init(_ report: StoreInspection) {
        path = report.path
        bytes = report.bytes
        layout = report.layout
        journal = report.journal
        walBytes = report.walBytes
        metadata = report.metadata.map {
            Metadata(storeUUID: $0.storeUUID, storeType: $0.storeType, versionHashEntities: $0.versionHashes.keys.sorted(),
                     versionIdentifiers: $0.versionIdentifiers)
        }
        modelCache = report.modelCache.map {
            ModelCache(agrees: $0.agrees, unreadable: $0.unreadable, matching: $0.matching, differing: $0.differing,
                       notComputable: $0.notComputable, unmatched: $0.unmatched)
        }
        metadataError = report.metadataError
        switch report.version {
        case .success(let detected)?:
            version = detected.version
            versionEvidence = detected.evidence == .schema ? "schema" : "schema and version hashes"
        case .failure(let error)?:
            versionError = error.message
        case nil:
            break
        }
        entities = report.entities
    }

    func encoded() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
