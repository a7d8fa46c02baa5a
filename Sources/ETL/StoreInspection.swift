import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLEngine

/// What `etl inspect` reports about a store: its layout, entities and row counts, WAL
/// state, Core Data metadata and, given a model bundle, its version.
public struct StoreInspection: Sendable {
    public struct EntityCount: Sendable, Codable {
        public var entity: String
        public var table: String
        public var rows: Int
        /// The table's columns with their declared types, in table order.
        public var columns: [Column] = []
    }

    public struct Column: Sendable, Codable {
        public var name: String
        public var type: String
    }

    public var path: String
    public var bytes: Int64
    /// "coredata" when the store has Core Data's bookkeeping tables, else "plain".
    public var layout: String
    public var entities: [EntityCount]
    /// The journal mode written in the header ("wal" or "rollback") and the -wal file's size.
    public var journal: String
    public var walBytes: Int64?
    public var metadata: CoreDataMetadata?
    /// Why a Core Data store's metadata (`Z_METADATA`) could not be read, when it could not.
    public var metadataError: String?
    /// With a bundle: the detected version, or why none fits.
    public var version: Result<DetectedVersion, VersionDetectionError>?
    /// With a bundle and a store that carries version hashes: how they compare with each
    /// version's, entity by entity.
    public var hashComparisons: [VersionHashComparison] = []
    /// A Core Data store's own model (`Z_MODELCACHE`) against its metadata's version hashes;
    /// nil when it has none.
    public var modelCache: ModelCacheAgreement?
    /// The files of `.<Store>_SUPPORT/_EXTERNAL_DATA` (externally stored binary values).
    public var externalFiles = 0
    public var externalBytes: Int64 = 0
    /// With a detected version: markers of external storage whose file is missing, as
    /// "Entity row KEY: PATH".
    public var missingExternalFiles: [String] = []
    /// With a detected version: tables no entity of it lays out (history, CloudKit, other).
    public var unmodeledTables: [UnmodeledTable] = []

    /// - Parameter mergedWith: further bundles merged with `bundle` into one model (each
    ///   version then a combination, "App 2 + Sync 3").
    public static func inspect(path: String, bundle: String? = nil, mergedWith: [String] = []) throws -> StoreInspection {
        try inspect(path: path, models: bundle.map { [$0] + mergedWith } ?? [])
    }

