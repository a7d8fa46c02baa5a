import ETLStore
import ETLModel

/// The model a Core Data store keeps in itself: `Z_MODELCACHE.Z_CONTENT`, the
/// `NSManagedObjectModel` that wrote the store (after a migration, the destination model),
/// archived with `NSKeyedArchiver` and compressed as raw deflate
/// (../shared/docs/coredata-layout-facts.md §6).
///
///     if let model = try ModelCache.read(db, version: "Bookmarks 5") { … }
///
/// What is read is what `XCDataModelReader` reads from an Xcode model, so that the two give
/// equal models for the same version: entities (parent, abstract, renaming identifier, hash
/// modifier, uniqueness constraints, fetch indexes), stored attributes (type, optional,
/// default, renaming identifier, hash modifier, external storage, preserve after deletion,
/// derivation) and stored relationships (destination, inverse, to-many, ordered, optional,
/// counts, renaming identifier, hash modifier). Transient properties are skipped (never
/// stored) and so are fetched properties; delete rules have no place in `Model`. Core Data
/// archives a fetch index of its own for every indexed attribute and compound index (§4 of
/// the facts): these are kept as fetch indexes (they make the same SQLite indexes), except
/// the twin of a one-element fetch index, which the model file does not declare, and those of
/// an `indexed="YES"` attribute or a compound index, read back as the model file says them
/// (`ModelCacheWriter` writes them so).
///
/// The archive is untrusted: it inflates to 64 MiB at most, its graph (with cycles: every
/// property names its entity) is followed by reference, never expanded, and every error
/// names the store and the object (`CoreDataStoreError`).
public enum ModelCache {
    /// 64 MiB: Core Data's model caches inflate to 64 KB at most in the corpus.
    public static let inflatedLimit = 64 << 20

    /// The store's cached model, or nil when it has no `Z_MODELCACHE` (stores of Core Data
    /// before about 2017) or the table is empty.
    public static func read(_ db: Database, version: String, inflatedLimit: Int = ModelCache.inflatedLimit,
                            bounds: Bounds = Bounds()) throws -> Model? {
        guard try db.table(named: "Z_MODELCACHE") != nil else { return nil }
        guard let row = try db.rows("SELECT Z_CONTENT FROM Z_MODELCACHE LIMIT 1").first else { return nil }
        guard case .blob(let bytes) = row[0] else {
            throw CoreDataStoreError(store: db.path, "Z_MODELCACHE.Z_CONTENT is not a blob")
        }
        return try model(content: bytes, version: version, store: db.path, inflatedLimit: inflatedLimit, bounds: bounds)
    }

    /// The model in the bytes of `Z_MODELCACHE.Z_CONTENT`; `store` names them in errors.
    public static func model(content: [UInt8], version: String, store: String,
                             inflatedLimit: Int = ModelCache.inflatedLimit, bounds: Bounds = Bounds()) throws -> Model {
        let archive: [UInt8]
        do {
            archive = try RawDeflate.inflate(content, limit: inflatedLimit)
        } catch let failure as RawDeflate.Failure {
            throw CoreDataStoreError(store: store, "Z_MODELCACHE: \(failure.reason)")
        }
        do {
            return try Reader(graph: ArchiveGraph(archive), bounds: bounds).model(version: version)
        } catch let oversized as Oversized {
            throw CoreDataStoreError(store: store, "Z_MODELCACHE is refused: \(oversized.reason)")
        } catch let malformed as ArchiveGraph.Malformed {
            throw CoreDataStoreError(store: store, "Z_MODELCACHE is not a readable model: \(malformed.reason)")
        }
    }

