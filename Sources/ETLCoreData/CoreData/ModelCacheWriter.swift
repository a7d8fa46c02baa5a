import ETLStore
import ETLModel

/// Writes the model a store keeps in `Z_MODELCACHE.Z_CONTENT` as Core Data writes it: the
/// `NSManagedObjectModel` archived with `NSKeyedArchiver`, raw-deflated (facts §6). After a
/// migration it is the destination model; `ModelCache` reads it back to the same model and
/// version hashes, so that the next hop (`"modelFrom"`, a source without a model, `etl model
/// from-store`) can start from it.
///
///     let blob = try ModelCacheWriter.content(of: model, versionIdentifiers: [""])
///
/// The classes, keys and shape are those of the caches in the corpus (fw 1048-style):
/// - root `NSManagedObjectModel` {`NSEntities`, `NSVersionIdentifiers` (NSSet),
///   `NSFetchRequestTemplates` $null};
/// - `NSEntities` an `NSKnownKeysDictionary1`: `values` parallel to `searchMapping.keys`, the
///   entity names in code-point order;
/// - each `NSEntityDescription` lists in `NSProperties` its own properties and copies of the
///   inherited ones (each copy naming this entity), `NSSubentities` by name, `NSSuperentity`;
/// - an indexed attribute is `NSIsIndexed` and gets a fetch index named after it, a compound
///   index a fetch index named `a_b` and an entry of `NSCompoundIndexes` (as fw ≥ 847 compiles
///   a model, §4), beside the model's own fetch indexes;
/// - booleans are written only when YES, as Core Data does.
///
/// What a `Model` does not hold is written as Core Data's default: the class name is the
/// entity's name, delete rules Nullify, no user info, no transformer name; `_P` (a private
/// flag word) as Core Data writes it for most properties (241, 243 when optional, + 0x400
/// when ordered).
public enum ModelCacheWriter {
    /// Why a model cannot be archived: a derived attribute whose expression etl cannot write.
    public struct Unwritable: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { reason }
    }

    /// The bytes of `Z_MODELCACHE.Z_CONTENT` for `model`, listing `versionIdentifiers` (the
    /// metadata's `NSStoreModelVersionIdentifiers`, which Core Data's archive always equals).
    /// Made once per model in a process (`MadeModelCaches`).
    public static func content(of model: Model, versionIdentifiers: [String]) throws -> [UInt8] {
        try MadeModelCaches.shared.content(of: model, versionIdentifiers: versionIdentifiers) {
            try RawDeflate.deflate(archive(of: model, versionIdentifiers: versionIdentifiers))
        }
    }

    /// The keyed archive of `model`, not compressed.
    static func archive(of model: Model, versionIdentifiers: [String]) throws -> [UInt8] {
        var writer = Writer(model: model)
        return try writer.archive(versionIdentifiers: versionIdentifiers)
    }

    private struct Writer {
        let model: Model
        var archiver = KeyedArchiver()
        var entitySlots: [String: KeyedArchiver.UID] = [:]
        /// "Entity.property" (the entity whose NSProperties lists it) → its slot.
        var propertySlots: [String: KeyedArchiver.UID] = [:]

        init(model: Model) { self.model = model }

        mutating func archive(versionIdentifiers: [String]) throws -> [UInt8] {
            let root = archiver.reserve()
            let names = model.entities.map(\.name).sorted()
            for name in names { entitySlots[name] = archiver.reserve() }
            for name in names {
                for property in propertyNames(of: name) { propertySlots["\(name).\(property)"] = archiver.reserve() }
            }
            let keys = archiver.array(names.map { archiver.string($0) }, "NSArray")
            let mapping = archiver.object("NSKnownKeysMappingStrategy1", ["keys": keys, "length": names.count, "version": 1])
            let token = archiver.string("__empty_slot_token_4c24_98dc_ac1e_b773__")
            let values = archiver.array(names.map { entitySlots[$0]! }, "NSArray")
            let entities = archiver.object("NSKnownKeysDictionary1", ["values": values, "searchMapping": mapping, "emptyToken": token, "version": 1])
            for name in names { try entity(name, root: root) }
            let identifiers = archiver.array(versionIdentifiers.sorted().map { archiver.string($0) }, "NSSet")
            archiver.fill(root, "NSManagedObjectModel", ["NSEntities": entities, "NSVersionIdentifiers": identifiers,
                                                          "NSFetchRequestTemplates": KeyedArchiver.null])
            return try archiver.encoded(root: root)
        }

        /// The stored properties `NSProperties` lists for an entity: its own and its parents'.
        func propertyNames(of entity: String) -> [String] {
            (model.attributes(of: entity).map(\.name) + model.relationships(of: entity).map(\.name)).sorted()
        }

        mutating func entity(_ name: String, root: KeyedArchiver.UID) throws {
            let entity = model.entity(named: name)!
            let slot = entitySlots[name]!
            let properties = propertyNames(of: name)
            for property in properties { try self.property(property, of: name) }
            let children = model.entities.filter { $0.parent == name }.map(\.name).sorted()
            var fields: [String: Any] = [
                "NSEntityName": archiver.string(name),
                "NSClassNameForEntity": archiver.string(name),
                "NSSuperentity": entity.parent.flatMap { entitySlots[$0] } ?? KeyedArchiver.null,
                "NSSubentities": archiver.dictionary(children.map { archiver.string($0) }, children.map { entitySlots[$0]! }, "NSMutableDictionary"),
                "NSProperties": archiver.dictionary(properties.map { archiver.string($0) }, properties.map { propertySlots["\(name).\($0)"]! },
                                                    "NSMutableDictionary"),
                "NSVersionHashModifier": archiver.string(entity.versionHashModifier),
                "NSRenamingIdentifier": archiver.string(entity.renamingIdentifier ?? name),
                "NSUserInfo": archiver.dictionary([], [], "NSDictionary"),
                "NSManagedObjectModel": root,
            ]
            if entity.isAbstract { fields["NSIsAbstract"] = true }
            if !entity.uniquenessConstraints.isEmpty {
                fields["NSUniqueTuples"] = nameLists(entity.uniquenessConstraints)
            }
            // As fw ≥ 847 compiles a model (facts §4): the model's fetch indexes, one named after
            // each indexed attribute (a one-element fetch index marks its attribute indexed) and
            // one per compound index; the compound indexes also list the multi-element fetch indexes.
            var indexes = entity.fetchIndexes
            for attribute in indexedAttributes(of: entity) where !indexes.contains(where: { $0.name == attribute }) {
                indexes.append(FetchIndex(name: attribute, elements: [FetchIndex.Element(property: attribute)]))
            }
            for compound in entity.compoundIndexes where !compound.isEmpty {
                let name = compound.joined(separator: "_")
                if !indexes.contains(where: { $0.name == name }) {
                    indexes.append(FetchIndex(name: name, elements: compound.map { FetchIndex.Element(property: $0) }))
                }
            }
            var compounds: [[String]] = []
            for list in entity.compoundIndexes.filter({ !$0.isEmpty }) + entity.fetchIndexes.filter({ $0.elements.count > 1 }).map({ $0.elements.map(\.property) })
            where !compounds.contains(list) {
                compounds.append(list)
            }
            fields["NSCompoundIndexes"] = nameLists(compounds)
            var indexSlots: [KeyedArchiver.UID] = []
            for index in indexes {
                let indexSlot = archiver.reserve()
                var elements: [KeyedArchiver.UID] = []
                for element in index.elements {
                    var elementFields: [String: Any] = ["NSPropertyName": archiver.string(element.property), "NSFetchIndexElementType": 0,
                                                        "NSFetchIndexDescription": indexSlot]
                    if element.isAscending { elementFields["NSAscending"] = true }
                    elements.append(archiver.object("NSFetchIndexElementDescription", elementFields))
                }
                archiver.fill(indexSlot, "NSFetchIndexDescription", [
                    "NSIndexName": archiver.string(index.name), "NSIndexElements": archiver.array(elements, "NSArray"),
                    "NSPartialIndexPredicate": KeyedArchiver.null, "NSEntity": slot,
                ])
                indexSlots.append(indexSlot)
            }
            fields["NSFetchIndexDescriptions"] = archiver.array(indexSlots, "NSMutableArray")
            archiver.fill(slot, "NSEntityDescription", fields)
        }

        /// Attributes Core Data marks `NSIsIndexed`: `indexed="YES"`, and the one of each
        /// ascending one-element fetch index.
        func indexedAttributes(of entity: Entity) -> [String] {
            var names = entity.attributes.filter(\.isIndexed).map(\.name)
            for index in entity.fetchIndexes where index.elements.count == 1 && index.elements[0].isAscending {
                let property = index.elements[0].property
                if !names.contains(property), entity.attributes.contains(where: { $0.name == property }) { names.append(property) }
            }
            return names
        }

        mutating func nameLists(_ lists: [[String]]) -> KeyedArchiver.UID {
            let inner = lists.map { list in archiver.array(list.map { archiver.string($0) }, "NSMutableArray") }
            return archiver.array(inner, "NSMutableArray")
        }

        mutating func property(_ name: String, of entityName: String) throws {
            let slot = propertySlots["\(entityName).\(name)"]!
            let declaring = CoreDataNames.declaring(name, from: entityName, model)
            let owner = model.entity(named: declaring)!
            var fields: [String: Any] = [
                "NSPropertyName": archiver.string(name),
                "NSEntity": entitySlots[entityName]!,
            ]
            if let attribute = owner.attributes.first(where: { $0.name == name }) {
                fields["NSAttributeType"] = VersionHashes.typeCode(attribute.type)
                fields["NSAttributeValueClassName"] = archiver.string(Self.valueClassName(attribute.type))
                fields["NSDefaultValue"] = defaultValue(attribute)
                fields["NSValueTransformerName"] = KeyedArchiver.null
                fields["NSFlagsKey"] = (attribute.allowsExternalBinaryDataStorage ? 4 : 0) | (attribute.preservesValueInHistoryOnDeletion ? 16 : 0)
                fields["NSRenamingIdentifier"] = archiver.string(attribute.renamingIdentifier ?? name)
                fields["_P"] = attribute.isOptional ? 243 : 241
                if attribute.isOptional { fields["NSIsOptional"] = true }
                if indexedAttributes(of: owner).contains(name) { fields["NSIsIndexed"] = true }
                if let modifier = attribute.versionHashModifier { fields["NSVersionHashModifier"] = archiver.string(modifier) }
                if let derivation = attribute.derivation {
                    fields["NSDerivationExpression"] = try expression(derivation, "\(declaring).\(name)")
                    fields["NSFilteringPredicate"] = KeyedArchiver.null
                    fields["NSIsReadOnly"] = true
                    archiver.fill(slot, "NSDerivedAttributeDescription", fields)
                } else {
                    archiver.fill(slot, "NSAttributeDescription", fields)
                }
                return
            }
            let r = owner.relationships.first { $0.name == name }!
            fields["_NSDestinationEntityName"] = archiver.string(r.destination)
            fields["NSDestinationEntity"] = entitySlots[r.destination] ?? KeyedArchiver.null
            fields["_NSInverseRelationshipName"] = archiver.string(r.inverse)
            fields["NSInverseRelationship"] = r.inverse.flatMap { inverse in
                propertySlots["\(CoreDataNames.declaring(inverse, from: r.destination, model)).\(inverse)"]
            } ?? KeyedArchiver.null
            // Unbounded to-many: 0; `maxCount = .max` of a model built in code: NSUIntegerMax, read as -1.
            let maxCount = r.isToMany ? (r.maxCount ?? 0) : (r.maxCount ?? 1)
            fields["NSMaxCount"] = maxCount == Int.max ? -1 : maxCount
            fields["NSMinCount"] = r.minCount ?? 0
            fields["NSDeleteRule"] = 1
            fields["NSRenamingIdentifier"] = archiver.string(r.renamingIdentifier ?? name)
            fields["_P"] = (r.isOptional ? 243 : 241) | (r.isOrdered ? 0x400 : 0)
            if r.isOptional { fields["NSIsOptional"] = true }
            if r.isOrdered { fields["NSIsOrdered"] = true }
            if let modifier = r.versionHashModifier { fields["NSVersionHashModifier"] = archiver.string(modifier) }
            archiver.fill(slot, "NSRelationshipDescription", fields)
        }

        /// The class of the values of an attribute type (`NSAttributeValueClassName`); nil
        /// (`$null`) for a transformable.
        static func valueClassName(_ type: AttributeType) -> String? {
            switch type {
            case .integer16, .integer32, .integer64, .double, .float, .boolean: return "NSNumber"
            case .decimal: return "NSDecimalNumber"
            case .string: return "NSString"
            case .date: return "NSDate"
            case .binary: return "NSData"
            case .uuid: return "NSUUID"
            case .uri: return "NSURL"
            case .transformable: return nil
            }
        }

        /// The default as Core Data archives it: a number, a boolean, a string, a date.
        mutating func defaultValue(_ attribute: Attribute) -> Any {
            guard let value = attribute.defaultValue else { return KeyedArchiver.null }
            switch (attribute.type, value) {
            case (.boolean, .integer(let i)): return i != 0
            case (.date, .real(let seconds)):
                return archiver.object("NSDate", ["NS.time": seconds - 978_307_200])
            case (.date, .integer(let seconds)):
                return archiver.object("NSDate", ["NS.time": Double(seconds) - 978_307_200])
            case (_, .integer(let i)): return Int(i)
            case (_, .real(let d)): return d
            case (_, .text(let s)): return archiver.string(s)
            default: return KeyedArchiver.null
            }
        }

        /// A derivation as Core Data compiles it: `a.b.@count` is `count:` (of a constant
        /// operand) over the key path `SELF.a.b`; `a.b` the key path itself.
        mutating func expression(_ derivation: String, _ place: String) throws -> KeyedArchiver.UID {
            let isCount = derivation.hasSuffix(".@count")
            let path = isCount ? String(derivation.dropLast(".@count".count)) : derivation
            guard !path.isEmpty, path.split(separator: ".", omittingEmptySubsequences: false).allSatisfy({ part in
                !part.isEmpty && part.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }
            }) else {
                throw Unwritable(reason: "attribute \(place) is derived as '\(derivation)', which etl cannot archive (only a key path, or a key path's @count)")
            }
            let evaluated = archiver.object("NSSelfExpression", ["NSExpressionType": 1])
            let specifier = archiver.object("NSKeyPathSpecifierExpression", ["NSExpressionType": 10, "NSKeyPath": archiver.string(path)])
            let keyPath = archiver.object("NSKeyPathExpression", [
                "NSExpressionType": 3, "NSOperand": evaluated, "NSSelectorName": archiver.string("valueForKeyPath:"),
                "NSArguments": archiver.array([specifier], "NSArray"),
            ])
            guard isCount else { return keyPath }
            let utilities = archiver.object("NSConstantValueExpression", ["NSExpressionType": 0,
                                                                          "NSConstantValueClassName": archiver.string("_NSPredicateUtilities")])
            return archiver.object("NSFunctionExpression", [
                "NSExpressionType": 4, "NSOperand": utilities, "NSSelectorName": archiver.string("count:"),
                "NSArguments": archiver.array([keyPath], "NSArray"),
            ])
        }
    }
}
