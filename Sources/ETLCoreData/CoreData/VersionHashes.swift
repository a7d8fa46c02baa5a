import Foundation
import ETLModel

/// Core Data's version hashes of a model, computed from the model alone: what a store
/// written at that version carries in `Z_METADATA` (`NSStoreModelVersionHashes`, and
/// `NSStoreModelVersionHashesDigest`).
///
///     let hashes = try VersionHashes(model: bundle.version(named: "SampleModel2")!)
///     hashes.entities["Car"]   // 32 bytes, equal to those Core Data writes
///     hashes.digest            // base64 of SHA-512 over every (name, hash)
///
/// The layout (../shared/docs/coredata-version-hash.md) reproduces, byte for byte, the hashes
/// of every real store in the shared fixtures. Derived attributes hash their derivation
/// expression in a form no layout tried has reproduced (CoreDataPlus's SampleModel2 store,
/// `pages.@count`): for an entity with one, this refuses (`VersionHashError`, naming the
/// entity) rather than guess, unless a store Core Data wrote recorded the hash of that very
/// definition (`recorded`: a template's, or the migrated store's, see `recordedHashes`).
public struct VersionHashes: Sendable, Equatable {
    /// Entity name → its 32-byte version hash.
    public var entities: [String: Data]
    /// `NSStoreModelVersionHashesDigest`.
    public var digest: String

    public init(entities: [String: Data], digest: String) {
        self.entities = entities
        self.digest = digest
    }

    /// - Parameter recorded: hashes Core Data wrote for entities defined exactly as in `model`,
    ///   used for those whose hash cannot be computed (a derived attribute).
    public init(model: Model, recorded: [String: Data] = [:]) throws {
        var hashes: [String: Data] = [:]
        var known = Memo()
        for entity in model.entities {
            hashes[entity.name] = Data(try Self.hash(of: entity.name, in: model, recorded: recorded, known: &known))
        }
        entities = hashes
        digest = Self.digest(of: hashes)
    }

    /// Base64 of SHA-512 over (entity name | entity hash), entities in name order.
    public static func digest(of hashes: [String: Data]) -> String {
        var bytes: [UInt8] = []
        for name in hashes.keys.sorted(by: codePointOrder) {
            bytes += Array(name.utf8) + Array(hashes[name]!)
        }
        return Data(SHA2.sha512(bytes)).base64EncodedString()
    }

    /// Sorts as Core Data's `compare:` does for the ASCII names of every known store.
    private static func codePointOrder(_ a: String, _ b: String) -> Bool {
        a.unicodeScalars.lexicographicallyPrecedes(b.unicodeScalars)
    }

    static func hash(of name: String, in model: Model, recorded: [String: Data] = [:]) throws -> [UInt8] {
        var known = Memo()
        return try hash(of: name, in: model, recorded: recorded, known: &known)
    }

    /// Hashes already made for a model: each entity's, and each entity's own properties'
    /// (a sub-entity's hash covers its inherited properties, hashed once where declared).
    struct Memo {
        var entities: [String: [UInt8]] = [:]
        var properties: [String: (attributes: [(name: String, hash: [UInt8])], relationships: [(name: String, hash: [UInt8])])] = [:]

        /// The hashes of `entity`'s own attributes and relationships.
        mutating func properties(of entity: Entity) -> (attributes: [(name: String, hash: [UInt8])], relationships: [(name: String, hash: [UInt8])]) {
            if let known = properties[entity.name] { return known }
            let hashes = (entity.attributes.map { ($0.name, VersionHashes.hash(of: $0)) },
                          entity.relationships.map { ($0.name, VersionHashes.hash(of: $0)) })
            properties[entity.name] = hashes
            return hashes
        }
    }

    /// An entity's hash holds its parent's: the lineage is hashed from its root down, each
    /// hash kept in `known` for the entities after it, so a model's hashes cost one hash
    /// per entity however deep its chains (not one per ancestor of each), and a chain
    /// thousands deep takes no recursion.
    static func hash(of name: String, in model: Model, recorded: [String: Data] = [:], known: inout Memo) throws -> [UInt8] {
        if let hash = known.entities[name] { return hash }
        let lineage = model.lineage(of: name)
        if let top = lineage.last, let parent = top.parent, lineage.contains(where: { $0.name == parent }) {
            throw VersionHashError(entity: name, reason: "entity \(parent) is its own ancestor")
        }
        var hash: [UInt8] = []
        for (position, entity) in lineage.enumerated().reversed() {
            if let hashed = known.entities[entity.name] {
                hash = hashed
                continue
            }
            hash = try Self.hash(of: entity, parentHash: entity.parent == nil ? nil : hash,
                                 inherited: Array(lineage[position...]), recorded: recorded, known: &known)
            known.entities[entity.name] = hash
        }
        return hash
    }

