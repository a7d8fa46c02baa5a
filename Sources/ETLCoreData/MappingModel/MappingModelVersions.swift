import Foundation
import ETLModel

extension XCMappingModel {
    /// How one of the two models a mapping model was made between compares with a version.
    public enum ModelMatch: Equatable, Sendable {
        /// The model archived in the mapping model has the version's hashes, entity for entity.
        case sameHashes
        /// It does not: the first entity that differs, and how.
        case differs(entity: String, reason: String)
        /// No archived model, or one whose hashes cannot be computed with certainty (a
        /// derived attribute): only the version name Xcode recorded can tell.
        case unknown
    }

    /// Compares the mapping model's source (or destination) model, as Xcode archived it,
    /// with `model` by version hashes: what Core Data compares (an `NSEntityMapping` holds
    /// its entities' version hashes), so a version renamed since still matches, and one
    /// edited since does not.
    public func match(source: Bool, with model: Model) -> ModelMatch {
        guard let bytes = source ? sourceModelArchive : destinationModelArchive,
              let archived = try? ArchivedDesignModel.model(archive: bytes, version: source ? sourceVersion : destinationVersion),
              let theirs = try? VersionHashes(model: archived), let ours = try? VersionHashes(model: model) else { return .unknown }
        for entity in Set(theirs.entities.keys).union(ours.entities.keys).sorted() where theirs.entities[entity] != ours.entities[entity] {
            let reason = ours.entities[entity] == nil ? "the mapping model's model has it, \(model.version) does not"
                : theirs.entities[entity] == nil ? "\(model.version) has it, the mapping model's model does not"
                : "its version hashes differ (a property, type, optionality, relationship or constraint changed)"
            return .differs(entity: entity, reason: reason)
        }
        return .sameHashes
    }
}
