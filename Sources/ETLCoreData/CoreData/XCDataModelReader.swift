import Foundation
import ETLModel
#if canImport(FoundationXML)
import FoundationXML
#endif
import ETLStore

/// Reads the XML of one Xcode model version (`Foo.xcdatamodel/contents`) into a `Model`.
///
/// What is read:
///
/// - `<model userDefinedModelVersionIdentifier=>` → `Model.versionIdentifiers`;
/// - `<entity name= parentEntity= isAbstract="YES" elementID=>` (`elementID` is the
///   renaming identifier);
/// - `<attribute name= attributeType= optional="YES" defaultValueString=
///   defaultDateTimeInterval= elementID=>`. Core Data writes `optional="YES"` only for
///   optional properties: a missing `optional` means required. Transient attributes
///   (`transient="YES"`) are skipped: Core Data never stores them.
/// - `<relationship name= destinationEntity= inverseName= toMany="YES" ordered="YES"
///   minCount= maxCount= optional= elementID=>`; `deletionRule` and `inverseEntity` are
///   accepted but not kept (the inverse is found by name on the destination). Transient
///   relationships are skipped too.
///
/// For version hashes and indexes: `versionHashModifier=` of entities and properties,
/// `allowsExternalBinaryDataStorage=`, `preserveAfterDeletion=` and `derived=` of attributes,
/// `<fetchIndex name=>` with its `<fetchIndexElement property= type="Binary" order=>`, and
/// `<uniquenessConstraints>` (each `<uniquenessConstraint>` a list of `<constraint value=>`),
/// `indexed=` of attributes and `<compoundIndexes>` (each `<compoundIndex>` a list of `<index value=>`).
///
/// Read as Core Data reads them: `defaultValueString="NO"`/`"YES"` on an integer attribute
/// is 0/1; a default on a Transformable attribute is ignored (no column gets it); a fetch
/// index element on a to-many relationship is left out (no column to index).
///
/// Everything else (`<elements>`, fetch requests, configurations, user info) is ignored.
///
/// A date default (`defaultDateTimeInterval`, seconds since 2001) becomes seconds since
/// 1970 in the model, like every date the pipeline handles; layouts convert when storing.
///
/// Errors are `DocumentError`s naming the file, the line and column (as XMLParser reports
/// them) and an XPath-like place such as `/model/entity[@name='Post']/attribute[@name='title']`.
final class XCDataModelReader: NSObject, XMLParserDelegate {
    /// The names model files use for attribute types.
    static let attributeTypes: [String: AttributeType] = [
        "Integer 16": .integer16, "Integer 32": .integer32, "Integer 64": .integer64,
        "Decimal": .decimal, "Double": .double, "Float": .float, "String": .string,
        "Boolean": .boolean, "Date": .date, "Binary": .binary, "UUID": .uuid, "URI": .uri,
        "Transformable": .transformable,
    ]

    /// Where an element started, for errors found after parsing (unknown parents, destinations).
    struct Place {
        var line: Int
        var column: Int
        var path: String
    }

    let file: String
    let version: String
    private var entities: [Entity] = []
    private var entityPlaces: [String: Place] = [:]
    private var relationshipPlaces: [String: Place] = [:]
    private var current: Entity?
    private var currentPlace: Place?
    /// The property names of `current` so far: a duplicate is found in one lookup.
    private var currentNames = Set<String>()
    private var stack: [String] = []
    private var sawModel = false
    private var versionIdentifiers: [String] = []
    private var failure: DocumentError?

    init(file: String, version: String) {
        self.file = file
        self.version = version
    }

