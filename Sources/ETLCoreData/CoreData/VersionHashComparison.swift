import ETLModel
/// How a store's version hashes compare with those of one model version, entity by entity:
/// what `etl inspect --models` shows, so a user sees why a store is (or is not) at a version.
///
///     let rows = VersionHashComparison.compare(metadata, with: bundle.versions)
///     rows[1].entities   // [("BookmarkEntity", .matches)]
public struct VersionHashComparison: Sendable, Equatable {
    public enum Outcome: String, Sendable, Equatable {
        case matches = "matches"
        case differs = "differs"
        /// The store has a hash for an entity the version does not have.
        case notInVersion = "not in this version"
        /// The version has an entity the store has no hash for.
        case notInStore = "not in the store"
    }

    public struct EntityOutcome: Sendable, Equatable {
        public var entity: String
        public var outcome: Outcome
    }

    public var version: String
    /// Every entity of the store or the version, by name.
    public var entities: [EntityOutcome]
    /// Whether the store's `NSStoreModelVersionHashesDigest` equals the version's; nil when
    /// the store has none.
    public var digestMatches: Bool?
    /// Why the version's hashes cannot be computed (a derived attribute…); `entities` is then empty.
    public var unavailable: String?

    /// True when every entity matches.
    public var matches: Bool { unavailable == nil && !entities.isEmpty && entities.allSatisfy { $0.outcome == .matches } }

    public static func compare(_ metadata: CoreDataMetadata, with versions: [Model]) -> [VersionHashComparison] {
        versions.map { model in
            let computed: VersionHashes
            do {
                computed = try VersionHashes(model: model)
            } catch {
                return VersionHashComparison(version: model.version, entities: [], digestMatches: nil, unavailable: "\(error)")
            }
            let names = Set(computed.entities.keys).union(metadata.versionHashes.keys).sorted()
            let entities = names.map { name -> EntityOutcome in
                switch (metadata.versionHashes[name], computed.entities[name]) {
                case (let a?, let b?): return EntityOutcome(entity: name, outcome: a == b ? .matches : .differs)
                case (_?, nil): return EntityOutcome(entity: name, outcome: .notInVersion)
                default: return EntityOutcome(entity: name, outcome: .notInStore)
                }
            }
            return VersionHashComparison(version: model.version, entities: entities,
                                         digestMatches: metadata.versionHashesDigest.map { $0 == computed.digest }, unavailable: nil)
        }
    }
}
