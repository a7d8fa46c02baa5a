import Foundation
import ETLStore
import ETLModel

/// Whether a store's own model (`Z_MODELCACHE`) is the model its metadata describes: the
/// version hashes computed from the cached model against `NSStoreModelVersionHashes`, entity
/// by entity. What `etl inspect` shows, and what a run checks before it trusts a cache.
///
///     let agreement = ModelCacheAgreement.check(db, metadata: metadata)
///     agreement?.agrees   // nil: the store has no cache
public struct ModelCacheAgreement: Sendable, Equatable {
    /// The cached model (nil when it could not be read: see `unreadable`).
    public var model: Model?
    /// Why the cache could not be read.
    public var unreadable: String?
    /// Entities whose computed hash equals the store's.
    public var matching: [String] = []
    /// Entities whose computed hash differs from the store's.
    public var differing: [String] = []
    /// Entities with a derived attribute, whose hash cannot be computed with certainty.
    public var notComputable: [String] = []
    /// Entities in the cache and not in the metadata, or the other way round.
    public var unmatched: [String] = []

    /// True when the cache was read and every computable entity's hash is the store's.
    public var agrees: Bool { unreadable == nil && differing.isEmpty && unmatched.isEmpty }

    /// The store's cache compared with `metadata`; nil when the store has no cache.
    public static func check(_ db: Database, metadata: CoreDataMetadata, version: String = "cached") -> ModelCacheAgreement? {
        let model: Model
        do {
            guard let cached = try ModelCache.read(db, version: version) else { return nil }
            model = cached
        } catch {
            return ModelCacheAgreement(model: nil, unreadable: "\(error)")
        }
        return compare(model, with: metadata)
    }

    public static func compare(_ model: Model, with metadata: CoreDataMetadata) -> ModelCacheAgreement {
        var result = ModelCacheAgreement(model: model, unreadable: nil)
        let names = Set(model.entities.map(\.name))
        result.unmatched = names.symmetricDifference(metadata.versionHashes.keys).sorted()
        // One hash per entity: a sub-entity's is made from its parent's, kept here.
        var known = VersionHashes.Memo()
        for name in names.intersection(metadata.versionHashes.keys).sorted() {
            if model.attributes(of: name).contains(where: { $0.derivation != nil }) {
                result.notComputable.append(name)
            } else if let hash = try? VersionHashes.hash(of: name, in: model, known: &known), Data(hash) == metadata.versionHashes[name] {
                result.matching.append(name)
            } else {
                result.differing.append(name)
            }
        }
        return result
    }

    /// One line for people: "agrees with the metadata (5 entities…)" or what differs.
    public var summary: String {
        if let unreadable { return "unreadable: \(unreadable)" }
        var parts: [String] = []
        if agrees {
            parts.append("agrees with the metadata's version hashes (\(matching.count) entit\(matching.count == 1 ? "y" : "ies"))")
        } else {
            parts.append("DISAGREES with the metadata's version hashes")
            if !differing.isEmpty { parts.append("differing: " + differing.joined(separator: ", ")) }
            if !unmatched.isEmpty { parts.append("in one and not the other: " + unmatched.joined(separator: ", ")) }
        }
        if !notComputable.isEmpty { parts.append("not computable (derived attributes): " + notComputable.joined(separator: ", ")) }
        return parts.joined(separator: "; ")
    }
}