    /// What the XML reader checks across entities, for a model whose archive was not
    /// written by Core Data: no inheritance cycle (hashes recurse through parents),
    /// inverses that exist, indexes and constraints of stored properties; and the bounds
    /// (`Bounds`) on its inheritance depth and its properties, inherited ones counted.
    ///
    /// Each entity's depth and property count is worked out once from its parent's, so the
    /// check is linear in the entities and the properties, however deep the chains.
    static func check(_ model: Model, bounds: Bounds = Bounds()) throws {
        // Entity → (levels above it, properties with its inherited ones).
        var known: [String: (depth: Int, properties: Int)] = [:]
        var properties = 0
        for entity in model.entities {
            var chain: [Entity] = []
            var onChain: Set<String> = []
            var above = (depth: -1, properties: 0)
            var next: Entity? = entity
            while let current = next {
                if let found = known[current.name] { above = found; break }
                guard onChain.insert(current.name).inserted else {
                    throw ArchiveGraph.Malformed(reason: "entity \(current.name) is its own ancestor")
                }
                chain.append(current)
                next = current.parent.flatMap { model.entity(named: $0) }
            }
            for current in chain.reversed() {
                above = (above.depth + 1, above.properties + current.attributes.count + current.relationships.count)
                guard above.depth <= bounds.depth else {
                    throw Oversized(reason: "entity \(current.name) has \(above.depth) ancestors, more than the \(bounds.depth) etl reads")
                }
                known[current.name] = above
            }
            properties += known[entity.name]?.properties ?? 0
            guard properties <= bounds.properties else {
                throw Oversized(reason: "its entities have more than \(bounds.properties) properties (each entity's inherited ones counted with its own), the most etl reads")
            }
        }
        // Relationship names by entity, inherited ones included, each set made once.
        var relationshipNames: [String: Set<String>] = [:]
        func hasRelationship(_ name: String, _ entity: String) -> Bool {
            if let names = relationshipNames[entity] { return names.contains(name) }
            let names = Set(model.relationships(of: entity).map(\.name))
            relationshipNames[entity] = names
            return names.contains(name)
        }
        for entity in model.entities {
            for r in entity.relationships {
                if let inverse = r.inverse, !hasRelationship(inverse, r.destination) {
                    throw ArchiveGraph.Malformed(reason: "relationship \(entity.name).\(r.name): its inverse \(inverse) is not a relationship of \(r.destination)")
                }
            }
            let named = entity.fetchIndexes.flatMap({ $0.elements.map(\.property) }) + entity.uniquenessConstraints.joined()
            guard !named.isEmpty else { continue }
            let stored = Set(model.attributes(of: entity.name).map(\.name) + model.relationships(of: entity.name).filter { !$0.isToMany }.map(\.name))
            for property in named where !stored.contains(property) {
                throw ArchiveGraph.Malformed(reason: "entity \(entity.name): an index or uniqueness constraint names \(property), not a stored attribute or to-one of it")
            }
        }
    }

    /// How large a kept model etl reads. Core Data's own are far smaller (the corpus's
    /// largest: 15 entities, 2 levels, 120 properties); a crafted one of 20,000 entities,
    /// each the sub-entity of the one before, is refused by these instead of being worked on
    /// for minutes (issue 45).
    public struct Bounds: Sendable, Equatable {
        /// Entities in the model.
        public var entities = 10_000
        /// Properties of every entity, each entity's inherited ones counted with its own
        /// (what its version hash and its table cover).
        public var properties = 200_000
        /// Ancestors of one entity.
        public var depth = 100

        public init() {}
    }

    /// A kept model over `Bounds`.
    struct Oversized: Error, CustomStringConvertible, Sendable {
        var reason: String
        var description: String { reason }
    }

    private struct Reader {
        let graph: ArchiveGraph
        let bounds: Bounds
        typealias Object = [String: PropertyListValue]

        func model(version: String) throws -> Model {
            let root = try graph.root()
            guard try graph.className(root) == "NSManagedObjectModel" else {
                throw ArchiveGraph.Malformed(reason: "the root is a \(try graph.className(root)), not an NSManagedObjectModel")
            }
            // NSKnownKeysDictionary1: `values`, the entities (each names itself); a plain
            // NSDictionary of name → entity otherwise.
            let known = try graph.object(graph.field(root, "NSEntities", "the model"), "the model's NSEntities")
            let objects: [Object]
            if let values = known["values"] {
                objects = try graph.elements(values, "NSEntities.values").map { try graph.object($0, "an entity") }
            } else {
                objects = try graph.dictionary(root, "NSEntities", "the model").sorted { $0.key < $1.key }.map { try graph.object($0.value, "entity \($0.key)") }
            }
            guard objects.count <= bounds.entities else {
                throw Oversized(reason: "it holds \(objects.count) entities, more than the \(bounds.entities) etl reads")
            }
            var entities: [(name: String, object: Object)] = []
            for object in objects {
                entities.append((try graph.string(object, "NSEntityName", "an entity"), object))
            }
            let names = Set(entities.map(\.name))
            guard names.count == entities.count else { throw ArchiveGraph.Malformed(reason: "an entity name appears twice") }
            var result: [Entity] = []
            // The archive lists each entity's inherited properties with its own: counted as
            // they are read, so an archive over the bound is not read whole first.
            var properties = 0
            for (name, object) in entities.sorted(by: { $0.name < $1.name }) {
                result.append(try entity(name, object, names: names, properties: &properties))
            }
            var identifiers: [String] = []
            if let set = root["NSVersionIdentifiers"], try graph.deref(set) != .null {
                identifiers = try graph.elements(set, "NSVersionIdentifiers").map { try graph.text($0, "a version identifier") }.sorted()
            }
            let model = Model(version: version, entities: result, versionIdentifiers: identifiers)
            try ModelCache.check(model, bounds: bounds)
            return model
        }

