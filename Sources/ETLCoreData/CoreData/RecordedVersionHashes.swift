import Foundation
import ETLModel

extension VersionHashes {
    /// The hashes a store Core Data wrote recorded for entities whose hash cannot be computed
    /// (a derived attribute), when `model` defines them exactly as `storeModel`, the version
    /// the store is at, does: the same definition has the same hash, so the store's is that of
    /// `model` too. Nothing is guessed:
    ///
    /// - the store must have a hash for exactly the entities of `storeModel`, and every one
    ///   that can be computed must equal the store's (the store proves the model right;
    ///   otherwise nothing is taken from it);
    /// - an entity is taken only when its whole lineage (itself and its ancestors, every
    ///   property with every field) is equal in both models.
    ///
    ///     let recorded = VersionHashes.recordedHashes(in: sourceMetadata, storeModel: v1, for: v2)
    ///     let hashes = try VersionHashes(model: v2, recorded: recorded)
    public static func recordedHashes(in metadata: CoreDataMetadata, storeModel: Model, for model: Model) -> [String: Data] {
        guard Set(metadata.versionHashes.keys) == Set(storeModel.entities.map(\.name)) else { return [:] }
        var recorded: [String: Data] = [:]
        for entity in storeModel.entities {
            guard let stored = metadata.versionHashes[entity.name] else { return [:] }
            if let computed = try? hash(of: entity.name, in: storeModel) {
                guard Data(computed) == stored else { return [:] }
            } else if model.entity(named: entity.name) != nil, model.lineage(of: entity.name) == storeModel.lineage(of: entity.name) {
                recorded[entity.name] = stored
            }
        }
        return recorded
    }
}
