import Foundation

/// The bytes of a `Z_MODELCACHE.Z_CONTENT` no Core Data wrote: a keyed archive of an
/// `NSManagedObjectModel` built object by object (`PropertyListBuilder`), wrapped in raw
/// deflate's stored blocks (uncompressed: the reader inflates them as any deflate stream).
/// For tests of the kept-model reader on models of any size or shape.
///
///     let content = KeptModelArchive.content([.init(name: "A"), .init(name: "B", parent: "A")])
public enum KeptModelArchive {
    public struct EntitySpec: Sendable {
        public var name: String
        public var parent: String?
        /// Optional string attributes declared on this entity.
        public var attributes: [String]

        public init(name: String, parent: String? = nil, attributes: [String] = []) {
            self.name = name
            self.parent = parent
            self.attributes = attributes
        }
    }

    /// Each entity's `NSProperties` lists its inherited attributes with its own, as Core
    /// Data archives them.
    public static func content(_ entities: [EntitySpec]) -> [UInt8] {
        storedDeflate(archive(entities))
    }

    public static func archive(_ entities: [EntitySpec]) -> [UInt8] {
        var archive = Archive()
        _ = archive.member(archive.plist.string("$null"))
        let modelClass = archive.className("NSManagedObjectModel")
        let entityClass = archive.className("NSEntityDescription")
        let attributeClass = archive.className("NSAttributeDescription")
        let dictionaryClass = archive.className("NSDictionary")
        // Every entity's object first (reserved), so that parents can be named before they are written.
        var slots: [String: (plist: Int, member: UInt64)] = [:]
        for entity in entities {
            let plist = archive.plist.reserve()
            slots[entity.name] = (plist, archive.member(plist))
        }
        let byName = Dictionary(entities.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        var attributeUIDs: [String: [(name: UInt64, object: UInt64)]] = [:]
        func properties(of entity: EntitySpec, _ archive: inout Archive) -> [(name: UInt64, object: UInt64)] {
            if let known = attributeUIDs[entity.name] { return known }
            var list = entity.parent.flatMap { byName[$0] }.map { properties(of: $0, &archive) } ?? []
            for attribute in entity.attributes {
                let name = archive.text(attribute)
                let object = archive.object([("$class", attributeClass), ("NSPropertyName", name),
                                             ("NSAttributeType", archive.member(archive.plist.integer(700))),
                                             ("NSIsOptional", archive.member(archive.plist.integer(1)))])
                list.append((name, object))
            }
            attributeUIDs[entity.name] = list
            return list
        }
        for entity in entities {
            let listed = properties(of: entity, &archive)
            let dictionary = archive.object([("$class", dictionaryClass),
                                             ("NS.keys", UInt64.max), ("NS.objects", UInt64.max)],
                                            arrays: ["NS.keys": listed.map(\.name), "NS.objects": listed.map(\.object)])
            var fields: [(String, UInt64)] = [("$class", entityClass), ("NSEntityName", archive.text(entity.name)),
                                              ("NSProperties", dictionary)]
            if let parent = entity.parent, let slot = slots[parent] { fields.append(("NSSuperentity", slot.member)) }
            archive.plist.set(slots[entity.name]!.plist, archive.dictionaryBody(fields, arrays: [:]))
        }
        let names = entities.map { archive.text($0.name) }
        let all = archive.object([("$class", dictionaryClass), ("NS.keys", UInt64.max), ("NS.objects", UInt64.max)],
                                 arrays: ["NS.keys": names, "NS.objects": entities.map { slots[$0.name]!.member }])
        let root = archive.object([("$class", modelClass), ("NSEntities", all)])
        // (`PropertyListBuilder.keyedArchive` writes the root's UID in one byte.)
        let rootUID = archive.plist.uid(root, size: 4)
        let top = archive.plist.dictionary([(archive.plist.string("root"), rootUID)])
        let objects = archive.plist.array(archive.members)
        let pairs = [(archive.plist.string("$archiver"), archive.plist.string("NSKeyedArchiver")),
                     (archive.plist.string("$version"), archive.plist.integer(100000)),
                     (archive.plist.string("$top"), top), (archive.plist.string("$objects"), objects)]
        let whole = archive.plist.dictionary(pairs.map { (key: $0.0, value: $0.1) })
        return archive.plist.bytes(top: whole)
    }

    /// Raw deflate (no header) of stored blocks of at most 65,535 bytes.
    public static func storedDeflate(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var start = 0
        repeat {
            let end = min(start + 65_535, bytes.count)
            let length = UInt16(end - start)
            output.append(end == bytes.count ? 1 : 0)
            output += [UInt8(length & 0xFF), UInt8(length >> 8), UInt8(~length & 0xFF), UInt8(~length >> 8)]
            output += bytes[start..<end]
            start = end
        } while start < bytes.count
        return output
    }

    /// `$objects` and the plist objects behind them.
    private struct Archive {
        var plist = PropertyListBuilder(referenceSize: 4)
        var members: [Int] = []

        mutating func member(_ plistObject: Int) -> UInt64 {
            members.append(plistObject)
            return UInt64(members.count - 1)
        }

        mutating func text(_ string: String) -> UInt64 { member(plist.string(string)) }

        /// A class's info: `$classname` is a string in place, not a reference.
        mutating func className(_ name: String) -> UInt64 {
            let pair = (key: plist.string("$classname"), value: plist.string(name))
            return member(plist.dictionary([pair]))
        }

        /// A dictionary member whose values are UIDs; a value of `UInt64.max` takes its
        /// array of UIDs from `arrays`.
        mutating func object(_ fields: [(String, UInt64)], arrays: [String: [UInt64]] = [:]) -> UInt64 {
            member(plist.add(dictionaryBody(fields, arrays: arrays)))
        }

        mutating func dictionaryBody(_ fields: [(String, UInt64)], arrays: [String: [UInt64]]) -> [UInt8] {
            var pairs: [(key: Int, value: Int)] = []
            for (key, value) in fields {
                let keyObject = plist.string(key)
                if let array = arrays[key] {
                    let uids = array.map { plist.uid($0, size: 4) }
                    pairs.append((keyObject, plist.array(uids)))
                } else {
                    pairs.append((keyObject, plist.uid(value, size: 4)))
                }
            }
            return plist.dictionaryBody(pairs)
        }
    }
}
