import ETLModel
/// A model merged from several bundles, as an app built from modules opens one store with
/// `NSManagedObjectModel(byMerging:)`: the entities of one version of each bundle.
///
///     let merged = try MergedModel.merge([bookmarks.version(named: "BookmarksModel 2")!,
///                                         sync.version(named: "SyncMetadata 3")!])
///     merged.version   // "BookmarksModel 2 + SyncMetadata 3"
///
/// Its version hashes are those of its entities (each computed from its own entity), so a
/// store written with the merged model is detected by hash like any other.
public enum MergedModel {
    /// The name of a merged version: its parts' names joined by " + ".
    public static func name(_ versions: [String]) -> String {
        versions.joined(separator: " + ")
    }

    /// One model with every entity of `models`. Two models with an entity of one name cannot
    /// be merged (Core Data refuses them too): the error names the entity and both versions.
    public static func merge(_ models: [Model]) throws -> Model {
        var owner: [String: String] = [:]
        for model in models {
            for entity in model.entities {
                if let other = owner[entity.name] {
                    throw MergeError(message: "entity \(entity.name) is in both \(other) and \(model.version): models with an entity of the same name cannot be merged")
                }
                owner[entity.name] = model.version
            }
        }
        return Model(version: name(models.map(\.version)), entities: models.flatMap(\.entities),
                     versionIdentifiers: models.flatMap(\.versionIdentifiers))
    }

    /// Every combination of one version of each bundle, as merged models, with the index of
    /// each part's version in its bundle.
    public static func combinations(_ bundles: [ModelBundle]) throws -> [(parts: [Int], model: Model)] {
        var result: [(parts: [Int], model: Model)] = [([], Model(version: "", entities: []))]
        for bundle in bundles {
            var next: [(parts: [Int], model: Model)] = []
            for (parts, _) in result {
                for index in bundle.versions.indices { next.append((parts + [index], Model(version: "", entities: []))) }
            }
            result = next
        }
        return try result.map { parts, _ in
            (parts, try merge(zip(bundles, parts).map { $0.versions[$1] }))
        }
    }

    public struct MergeError: Error, CustomStringConvertible {
        public var message: String
        public var description: String { message }
    }
}
