import Foundation
import ETLModel
import ETLStore

/// The Xcode mapping models under a folder, found for a hop as Core Data finds one: a
/// mapping model whose source and destination models have the version hashes of the hop's
/// two versions (Core Data searches the app's bundle for a mapping model of the store's
/// model and the current one; it compares the hashes its entity mappings hold).
///
///     let catalog = MappingModelCatalog.load(folder: "App")
///     catalog.mappingModels(from: v4, to: v5)   // ["App/V4toV5.xcmappingmodel"]
///
/// The folder is searched a few levels deep, not inside model bundles or mapping models. A
/// file that cannot be read as a mapping model is not a candidate (Core Data would not find
/// it either): it is kept in `unreadable`, with why, for the plan to say.
public struct MappingModelCatalog: Sendable {
    public struct Entry: Sendable {
        public var path: String
        public var mapping: XCMappingModel
        /// The archived models' entity hashes; nil where the file archives no model, or one
        /// whose hashes cannot be computed with certainty (then the recorded version names tell).
        var sourceHashes: [String: Data]?
        var destinationHashes: [String: Data]?
    }

    public var entries: [Entry]
    public var unreadable: [(path: String, reason: String)] = []

    /// How deep below the folder mapping models are looked for.
    static let depth = 4

    /// The mapping models `load(folder:)` reads: what a batch fingerprints as its inputs.
    public static func paths(in folder: String) -> [String] {
        mappingModelPaths(in: folder, depth: depth)
    }

    public static func load(folder: String) -> MappingModelCatalog {
        var catalog = MappingModelCatalog(entries: [])
        for path in mappingModelPaths(in: folder, depth: depth) {
            do {
                let mapping = try XCMappingModel.load(path: path)
                func hashes(_ bytes: [UInt8]?, _ version: String) -> [String: Data]? {
                    guard let bytes, let model = try? ArchivedDesignModel.model(archive: bytes, version: version) else { return nil }
                    return (try? VersionHashes(model: model))?.entities
                }
                catalog.entries.append(Entry(path: path, mapping: mapping,
                                             sourceHashes: hashes(mapping.sourceModelArchive, mapping.sourceVersion),
                                             destinationHashes: hashes(mapping.destinationModelArchive, mapping.destinationVersion)))
            } catch {
                catalog.unreadable.append((path, "\(error)"))
            }
        }
        return catalog
    }

    /// The mapping models made between `from` and `to`, by path. `hashes` are the two
    /// versions' entity hashes (nil where they cannot be computed).
    public func mappingModels(from: Model, _ fromHashes: [String: Data]?, to: Model, _ toHashes: [String: Data]?) -> [String] {
        func fits(_ archived: [String: Data]?, _ recordedVersion: String, _ model: Model, _ hashes: [String: Data]?) -> Bool {
            if let archived, let hashes { return archived == hashes }
            return recordedVersion == model.version
        }
        return entries.filter {
            fits($0.sourceHashes, $0.mapping.sourceVersion, from, fromHashes)
                && fits($0.destinationHashes, $0.mapping.destinationVersion, to, toHashes)
        }.map(\.path)
    }

    /// `Name.xcmappingmodel` folders under `folder`, in name order, up to `depth` levels down.
    static func mappingModelPaths(in folder: String, depth: Int) -> [String] {
        // Folders only (a mapping model is one), listed without a stat of each file: the
        // pipeline's folder may hold the archive of stores a batch migrates.
        guard depth >= 0, let names = Platform.subfolders(of: folder) else { return [] }
        var found: [String] = []
        for name in names.sorted() where !name.hasPrefix(".") {
            let path = (folder as NSString).appendingPathComponent(name)
            if name.hasSuffix(".xcmappingmodel") {
                found.append(path)
            } else if !name.hasSuffix(".xcdatamodeld") && !name.hasSuffix(".xcdatamodel") {
                found += mappingModelPaths(in: path, depth: depth - 1)
            }
        }
        return found
    }
}