    /// Parses `data` (the bytes of `file`) into a model named `version`.
    static func read(_ data: Data, file: String, version: String) throws -> Model {
        let reader = XCDataModelReader(file: file, version: version)
        let malformed = try UntrustedXML.parse(data, file: file, with: reader)
        if let failure = reader.failure { throw failure }
        if let malformed {
            let words = malformed.code.map { c in Self.xmlErrors[c].map { "\($0) (XML error \(c))" } ?? "XML error \(c)" } ?? "unknown XML error"
            throw malformed.error("not a well-formed Xcode model: \(words)")
        }
        guard reader.sawModel else {
            throw DocumentError(file: file, line: 1, column: 1, path: "/",
                                message: "not an Xcode model: the document has no <model> element")
        }
        var model = Model(version: version, entities: reader.entities, versionIdentifiers: reader.versionIdentifiers)
        model = withoutToManyIndexElements(model)
        try reader.check(model)
        return model
    }

    /// A fetch index element on a to-many relationship has no column to index in Core Data's
    /// SQLite store (the relationship lives in the other entity's foreign key or a join
    /// table): Xcode accepts it and Core Data makes no index of it, so it is left out, and an
    /// index left with no element goes too.
    static func withoutToManyIndexElements(_ model: Model) -> Model {
        var model = model
        for (e, entity) in model.entities.enumerated() where !entity.fetchIndexes.isEmpty {
            let toMany = Set(model.relationships(of: entity.name).filter(\.isToMany).map(\.name))
            guard !toMany.isEmpty else { continue }
            model.entities[e].fetchIndexes = entity.fetchIndexes.compactMap { index in
                var index = index
                index.elements.removeAll { toMany.contains($0.property) }
                return index.elements.isEmpty ? nil : index
            }
        }
        return model
    }

    // MARK: XMLParserDelegate