        private func entity(_ name: String, _ object: Object, names: Set<String>, properties: inout Int) throws -> Entity {
            let place = "entity \(name)"
            var entity = Entity(name: name, isAbstract: try graph.bool(object["NSIsAbstract"], place))
            var inherited: Set<String> = []
            if let reference = object["NSSuperentity"], try graph.deref(reference) != .null {
                let parent = try graph.object(reference, "\(place): NSSuperentity")
                let parentName = try graph.string(parent, "NSEntityName", "\(place)'s parent")
                guard names.contains(parentName), parentName != name else {
                    throw ArchiveGraph.Malformed(reason: "\(place): its parent \(parentName) is not an entity of the model")
                }
                entity.parent = parentName
                inherited = Set(try graph.dictionary(parent, "NSProperties", "entity \(parentName)").keys)
            }
            entity.renamingIdentifier = try renamingIdentifier(object, name: name, place)
            entity.versionHashModifier = try graph.optionalText(object["NSVersionHashModifier"], place)
            entity.uniquenessConstraints = try nameLists(object["NSUniqueTuples"], "\(place): NSUniqueTuples")
            entity.fetchIndexes = try fetchIndexes(object, place)
            // A fetch index of one element marks its attribute indexed, and Core Data archives
            // an index for each indexed attribute, named after it: the twin is not the model's.
            let singles = Set(entity.fetchIndexes.filter { $0.elements.count == 1 && $0.name != $0.elements[0].property }
                .map { "\($0.elements[0].isAscending) \($0.elements[0].property)" })
            entity.fetchIndexes.removeAll { $0.elements.count == 1 && $0.name == $0.elements[0].property
                && singles.contains("\($0.elements[0].isAscending) \($0.elements[0].property)") }
            // NSProperties includes what the parents declare: a property is the entity's own
            // when its parent does not list it.
            let listed = try graph.dictionary(object, "NSProperties", place)
            properties += listed.count
            guard properties <= bounds.properties else {
                throw Oversized(reason: "its entities have more than \(bounds.properties) properties (each entity's inherited ones counted with its own), the most etl reads")
            }
            for (property, reference) in listed.sorted(by: { $0.key < $1.key })
            where !inherited.contains(property) {
                let here = "\(name).\(property)"
                var description = try graph.object(reference, here)
                var className = try graph.className(description)
                if className == "_NSPropertyDescriptionProxy" {
                    description = try graph.object(graph.field(description, "NSUnderlyingProperty", here), here)
                    className = try graph.className(description)
                }
                guard !(try graph.bool(description["NSIsTransient"], here)) else { continue }
                switch className {
                case "NSAttributeDescription", "NSDerivedAttributeDescription":
                    entity.attributes.append(try attribute(property, description, derived: className == "NSDerivedAttributeDescription", here))
                case "NSRelationshipDescription":
                    let relationship = try relationship(property, description, here)
                    guard names.contains(relationship.destination) else {
                        throw ArchiveGraph.Malformed(reason: "relationship \(here): its destination \(relationship.destination) is not an entity of the model")
                    }
                    entity.relationships.append(relationship)
                case "NSFetchedPropertyDescription":
                    continue
                default:
                    throw ArchiveGraph.Malformed(reason: "property \(here) is a \(className), which etl does not know")
                }
            }
            // `indexed="YES"` and compound indexes come back as the model file says them: Core
            // Data archives each as a fetch index of its own (named after the attribute, or the
            // names joined by "_"), beside `NSIsIndexed` and `NSCompoundIndexes`.
            func ownIndex(_ properties: [String]) -> Int? {
                entity.fetchIndexes.firstIndex { $0.name == properties.joined(separator: "_")
                    && $0.elements == properties.map { FetchIndex.Element(property: $0) } }
            }
            for i in entity.attributes.indices where entity.attributes[i].isIndexed {
                let index = ownIndex([entity.attributes[i].name])
                entity.attributes[i].isIndexed = index != nil
                if let index { entity.fetchIndexes.remove(at: index) }
            }
            for compound in try nameLists(object["NSCompoundIndexes"], "\(place): NSCompoundIndexes") where compound.count > 1 {
                guard let index = ownIndex(compound) else { continue }
                entity.fetchIndexes.remove(at: index)
                entity.compoundIndexes.append(compound)
            }
            return entity
        }

