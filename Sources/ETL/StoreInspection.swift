import Foundation
import ETLStore
import ETLModel
import ETLEngine

/// What `etl inspect` reports about a store: its layout, entities and row counts, WAL
/// state, Core Data metadata and, given a model bundle, its version.
public struct StoreInspection: Sendable {
    public struct EntityCount: Sendable {
        public var entity: String
        public var table: String
        public var rows: Int
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
    /// With a bundle: the detected version, or why none fits.
    public var version: Result<DetectedVersion, VersionDetectionError>?
    /// With a bundle and a store that carries version hashes: how they compare with each
    /// version's, entity by entity.
    public var hashComparisons: [VersionHashComparison] = []

    /// - Parameter mergedWith: further bundles merged with `bundle` into one model (each
    ///   version then a combination, "App 2 + Sync 3").
    public static func inspect(path: String, bundle: String? = nil, mergedWith: [String] = []) throws -> StoreInspection {
        // Sizes first: opening a WAL store read-only may create an empty -wal beside it.
        let fm = FileManager.default
        let size = ((try? fm.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.int64Value ?? 0
        let wal = ((try? fm.attributesOfItem(atPath: path + "-wal"))?[.size] as? NSNumber)?.int64Value
        let source = try SourceStore(path: path)
        let db = source.database
        let header = FileHandle(forReadingAtPath: path).map { handle -> Data in
            defer { try? handle.close() }
            return handle.readData(ofLength: 20)
        } ?? Data()
        let journal = header.count >= 20 && header[header.startIndex + 18] == 2 ? "wal" : "rollback"
        let tables = try db.tables()
        let isCoreData = tables.contains { $0.name == "Z_PRIMARYKEY" } && tables.contains { $0.name == "Z_METADATA" }
        var entities: [EntityCount] = []
        var metadata: CoreDataMetadata?
        if isCoreData {
            metadata = try? CoreDataMetadata.read(db)
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
                entities.append(EntityCount(entity: entry.name, table: table, rows: Int(count)))
            }
        } else {
            for table in tables {
                entities.append(EntityCount(entity: table.name, table: table.name,
                                            rows: Int(try db.scalarInt("SELECT count(*) FROM \(Database.quote(table.name))"))))
            }
        }
        var version: Result<DetectedVersion, VersionDetectionError>?
        var comparisons: [VersionHashComparison] = []
        if let bundle {
            let bundles = try ([bundle] + mergedWith).map { try ModelBundle.load(path: $0) }
            let versions = bundles.count == 1 ? bundles[0].versions : try MergedModel.combinations(bundles).map(\.model)
            if let metadata, !metadata.versionHashes.isEmpty {
                comparisons = VersionHashComparison.compare(metadata, with: versions)
            }
            do {
                version = .success(try VersionDetector.detect(store: db, versions: versions,
                                                              layout: isCoreData ? .coredata : .plain))
            } catch let error as VersionDetectionError {
                version = .failure(error)
            }
        }
        return StoreInspection(path: path, bytes: size, layout: isCoreData ? "coredata" : "plain", entities: entities,
                               journal: journal, walBytes: wal, metadata: metadata, version: version, hashComparisons: comparisons)
    }
}