    func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                qualifiedName qName: String?, attributes: [String: String] = [:]) {
        defer { stack.append(elementName) }
        guard failure == nil else { return }
        let parent = stack.last
        do {
            switch (parent, elementName) {
            case (nil, "model"):
                sawModel = true
                if let identifier = attributes["userDefinedModelVersionIdentifier"] {
                    versionIdentifiers = [identifier]
                }
            case ("model", "entity"):
                try startEntity(parser, attributes)
            case ("entity", "attribute"):
                try addAttribute(parser, attributes)
            case ("entity", "relationship"):
                try addRelationship(parser, attributes)
            case ("entity", "fetchIndex"):
                try startFetchIndex(parser, attributes)
            case ("fetchIndex", "fetchIndexElement"):
                try addFetchIndexElement(parser, attributes)
            case ("uniquenessConstraints", "uniquenessConstraint"):
                current?.uniquenessConstraints.append([])
            case ("uniquenessConstraint", "constraint"):
                try addConstraint(parser, attributes)
            case ("compoundIndexes", "compoundIndex"):
                current?.compoundIndexes.append([])
            case ("compoundIndex", "index"):
                if let value = attributes["value"], !value.isEmpty, current?.compoundIndexes.isEmpty == false {
                    current!.compoundIndexes[current!.compoundIndexes.count - 1].append(value)
                }
            default:
                break
            }
        } catch let error as DocumentError {
            failure = error
            parser.abortParsing()
        } catch {
            failure = DocumentError(file: file, line: parser.lineNumber, column: parser.columnNumber, path: "/", message: "\(error)")
            parser.abortParsing()
        }
    }

    /// XMLParser's error codes are libxml2's (on Apple platforms too); the common ones, in words.
    static let xmlErrors: [Int: String] = [
        4: "the document is empty", 5: "the document ends too early, or has content after the root element",
        9: "invalid character", 26: "undeclared entity", 38: "'<' inside an attribute value",
        39: "an attribute value must start with a quote", 40: "an attribute value is not closed",
        41: "an attribute has no value", 42: "an attribute appears twice", 65: "a space is required here",
        73: "'>' expected", 76: "an end tag does not match its start tag", 77: "an element is not closed",
    ]

    /// The first error wins. (On Linux, `parse()` may go on and even return true after
    /// errors: libxml2 recovers. So errors are caught here, where the position is right.)
    func parser(_ parser: XMLParser, parseErrorOccurred parseError: Error) {
        guard failure == nil else { return }
        let code = (parseError as NSError).code
        let words = Self.xmlErrors[code].map { "\($0) (XML error \(code))" } ?? "XML error \(code)"
        failure = DocumentError(file: file, line: max(parser.lineNumber, 1), column: max(parser.columnNumber, 1),
                                path: stack.isEmpty ? "/" : "/" + stack.joined(separator: "/"),
                                message: "not a well-formed Xcode model: \(words)")
        parser.abortParsing()
    }

    func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
        if !stack.isEmpty { stack.removeLast() }
        if elementName == "entity", stack.last == "model", let entity = current {
            entities.append(entity)
            current = nil
        }
    }

    // MARK: Elements

    private func place(_ parser: XMLParser, _ path: String) -> Place {
        Place(line: parser.lineNumber, column: parser.columnNumber, path: path)
    }

    private func error(_ place: Place, _ message: String) -> DocumentError {
        DocumentError(file: file, line: place.line, column: place.column, path: place.path, message: message)
    }

    private static func flag(_ value: String?) -> Bool {
        value == "YES" || value == "yes" || value == "true"
    }

    private func startEntity(_ parser: XMLParser, _ attributes: [String: String]) throws {
        let bare = place(parser, "/model/entity")
        guard let name = attributes["name"], !name.isEmpty else {
            throw error(bare, "an <entity> without a name")
        }
        let here = place(parser, "/model/entity[@name='\(name)']")
        guard entityPlaces[name] == nil else { throw error(here, "duplicate entity '\(name)'") }
        entityPlaces[name] = here
        currentPlace = here
        currentNames = []
        current = Entity(name: name, parent: attributes["parentEntity"].flatMap { $0.isEmpty ? nil : $0 },
                         isAbstract: Self.flag(attributes["isAbstract"]),
                         renamingIdentifier: attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 })
        current?.versionHashModifier = attributes["versionHashModifier"].flatMap { $0.isEmpty ? nil : $0 }
    }

    private func startFetchIndex(_ parser: XMLParser, _ attributes: [String: String]) throws {
        guard let entity = current, let entityPlace = currentPlace else { return }
        guard let name = attributes["name"], !name.isEmpty else {
            throw error(place(parser, entityPlace.path + "/fetchIndex"), "a <fetchIndex> without a name in entity \(entity.name)")
        }
        current?.fetchIndexes.append(FetchIndex(name: name, elements: []))
    }

    private func addFetchIndexElement(_ parser: XMLParser, _ attributes: [String: String]) throws {
        guard let entity = current, let entityPlace = currentPlace, let index = entity.fetchIndexes.last else { return }
        let here = place(parser, entityPlace.path + "/fetchIndex[@name='\(index.name)']/fetchIndexElement")
        guard let property = attributes["property"], !property.isEmpty else {
            throw error(here, "fetch index \(entity.name).\(index.name): an element without a property")
        }
        // "Binary" is an ordinary SQLite index; "RTree" is a spatial index Core Data makes as
        // a virtual table, which this tool does not lay out.
        if let type = attributes["type"], type != "Binary" {
            throw error(here, "fetch index \(entity.name).\(index.name): index type '\(type)' is not supported (only Binary)")
        }
        let order = attributes["order"] ?? "ascending"
        guard order == "ascending" || order == "descending" else {
            throw error(here, "fetch index \(entity.name).\(index.name): order '\(order)' is neither ascending nor descending")
        }
        current!.fetchIndexes[current!.fetchIndexes.count - 1].elements.append(
            FetchIndex.Element(property: property, isAscending: order == "ascending"))
    }

    private func addConstraint(_ parser: XMLParser, _ attributes: [String: String]) throws {
        guard let entity = current, let entityPlace = currentPlace, !entity.uniquenessConstraints.isEmpty else { return }
        guard let value = attributes["value"], !value.isEmpty else {
            throw error(place(parser, entityPlace.path + "/uniquenessConstraints/uniquenessConstraint/constraint"),
                        "a uniqueness constraint of entity \(entity.name) has a <constraint> without a value")
        }
        current!.uniquenessConstraints[current!.uniquenessConstraints.count - 1].append(value)
    }

    /// The entity's name, the name and place of a new `<attribute>` or `<relationship>`
    /// (`element`) of the current entity; nil for a transient one (not stored) or outside an
    /// entity. (The entity's name, not a copy of it: appending to `current` while a copy
    /// holds its arrays would copy them, each time.)
    private func newProperty(_ element: String, _ parser: XMLParser, _ attributes: [String: String]) throws -> (entity: String, name: String, here: Place)? {
        guard let entity = current?.name, let entityPlace = currentPlace else { return nil }
        guard let name = attributes["name"], !name.isEmpty else {
            let article = element.first.map { "aeiou".contains($0) } == true ? "an" : "a"
            throw error(place(parser, entityPlace.path + "/" + element), "\(article) <\(element)> without a name in entity \(entity)")
        }
        let here = place(parser, entityPlace.path + "/\(element)[@name='\(name)']")
        guard currentNames.insert(name).inserted else {
            throw error(here, "duplicate property '\(name)' in entity \(entity)")
        }
        return Self.flag(attributes["transient"]) ? nil : (entity, name, here)
    }

    private func addAttribute(_ parser: XMLParser, _ attributes: [String: String]) throws {
        guard let (entity, name, here) = try newProperty("attribute", parser, attributes) else { return }
        guard let typeName = attributes["attributeType"] else {
            throw error(here, "attribute \(entity).\(name) has no attributeType")
        }
        guard let type = Self.attributeTypes[typeName] else {
            let known = Self.attributeTypes.keys.sorted()
            let hint = closestName(to: typeName, among: known).map { " (did you mean '\($0)'?)" } ?? ""
            throw error(here, "attribute \(entity).\(name): unknown attributeType '\(typeName)'\(hint); one of: "
                        + known.joined(separator: ", "))
        }
        var attribute = Attribute(name: name, type: type, isOptional: Self.flag(attributes["optional"]),
                                  renamingIdentifier: attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 })
        attribute.versionHashModifier = attributes["versionHashModifier"].flatMap { $0.isEmpty ? nil : $0 }
        attribute.allowsExternalBinaryDataStorage = Self.flag(attributes["allowsExternalBinaryDataStorage"])
        attribute.preservesValueInHistoryOnDeletion = Self.flag(attributes["preserveAfterDeletion"])
        attribute.isIndexed = Self.flag(attributes["indexed"])
        if Self.flag(attributes["derived"]) { attribute.derivation = attributes["derivationExpression"] ?? "" }
        if type == .date, let interval = attributes["defaultDateTimeInterval"] {
            guard let seconds = Double(interval) else {
                throw error(here, "attribute \(entity).\(name): defaultDateTimeInterval '\(interval)' is not a number")
            }
            attribute.defaultValue = .real(seconds + 978_307_200)
        } else if let text = attributes["defaultValueString"], type == .transformable {
            // Core Data keeps a Transformable attribute's default string without transforming
            // it, and no store column gets it: ignored, as Core Data's stores show.
            _ = text
        } else if let text = attributes["defaultValueString"], type.isInteger, let flag = ["NO": 0, "YES": 1][text] {
            // Xcode writes a Boolean-looking default on an integer attribute as is; the
            // compiled model holds 0 or 1, as here.
            attribute.defaultValue = .integer(Int64(flag))
        } else if let text = attributes["defaultValueString"] {
            guard let value = type.parseDefault(text) else {
                throw error(here, "attribute \(entity).\(name): '\(text)' is not a valid default for a \(typeName) attribute")
            }
            attribute.defaultValue = value
        }
        current?.attributes.append(attribute)
    }

    private func addRelationship(_ parser: XMLParser, _ attributes: [String: String]) throws {
        guard let (entity, name, here) = try newProperty("relationship", parser, attributes) else { return }
        guard let destination = attributes["destinationEntity"], !destination.isEmpty else {
            throw error(here, "relationship \(entity).\(name) has no destinationEntity")
        }
        func count(_ key: String) throws -> Int? {
            guard let text = attributes[key] else { return nil }
            guard let value = Int(text), value >= 0 else {
                throw error(here, "relationship \(entity).\(name): \(key) '\(text)' is not a whole number")
            }
            return value
        }
        var relationship = Relationship(
            name: name, destination: destination,
            inverse: attributes["inverseName"].flatMap { $0.isEmpty ? nil : $0 },
            isToMany: Self.flag(attributes["toMany"]), isOrdered: Self.flag(attributes["ordered"]),
            isOptional: Self.flag(attributes["optional"]),
            minCount: try count("minCount"), maxCount: try count("maxCount"),
            renamingIdentifier: attributes["elementID"].flatMap { $0.isEmpty ? nil : $0 })
        relationship.versionHashModifier = attributes["versionHashModifier"].flatMap { $0.isEmpty ? nil : $0 }
        relationshipPlaces["\(entity).\(name)"] = here
        current?.relationships.append(relationship)
    }

    // MARK: Cross-entity checks

    /// Parents and destinations exist, no inheritance cycles, inverses exist on the destination.
    private func check(_ model: Model) throws {
        let names = model.entities.map(\.name)
        func unknown(_ name: String) -> String {
            "unknown entity '\(name)'" + (closestName(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? "")
        }
        for entity in model.entities {
            let here = entityPlaces[entity.name]!
            if let parent = entity.parent {
                guard model.entity(named: parent) != nil else {
                    throw error(here, "entity \(entity.name): parentEntity: " + unknown(parent))
                }
                guard !model.lineage(of: parent).contains(where: { $0.name == entity.name }) else {
                    throw error(here, "entity \(entity.name) is its own ancestor through parentEntity")
                }
            }
            for r in entity.relationships {
                let at = relationshipPlaces["\(entity.name).\(r.name)"] ?? here
                guard model.entity(named: r.destination) != nil else {
                    throw error(at, "relationship \(entity.name).\(r.name): destinationEntity: " + unknown(r.destination))
                }
                if let inverse = r.inverse, model.relationship(inverse, of: r.destination) == nil {
                    throw error(at, "relationship \(entity.name).\(r.name): inverseName '\(inverse)' is not a relationship of \(r.destination)")
                }
            }
            // Indexes and constraints name stored attributes or to-ones of the entity.
            let stored = Set(model.attributes(of: entity.name).map(\.name)
                             + model.relationships(of: entity.name).filter { !$0.isToMany }.map(\.name))
            func checkProperty(_ property: String, _ what: String) throws {
                guard stored.contains(property) else {
                    let hint = closestName(to: property, among: stored.sorted()).map { " (did you mean '\($0)'?)" } ?? ""
                    throw error(here, "entity \(entity.name): \(what) names '\(property)', which is not a stored attribute or to-one of the entity\(hint)")
                }
            }
            for index in entity.fetchIndexes {
                guard !index.elements.isEmpty else { throw error(here, "entity \(entity.name): fetch index \(index.name) has no element") }
                for element in index.elements { try checkProperty(element.property, "fetch index \(index.name)") }
            }
            for constraint in entity.uniquenessConstraints {
                guard !constraint.isEmpty else { throw error(here, "entity \(entity.name): a uniqueness constraint has no property") }
                for property in constraint { try checkProperty(property, "a uniqueness constraint") }
            }
            // (Xcode leaves an emptied `<compoundIndex>` in the file; Core Data makes no index of it.)
            for index in entity.compoundIndexes {
                for property in index { try checkProperty(property, "a compound index") }
            }
        }
    }
}
