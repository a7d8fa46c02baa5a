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
    /// The files of `.<Store>_SUPPORT/_EXTERNAL_DATA` (externally stored binary values).
    public var externalFiles = 0
    public var externalBytes: Int64 = 0
    /// With a detected version: markers of external storage whose file is missing, as
    /// "Entity row KEY: PATH".
    public var missingExternalFiles: [String] = []
    /// With a detected version: tables no entity of it lays out (history, CloudKit, other).
    public var unmodeledTables: [UnmodeledTable] = []

    public static func inspect(path: String, bundle: String? = nil) throws -> StoreInspection {
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
        if let bundle {
            let models = try ModelBundle.load(path: bundle)
            do {
                version = .success(try VersionDetector.detect(store: db, versions: models.versions,
                                                              layout: isCoreData ? .coredata : .plain))
            } catch let error as VersionDetectionError {
                version = .failure(error)
            }
        }
        var report = StoreInspection(path: path, bytes: size, layout: isCoreData ? "coredata" : "plain", entities: entities,
                                     journal: journal, walBytes: wal, metadata: metadata, version: version)
        let folder = ExternalBinaryStorage.folder(ofStore: path)
        for name in (try? fm.contentsOfDirectory(atPath: folder)) ?? [] {
            guard let bytes = (try? fm.attributesOfItem(atPath: folder + "/" + name))?[.size] as? NSNumber else { continue }
            report.externalFiles += 1
            report.externalBytes += bytes.int64Value
        }
        if case .success(let detected)? = version, let bundle,
           let model = try ModelBundle.load(path: bundle).versions.first(where: { $0.version == detected.version }) {
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
                            guard case .integer(let key) = row[0], case .blob(let marked) = row[1],
                                  case .unreadable(let why) = ExternalBinaryStorage.read(marked, folder: folder) else { continue }
                            report.missingExternalFiles.append("\(entity.name) row \(key): \(why)")
                        }
                    }
                }
            }
        }
        return report
    }
}