    /// Describes the store at `path`. With `models` — a bundle (`Name.xcdatamodeld`), several
    /// bundles merged into one model, or JSON model files — the store is checked as a run
    /// checks its source (`SourceSchemaCheck`: the same errors for the same file) and its
    /// version is detected among them. `layout` is the layout the store is expected in: by
    /// default Core Data's for bundles, plain for model files.
    public static func inspect(path: String, models: [String], layout expected: LayoutKind? = nil) throws -> StoreInspection {
        let path = URL(fileURLWithPath: path).standardizedFileURL.path
        // Sizes first: opening a WAL store read-only may create an empty -wal beside it.
        let fm = FileManager.default
        let size = ((try? fm.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        let wal = ((try? fm.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.int64Value
        let source = try SourceStore(path: path)
        let db = source.database
        let versions = try modelVersions(models)
        let expected = expected ?? (models.isEmpty ? nil : models[0].hasSuffix(".xcdatamodeld") ? .coredata : .plain)
        if let expected { try SourceSchemaCheck.checkLayout(db, path: path, expected: expected) }
        let header = FileHandle(forReadingAtPath: path).map { handle -> Data in
            defer { try? handle.close() }
            return handle.readData(ofLength: 20)
        } ?? Data()
        let journal = header.count >= 20 && header[header.startIndex + 18] == 2 ? "wal" : "rollback"
        let tables = try db.tables()
        let isCoreData = tables.contains { $0.name == "Z_PRIMARYKEY" } && tables.contains { $0.name == "Z_METADATA" }
        var entities: [EntityCount] = []
        var metadata: CoreDataMetadata?
        var metadataError: String?
        if isCoreData {
            // Said, not hidden: a damaged or hostile Z_PLIST is what fails a run of the store.
            do { metadata = try CoreDataMetadata.read(db) } catch { metadataError = "\(error)" }
            let rows = try db.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY ORDER BY Z_ENT")
            var parents: [Int64: (name: String, parent: Int64)] = [:]
            for row in rows {
                if case .integer(let number) = row[0], case .text(let name) = row[1] {
                    var parent: Int64 = 0
                    if case .integer(let p) = row[2] { parent = p }
                    parents[number] = (name, parent)
                }
            }
            for (number, entry) in parents.sorted(by: { $0.key < $1.key }) {
                var root = entry
                var guardCount = 0
                while root.parent != 0, let up = parents[root.parent], guardCount < 64 { root = up; guardCount += 1 }
                let table = "Z" + root.name.uppercased()
                guard tables.contains(where: { $0.name == table }) else { continue }
                let count = try db.scalarInt("SELECT count(*) FROM \(Database.quote(table)) WHERE Z_ENT = ?", [.integer(number)])
                entities.append(EntityCount(entity: entry.name, table: table, rows: Int(count),
                                            columns: tables.first { $0.name == table }.map(columns) ?? []))
            }
        } else {
            for table in tables {
                entities.append(EntityCount(entity: table.name, table: table.name,
                                            rows: Int(try db.scalarInt("SELECT count(*) FROM \(Database.quote(table.name))")),
                                            columns: columns(table)))
            }
        }
        var version: Result<DetectedVersion, VersionDetectionError>?
        var comparisons: [VersionHashComparison] = []
        if !versions.isEmpty {
            let kind: LayoutKind = isCoreData ? .coredata : .plain
            if let metadata, !metadata.versionHashes.isEmpty {
                comparisons = VersionHashComparison.compare(metadata, with: versions)
            }
            do {
                version = .success(try VersionDetector.detect(store: db, versions: versions, layout: kind))
            } catch let error as VersionDetectionError {
                // A plain store is checked as a run checks its source, so both name the same
                // missing table or column (with the tables the store has).
                if kind == .plain, let closest = versions.first(where: { $0.version == error.closestVersion }) {
                    try SourceSchemaCheck.checkTables(db, path: path, layout: PlainLayout(model: closest),
                                                      entities: closest.entities.filter { !$0.isAbstract }.map(\.name))
                }
                version = .failure(error)
            }
        }
        var report = StoreInspection(path: path, bytes: size, layout: isCoreData ? "coredata" : "plain", entities: entities,
                                     journal: journal, walBytes: wal, metadata: metadata, version: version, hashComparisons: comparisons)
        if let metadata { report.modelCache = ModelCacheAgreement.check(db, metadata: metadata) }
        report.metadataError = metadataError
        let folder = ExternalBinaryStorage.folder(ofStore: path)
        // Its regular files only, reached without a link (`ExternalBinaryStorage.externalFiles`).
        for file in ExternalBinaryStorage.externalFiles(in: folder) {
            report.externalFiles += 1
            report.externalBytes += file.size
        }
        if case .success(let detected)? = version, let model = versions.first(where: { $0.version == detected.version }) {
            let layout: any StoreLayout = isCoreData ? try CoreDataLayout(model: model, store: db) : PlainLayout(model: model)
            report.unmodeledTables = try UnmodeledTable.find(in: db, layout: layout)
            if isCoreData {
                for entity in model.entities where !entity.isAbstract {
                    for attribute in model.attributes(of: entity.name) where attribute.allowsExternalStorage {
                        let table = layout.table(of: entity.name)
                        let column = Database.quote(layout.column(ofAttribute: attribute.name, entity: entity.name))
                        let condition = table.condition(alias: "t").map { " AND \($0)" } ?? ""
                        let markers = try db.rows("SELECT t.\(Database.quote(table.keyColumn)), t.\(column) FROM \(Database.quote(table.name)) t "
                                                  + "WHERE substr(t.\(column), 1, 1) = x'02'\(condition) ORDER BY 1")
                        for row in markers {
                            guard case .integer(let key) = row[0], case .blob(let marked) = row[1] else { continue }
                            switch ExternalBinaryStorage.read(marked, folder: folder) {
                            case .missing(let why), .unreadable(let why): report.missingExternalFiles.append("\(entity.name) row \(key): \(why)")
                            case .bytes, .tooLarge: continue  // (there, only too large to read as a value)
                            }
                        }
                    }
                }
            }
        }
        return report
    }

    /// The versions `models` offer: a bundle's, the combinations of several bundles merged
    /// into one model, or one per JSON model file.
    private static func modelVersions(_ models: [String]) throws -> [Model] {
        let bundles = models.filter { $0.hasSuffix(".xcdatamodeld") }
        guard !bundles.isEmpty else { return try models.map { try ModelFile.load(path: $0) } }
        let loaded = try bundles.map { try ModelBundle.load(path: $0) }
        return loaded.count == 1 ? loaded[0].versions : try MergedModel.combinations(loaded).map(\.model)
    }

    private static func columns(_ table: TableInfo) -> [Column] {
        table.columns.map { Column(name: $0.name, type: $0.declaredType) }
    }
}