        /// Core Data archives the name as the renaming identifier when none was set (the
        /// XML's `elementID` is then absent): only one that differs is kept.
        private func renamingIdentifier(_ object: Object, name: String, _ place: String) throws -> String? {
            guard let identifier = try graph.optionalText(object["NSRenamingIdentifier"], place), identifier != name, !identifier.isEmpty else { return nil }
            return identifier
        }

        private func attribute(_ name: String, _ object: Object, derived: Bool, _ place: String) throws -> Attribute {
            let code = try graph.int(object["NSAttributeType"], "attribute \(place): NSAttributeType") ?? 0
            guard let type = VersionHashes.attributeType(code: code) else {
                throw ArchiveGraph.Malformed(reason: "attribute \(place) has the attribute type \(code), which etl does not know")
            }
            var attribute = Attribute(name: name, type: type, isOptional: try graph.bool(object["NSIsOptional"], place),
                                      renamingIdentifier: try renamingIdentifier(object, name: name, place))
            attribute.versionHashModifier = try graph.optionalText(object["NSVersionHashModifier"], place)
            attribute.isIndexed = try graph.bool(object["NSIsIndexed"], place)
            let flags = try graph.int(object["NSFlagsKey"], "attribute \(place): NSFlagsKey") ?? 0
            attribute.allowsExternalBinaryDataStorage = flags & 4 != 0
            attribute.preservesValueInHistoryOnDeletion = flags & 16 != 0
            attribute.defaultValue = try defaultValue(object["NSDefaultValue"], type: type, place)
            if derived {
                attribute.derivation = try derivation(object["NSDerivationExpression"], place)
            }
            return attribute
        }

        /// The default as the model file's reader makes it: booleans and integers as
        /// integers, reals as reals (a date: seconds since 1970), text as text.
        private func defaultValue(_ value: PropertyListValue?, type: AttributeType, _ place: String) throws -> SQLValue? {
            guard let value else { return nil }
            switch try graph.deref(value) {
            case .null: return nil
            case .bool(let b): return .integer(b ? 1 : 0)
            case .integer(let i): return type.isInteger || type == .boolean ? .integer(i) : .real(Double(i))
            case .real(let d): return type.isInteger || type == .boolean ? .integer(Int64(d)) : .real(d)
            case .string(let s): return type.parseDefault(s)
            case .dictionary(let object):
                switch try graph.className(object) {
                case "NSDate":
                    guard case .real(let seconds)? = try object["NS.time"].map(graph.deref) else {
                        throw ArchiveGraph.Malformed(reason: "attribute \(place): a default date without NS.time")
                    }
                    return .real(seconds + 978_307_200)
                case "NSString", "NSMutableString":
                    return type.parseDefault(try graph.text(value, place))
                default:
                    // A decimal number, a UUID, a value of a transformable: not a default the
                    // model type holds.
                    return nil
                }
            default: return nil
            }
        }

        /// The derivation as the XML's `derivationExpression` writes it ("pages.@count").
        private func derivation(_ value: PropertyListValue?, _ place: String) throws -> String {
            guard let value, try graph.deref(value) != .null else { return "" }
            let expression: ArchivedExpression
            do {
                expression = try ArchivedExpression.decode(graph.tree(value))
            } catch let error as ArchivedExpression.Malformed {
                throw ArchiveGraph.Malformed(reason: "attribute \(place): its derivation: \(error.reason)")
            }
            // Core Data compiles "pages.@count" into `count:` (of no operand: a constant nil)
            // of the key path `SELF.pages`.
            if case .function(let operand, "count:", let arguments) = expression, operand == nil || operand == .constant(.null),
               arguments.count == 1, let path = keyPath(arguments[0]) {
                return path + ".@count"
            }
            if let path = keyPath(expression) { return path }
            return expression.description
        }

