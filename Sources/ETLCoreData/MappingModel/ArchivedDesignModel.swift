import Foundation
import ETLModel

/// A model version as an Xcode mapping model archives it (`sourcemodeldata`,
/// `destinationmodeldata` in `xcmapping.xml`): Xcode's own design model (`XDPMModel`) in a
/// keyed archive, a graph of `XDPMEntity`, `XDPMAttribute` and `XDPMRelationship` objects
/// whose Core Data settings are "stereotype" properties (`XD_PAttK_attributeType`,
/// `XD_PPSK_isOptional`, `XD_PRK_destination`, `XDPMUniquenessConstraints`…).
///
/// Read here only for what a version hash covers (`VersionHashes`), so that a mapping model's
/// two models can be checked against a hop's versions by hash, not by the file names Xcode
/// recorded. Transient properties are left out, as the model reader does. Settings this
/// archive does not carry (`preserveAfterDeletion`, derived attributes) are not read: a
/// model with them is not checked by hash.
///
///     let model = try ArchivedDesignModel.model(archive: bytes, version: "SampleModel3")
///     try VersionHashes(model: model).entities["Car"]
public enum ArchivedDesignModel {
    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "not a readable archived Xcode model: \(reason)" }
    }

    public static func model(archive bytes: [UInt8], version: String) throws -> Model {
        let graph = try Graph(bytes)
        let package = try graph.object(graph.root, "_xd_rootPackage")
        var entities: [Entity] = []
        for (name, reference) in try graph.dictionary(package, "XDBucketForClassesstorage").sorted(by: { $0.key < $1.key }) {
            entities.append(try entity(name, reference, graph))
        }
        return Model(version: version, entities: entities)
    }

    private static func entity(_ name: String, _ reference: PropertyListValue, _ graph: Graph) throws -> Entity {
        let object = try graph.resolve(reference)
        let settings = try graph.stereotype(object, "XD_PStereotype")
        var entity = Entity(name: name, isAbstract: try graph.bool(settings["XD_PSK_isAbstract"]))
        if let general = try graph.array(object, "XDBucketForGeneralizationsstorage").first {
            entity.parent = try graph.string(graph.resolve(graph.field(graph.resolve(general), "_general")), "_name")
        }
        entity.versionHashModifier = try graph.optionalString(settings["XD_PSK_versionHashModifier"])
        if let constraints = settings["XDPMUniquenessConstraints"] {
            entity.uniquenessConstraints = try graph.elements(constraints).map { try graph.elements($0).map { try graph.text($0) } }
        }
        for (property, reference) in try graph.dictionary(object, "XDBucketForOwnedAttributesstorage").sorted(by: { $0.key < $1.key }) {
            let object = try graph.resolve(reference)
            let common = try graph.stereotype(object, "XD_PPropStereotype")
            if try graph.bool(common["XD_PPSK_isTransient"]) { continue }
            let isOptional = try graph.bool(common["XD_PPSK_isOptional"])
            let modifier = try graph.optionalString(common["XD_PPSK_versionHashModifier"])
            switch try graph.className(object) {
            case "XDPMAttribute":
                let settings = try graph.stereotype(object, "XD_PAtt_Stereotype")
                guard case .integer(let code)? = try settings["XD_PAttK_attributeType"].map(graph.deref),
                      let type = VersionHashes.attributeType(code: Int(code)) else {
                    throw Malformed(reason: "attribute \(name).\(property) has an attribute type etl does not know")
                }
                var attribute = Attribute(name: property, type: type, isOptional: isOptional)
                attribute.versionHashModifier = modifier
                attribute.allowsExternalBinaryDataStorage = try graph.bool(settings["XD_PAttK_allowsExternalBinaryDataStorage"])
                entity.attributes.append(attribute)
            case "XDPMRelationship":
                let settings = try graph.stereotype(object, "XD_PR_Stereotype")
                guard let destination = settings["XD_PRK_destination"] else { throw Malformed(reason: "relationship \(name).\(property) without a destination") }
                let inverse = try settings["XD_PRK_inverseRelationship"].flatMap { value -> String? in
                    try graph.deref(value) == .null ? nil : try graph.string(graph.resolve(value), "_name")
                }
                var relationship = Relationship(name: property, destination: try graph.string(graph.resolve(destination), "_name"),
                                                inverse: inverse, isToMany: try graph.bool(settings["XD_PRK_isToMany"]),
                                                isOrdered: try graph.bool(settings["XD_PRK_ordered"]), isOptional: isOptional,
                                                minCount: try graph.int(settings["XD_PRK_minCount"]),
                                                maxCount: try graph.int(settings["XD_PRK_maxCount"]))
                relationship.versionHashModifier = modifier
                entity.relationships.append(relationship)
            case let other:
                throw Malformed(reason: "property \(name).\(property) is a \(other)")
            }
        }
        return entity
    }

    /// The archive's objects, followed by reference on demand: the design model is a graph
    /// with cycles (every property names its owner), which cannot be decoded as a tree.
    private struct Graph {
        let objects: [PropertyListValue]
        let root: PropertyListValue

        init(_ bytes: [UInt8]) throws {
            let plist: PropertyListValue
            do {
                plist = try BinaryPropertyList.read(bytes)
            } catch {
                throw Malformed(reason: "\(error)")
            }
            guard case .dictionary(let archive) = plist, archive["$archiver"] == .string("NSKeyedArchiver"),
                  case .array(let objects)? = archive["$objects"], case .dictionary(let top)? = archive["$top"],
                  let root = top["root"] else {
                throw Malformed(reason: "not an NSKeyedArchiver archive")
            }
            self.objects = objects
            self.root = root
        }

        /// The value a reference points at ("$null" read as null); other values as they are.
        func deref(_ value: PropertyListValue) throws -> PropertyListValue {
            guard case .uid(let index) = value else { return value }
            guard index < objects.count else { throw Malformed(reason: "reference \(index) to no object") }
            return objects[index] == .string("$null") ? .null : objects[index]
        }

        func resolve(_ value: PropertyListValue) throws -> [String: PropertyListValue] {
            guard case .dictionary(let fields) = try deref(value) else { throw Malformed(reason: "a reference to something that is not an object") }
            return fields
        }

        func className(_ object: [String: PropertyListValue]) throws -> String {
            guard let reference = object["$class"], case .string(let name)? = try resolve(reference)["$classname"] else {
                throw Malformed(reason: "an object without a class")
            }
            return name
        }

        func field(_ object: [String: PropertyListValue], _ key: String) throws -> PropertyListValue {
            guard let value = object[key] else { throw Malformed(reason: "\((try? className(object)) ?? "an object") without \(key)") }
            return value
        }

        func object(_ value: PropertyListValue, _ key: String) throws -> [String: PropertyListValue] {
            try resolve(field(resolve(value), key))
        }

        /// An NSArray/NSSet's elements (references).
        func elements(_ value: PropertyListValue) throws -> [PropertyListValue] {
            guard case .array(let elements)? = try resolve(value)["NS.objects"] else { throw Malformed(reason: "an array without NS.objects") }
            return elements
        }

        func array(_ object: [String: PropertyListValue], _ key: String) throws -> [PropertyListValue] {
            try elements(field(object, key))
        }

        /// An NSDictionary with string keys.
        func dictionary(_ object: [String: PropertyListValue], _ key: String) throws -> [String: PropertyListValue] {
            let dictionary = try resolve(field(object, key))
            guard case .array(let keys)? = dictionary["NS.keys"], case .array(let values)? = dictionary["NS.objects"], keys.count == values.count else {
                throw Malformed(reason: "\(key) is not a dictionary")
            }
            var result: [String: PropertyListValue] = [:]
            for (k, v) in zip(keys, values) { result[try text(k)] = v }
            return result
        }

        func dictionary(_ value: PropertyListValue, _ key: String) throws -> [String: PropertyListValue] {
            try dictionary(resolve(value), key)
        }

        /// A stereotype's settings, each the default value of its property.
        func stereotype(_ object: [String: PropertyListValue], _ name: String) throws -> [String: PropertyListValue] {
            guard let stereotype = try dictionary(object, "XDBucketForStereotypesstorage")[name] else {
                throw Malformed(reason: "\(try string(object, "_name")) has no \(name)")
            }
            return try dictionary(resolve(stereotype), "XDBucketForOwnedAttributesstorage").mapValues { try field(resolve($0), "_default") }
        }

        /// A string, or an `NSString` object's: followed by reference a few times at most,
        /// since a damaged archive's `NS.string` may refer to itself.
        func text(_ value: PropertyListValue) throws -> String {
            var value = value
            for _ in 0..<8 {
                switch try deref(value) {
                case .string(let s): return s
                case .dictionary(let fields):
                    if let string = fields["NS.string"] { value = string; continue }
                default: break
                }
                throw Malformed(reason: "\(Self.place(of: value)) is not text")
            }
            throw Malformed(reason: "\(Self.place(of: value)) is an NS.string that refers to NS.strings more than 8 deep (a cycle?)")
        }

        /// Where a value is, for an error: its object's index in `$objects`.
        static func place(of value: PropertyListValue) -> String {
            if case .uid(let index) = value { return "$objects[\(index)]" }
            return "a value"
        }

        func string(_ object: [String: PropertyListValue], _ key: String) throws -> String {
            try text(field(object, key))
        }

        func optionalString(_ value: PropertyListValue?) throws -> String? {
            guard let value, try deref(value) != .null else { return nil }
            return try text(value)
        }

        func bool(_ value: PropertyListValue?) throws -> Bool {
            switch try value.map(deref) {
            case nil, .null?: return false
            case .bool(let b)?: return b
            case .integer(let i)?: return i != 0
            default: throw Malformed(reason: "a value that is not a boolean")
            }
        }

        func int(_ value: PropertyListValue?) throws -> Int? {
            switch try value.map(deref) {
            case nil, .null?: return nil
            case .integer(let i)?: return Int(truncatingIfNeeded: i)
            default: throw Malformed(reason: "a value that is not an integer")
            }
        }
    }
}
