import Foundation
import ETLStore

/// Reads a model version from a JSON model file.
///
///     { "version": "v2",
///       "entities": [
///         { "name": "Author",
///           "attributes": [ { "name": "name", "type": "string", "optional": false } ],
///           "relationships": [ { "name": "books", "destination": "Book", "inverse": "authors", "toMany": true } ] } ] }
///
/// Entity keys: name, parent, abstract, renamedFrom, attributes, relationships, unique.
/// `"unique": [["email"], ["firstName", "lastName"]]`: uniqueness constraints, each a list
/// of attributes or to-ones whose values together are unique (as Core Data's
/// `<uniquenessConstraints>`): a UNIQUE index in the store, checked when a run validates.
/// Attribute keys: name, type, optional (default true), default, renamedFrom.
/// Relationship keys: name, destination, inverse, toMany, ordered, optional, minCount, maxCount, renamedFrom.
public enum ModelFile {
    public static func load(path: String) throws -> Model {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw DocumentError(file: path, line: 0, column: 0, path: "$", message: "cannot read the model file (missing or not readable)")
        }
        return try decode(JSONCursor.parse(Array(data), file: path))
    }

    public static func decode(_ root: JSONCursor) throws -> Model {
        let object = try root.object(keys: ["version", "entities"])
        let version = try object.required("version").nonEmptyString()
        var entities: [Entity] = []
        var places: [String: JSONCursor] = [:]
        for cursor in try object.required("entities").array() {
            let entity = try decodeEntity(cursor)
            if places[entity.name] != nil { throw cursor.error("duplicate entity '\(entity.name)'") }
            places[entity.name] = cursor
            entities.append(entity)
        }
        let model = Model(version: version, entities: entities)
        try check(model, places: places)
        return model
    }

    static func decodeEntity(_ cursor: JSONCursor) throws -> Entity {
        let o = try cursor.object(keys: ["name", "parent", "abstract", "renamedFrom", "attributes", "relationships", "unique"])
        var entity = Entity(name: try o.required("name").nonEmptyString())
        entity.parent = try o.optional("parent")?.nonEmptyString()
        entity.isAbstract = try o.optional("abstract")?.bool() ?? false
        entity.renamingIdentifier = try o.optional("renamedFrom")?.nonEmptyString()
        var names = Set<String>()
        for a in try o.optional("attributes")?.array() ?? [] {
            let attribute = try decodeAttribute(a)
            guard names.insert(attribute.name).inserted else { throw a.error("duplicate property '\(attribute.name)' in entity \(entity.name)") }
            entity.attributes.append(attribute)
        }
        for r in try o.optional("relationships")?.array() ?? [] {
            let relationship = try decodeRelationship(r)
            guard names.insert(relationship.name).inserted else { throw r.error("duplicate property '\(relationship.name)' in entity \(entity.name)") }
            entity.relationships.append(relationship)
        }
        for constraint in try o.optional("unique")?.array() ?? [] {
            let properties = try constraint.array().map { try $0.nonEmptyString() }
            guard !properties.isEmpty else { throw constraint.error("a uniqueness constraint names at least one property") }
            entity.uniquenessConstraints.append(properties)
        }
        return entity
    }

    static func decodeAttribute(_ cursor: JSONCursor) throws -> Attribute {
        let o = try cursor.object(keys: ["name", "type", "optional", "default", "renamedFrom"])
        let name = try o.required("name").nonEmptyString()
        let typeCursor = try o.required("type")
        let typeName = try typeCursor.string()
        guard let type = AttributeType(rawValue: typeName) else {
            let all = AttributeType.allCases.map(\.rawValue)
            let hint = closestName(to: typeName, among: all).map { " (did you mean '\($0)'?)" } ?? ""
            throw typeCursor.error("unknown attribute type '\(typeName)'\(hint); one of: " + all.joined(separator: ", "))
        }
        var attribute = Attribute(name: name, type: type)
        attribute.isOptional = try o.optional("optional")?.bool() ?? true
        attribute.renamingIdentifier = try o.optional("renamedFrom")?.nonEmptyString()
        if let d = o.optional("default") {
            attribute.defaultValue = try defaultValue(d, type: type)
        }
        return attribute
    }

    static func defaultValue(_ cursor: JSONCursor, type: AttributeType) throws -> SQLValue {
        let text: String
        switch cursor.node.value {
        case .string(let s): text = s
        case .number(let n): text = n
        case .bool(let b): text = b ? "true" : "false"
        default: throw cursor.error("expected a default value for a \(type.rawValue) attribute, found \(cursor.node.kindName)")
        }
        guard let value = type.parseDefault(text) else {
            throw cursor.error("'\(text)' is not a valid default for a \(type.rawValue) attribute")
        }
        return value
    }

    static func decodeRelationship(_ cursor: JSONCursor) throws -> Relationship {
        let o = try cursor.object(keys: ["name", "destination", "inverse", "toMany", "ordered", "optional", "minCount", "maxCount", "renamedFrom"])
        var r = Relationship(name: try o.required("name").nonEmptyString(), destination: try o.required("destination").nonEmptyString())
        r.inverse = try o.optional("inverse")?.nonEmptyString()
        r.isToMany = try o.optional("toMany")?.bool() ?? false
        r.isOrdered = try o.optional("ordered")?.bool() ?? false
        r.isOptional = try o.optional("optional")?.bool() ?? true
        r.minCount = try o.optional("minCount")?.int(in: 0...Int.max)
        r.maxCount = try o.optional("maxCount")?.int(in: 0...Int.max)
        r.renamingIdentifier = try o.optional("renamedFrom")?.nonEmptyString()
        return r
    }

    /// Cross-entity checks: parents and destinations exist, inverses point back, no cycles.
    static func check(_ model: Model, places: [String: JSONCursor]) throws {
        let names = model.entities.map(\.name)
        func unknown(_ name: String) -> String {
            "unknown entity '\(name)'" + (closestName(to: name, among: names).map { " (did you mean '\($0)'?)" } ?? "")
        }
        for entity in model.entities {
            let place = places[entity.name]!
            // Uniqueness constraints name stored attributes or to-ones of the entity.
            let stored = model.attributes(of: entity.name).map(\.name) + model.relationships(of: entity.name).filter { !$0.isToMany }.map(\.name)
            for (index, constraint) in entity.uniquenessConstraints.enumerated() {
                for (position, property) in constraint.enumerated() where !stored.contains(property) {
                    let at = (try? place.anyObject().optional("unique")?.array()[index].array()[position]) ?? place
                    let hint = closestName(to: property, among: stored).map { " (did you mean '\($0)'?)" } ?? ""
                    throw at.error("entity \(entity.name): unique names '\(property)', which is not an attribute or to-one of the entity\(hint)")
                }
            }
            if let parent = entity.parent {
                let at = member(place, "parent")
                guard model.entity(named: parent) != nil else { throw at.error("parent: " + unknown(parent)) }
                guard !model.lineage(of: parent).contains(where: { $0.name == entity.name }) else {
                    throw at.error("entity \(entity.name) is its own ancestor through 'parent'")
                }
            }
            for (index, r) in entity.relationships.enumerated() {
                guard model.entity(named: r.destination) != nil else {
                    throw member(place, "destination", in: "relationships", at: index)
                        .error("relationship \(entity.name).\(r.name): destination: " + unknown(r.destination))
                }
                if let inverseName = r.inverse {
                    let at = member(place, "inverse", in: "relationships", at: index)
                    guard let inverse = model.relationship(inverseName, of: r.destination) else {
                        throw at.error("relationship \(entity.name).\(r.name): inverse '\(inverseName)' is not a relationship of \(r.destination)")
                    }
                    guard inverse.inverse == nil || inverse.inverse == r.name else {
                        throw at.error("relationship \(entity.name).\(r.name): its inverse \(r.destination).\(inverseName) names '\(inverse.inverse!)' as its own inverse")
                    }
                    // The inverse must point back at this entity (or at an entity of its inheritance line).
                    guard model.lineage(of: entity.name).contains(where: { $0.name == inverse.destination })
                            || model.lineage(of: inverse.destination).contains(where: { $0.name == entity.name }) else {
                        throw at.error("relationship \(entity.name).\(r.name): its inverse \(r.destination).\(inverseName) points at \(inverse.destination), not at \(entity.name)")
                    }
                }
            }
        }
    }

    /// The value of `key` in an entity's object, or in the `index`th element of its `list`,
    /// so that cross-entity errors point at the offending value (the entity when not found).
    private static func member(_ entity: JSONCursor, _ key: String, in list: String? = nil, at index: Int = 0) -> JSONCursor {
        var cursor = entity
        if let list {
            guard let items = try? entity.anyObject().optional(list)?.array(), index < items.count else { return entity }
            cursor = items[index]
        }
        return (try? cursor.anyObject().optional(key)) ?? cursor
    }
}