    /// - Parameter inherited: the entity and its parents, nearest first.
    private static func hash(of entity: Entity, parentHash: [UInt8]?, inherited: [Entity], recorded: [String: Data],
                             known: inout Memo) throws -> [UInt8] {
        let name = entity.name
        let attributes = inherited.reversed().flatMap(\.attributes)
        // Inherited derived attributes count too: a sub-entity's hash holds each attribute's hash.
        if let derived = attributes.first(where: { $0.derivation != nil }) {
            if let hash = recorded[name] { return Array(hash) }
            throw VersionHashError(entity: name, reason: "attribute \(derived.name) is derived (derivationExpression "
                + "'\(derived.derivation!)'), and how Core Data hashes a derivation is not known with certainty")
        }
        var bytes = Array(name.utf8)
        bytes.append(entity.isAbstract ? 1 : 0)
        if let parentHash {
            bytes += parentHash
        }
        // Every stored property, inherited ones included, by name. (A property's own
        // versionHashModifier is inside its hash; the corpus stores show it is not repeated here.)
        // Attributes, then relationships, each inherited first (the order ties keep).
        let declared = inherited.reversed().map { known.properties(of: $0) }
        let properties = declared.flatMap(\.attributes) + declared.flatMap(\.relationships)
        for property in properties.sorted(by: { codePointOrder($0.name, $1.name) }) {
            bytes += property.hash
        }
        if let modifier = entity.versionHashModifier { bytes += Array(modifier.utf8) }
        // The entity's own constraints: a sub-entity's hash holds its parent's (and so its
        // constraints) through the parent's hash; SampleModel's SportCar shows they are not repeated.
        for constraint in entity.uniquenessConstraints.map({ $0.joined(separator: ".") }).sorted(by: codePointOrder) {
            bytes += Array(constraint.utf8)
        }
        return SHA2.sha256(bytes)
    }

    /// name | u16 flags (1 optional, 2 transient, 4 read-only) | [versionHashModifier].
    private static func property(_ name: String, isOptional: Bool, modifier: String?) -> [UInt8] {
        var bytes = Array(name.utf8)
        bytes += le(UInt16(isOptional ? 1 : 0))
        if let modifier { bytes += Array(modifier.utf8) }
        return bytes
    }

    static func hash(of attribute: Attribute) -> [UInt8] {
        var bytes = SHA2.sha256(property(attribute.name, isOptional: attribute.isOptional, modifier: attribute.versionHashModifier))
        bytes += le(Int32(typeCode(attribute.type)))
        if attribute.allowsExternalBinaryDataStorage { bytes.append(1) }
        if attribute.preservesValueInHistoryOnDeletion { bytes.append(1) }
        return SHA2.sha256(bytes)
    }

    static func hash(of relationship: Relationship) -> [UInt8] {
        var bytes = SHA2.sha256(property(relationship.name, isOptional: relationship.isOptional, modifier: relationship.versionHashModifier))
        bytes += Array(relationship.destination.utf8)
        // A relationship that is its own inverse does not name it.
        if let inverse = relationship.inverse, inverse != relationship.name {
            bytes += Array(inverse.utf8)
        }
        // Core Data hashes the counts as 32-bit integers: a model built in code with
        // `maxCount = .max` hashes -1 (CoreDataPlus's SampleModel2 store, Author.books).
        bytes += le(Int32(truncatingIfNeeded: relationship.maxCount ?? (relationship.isToMany ? 0 : 1)))
        bytes += le(Int32(truncatingIfNeeded: relationship.minCount ?? 0))
        if relationship.isOrdered { bytes += le(UInt16(1)) }
        return SHA2.sha256(bytes)
    }

    /// NSAttributeType's raw values.
    static func typeCode(_ type: AttributeType) -> Int {
        switch type {
        case .integer16: return 100
        case .integer32: return 200
        case .integer64: return 300
        case .decimal: return 400
        case .double: return 500
        case .float: return 600
        case .string: return 700
        case .boolean: return 800
        case .date: return 900
        case .binary: return 1000
        case .uuid: return 1100
        case .uri: return 1200
        case .transformable: return 1800
        }
    }

    /// The attribute type of an NSAttributeType raw value (nil: one etl does not know).
    static func attributeType(code: Int) -> AttributeType? {
        AttributeType.allCases.first { typeCode($0) == code }
    }

    private static func le<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.littleEndian) { Array($0) }
    }
}

/// A model whose version hashes cannot be computed with certainty.
public struct VersionHashError: Error, CustomStringConvertible, Equatable {
    public var entity: String
    public var reason: String

    public var description: String {
        "cannot compute the version hash of entity \(entity): \(reason). "
            + "Give the destination a \"template\": an empty store the app created at this version"
    }
}