        /// "a.b" for the expression `SELF.a.b` (a key path of the object itself).
        private func keyPath(_ expression: ArchivedExpression) -> String? {
            guard case .function(.evaluatedObject?, let selector, let arguments) = expression,
                  selector == "valueForKeyPath:" || selector == "valueForKey:", arguments.count == 1 else { return nil }
            switch arguments[0] {
            case .keyPath(let path), .constant(.string(let path)): return path
            default: return nil
            }
        }

        private func relationship(_ name: String, _ object: Object, _ place: String) throws -> Relationship {
            let destination: String
            if let named = try graph.optionalText(object["_NSDestinationEntityName"], place) {
                destination = named
            } else {
                destination = try graph.string(graph.object(graph.field(object, "NSDestinationEntity", place), place), "NSEntityName", place)
            }
            var inverse = try graph.optionalText(object["_NSInverseRelationshipName"], place)
            if inverse == nil, let reference = object["NSInverseRelationship"], try graph.deref(reference) != .null {
                inverse = try graph.string(graph.object(reference, place), "NSPropertyName", place)
            }
            var maxCount = try graph.int(object["NSMaxCount"], "relationship \(place): NSMaxCount") ?? 0
            // A model built in code with `maxCount = .max` archives it as -1 (NSUIntegerMax):
            // the XML's largest count, which hashes the same (as a 32-bit -1).
            if maxCount < 0 { maxCount = Int.max }
            let minCount = try graph.int(object["NSMinCount"], "relationship \(place): NSMinCount") ?? 0
            // Counts as Xcode's XML says them: `maxCount="1"` for a to-one, none for an
            // unbounded to-many, `minCount` only when set.
            let isToMany = maxCount != 1
            var relationship = Relationship(
                name: name, destination: destination, inverse: inverse, isToMany: isToMany,
                isOrdered: try graph.bool(object["NSIsOrdered"], place), isOptional: try graph.bool(object["NSIsOptional"], place),
                minCount: minCount == 0 ? nil : minCount, maxCount: isToMany && maxCount == 0 ? nil : maxCount,
                renamingIdentifier: try renamingIdentifier(object, name: name, place))
            relationship.versionHashModifier = try graph.optionalText(object["NSVersionHashModifier"], place)
            return relationship
        }

        /// An array of arrays of names (uniqueness constraints).
        private func nameLists(_ value: PropertyListValue?, _ place: String) throws -> [[String]] {
            guard let value, try graph.deref(value) != .null else { return [] }
            return try graph.elements(value, place).map { list in
                try graph.elements(list, place).map { try graph.text($0, place) }
            }
        }

        private func fetchIndexes(_ object: Object, _ place: String) throws -> [FetchIndex] {
            guard let value = object["NSFetchIndexDescriptions"], try graph.deref(value) != .null else { return [] }
            var indexes: [FetchIndex] = []
            for reference in try graph.elements(value, "\(place): NSFetchIndexDescriptions") {
                let index = try graph.object(reference, "\(place): a fetch index")
                let name = try graph.string(index, "NSIndexName", "\(place): a fetch index")
                let here = "\(place): fetch index \(name)"
                var elements: [FetchIndex.Element] = []
                for element in try graph.elements(graph.field(index, "NSIndexElements", here), here) {
                    let element = try graph.object(element, here)
                    // 0 is an ordinary (binary) index; 1 an R-tree, which etl does not lay out.
                    let type = try graph.int(element["NSFetchIndexElementType"], here) ?? 0
                    guard type == 0 else { throw ArchiveGraph.Malformed(reason: "\(here) is not a binary index (type \(type)), which etl does not lay out") }
                    elements.append(FetchIndex.Element(property: try graph.string(element, "NSPropertyName", here),
                                                       isAscending: try graph.bool(element["NSAscending"], here)))
                }
                indexes.append(FetchIndex(name: name, elements: elements))
            }
            return indexes
        }
    }
}
