/// A keyed archive's objects, followed by reference on demand, for archives whose objects
/// form a graph with cycles (a Core Data model: every property names its entity, every
/// entity its model), which `KeyedArchive.root` cannot decode as a tree.
///
/// Every accessor takes the place it reads for (`"entity Car"`, `"Car.owner"`), which its
/// errors name.
struct ArchiveGraph {
    struct Malformed: Error, CustomStringConvertible, Sendable {
        var reason: String
        var description: String { reason }
    }

    typealias Object = [String: PropertyListValue]

    private let objects: [PropertyListValue]
    private let top: PropertyListValue

    init(_ bytes: [UInt8]) throws {
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyList.read(bytes)
        } catch let error as BinaryPropertyList.Malformed {
            throw Malformed(reason: error.description)
        }
        guard case .dictionary(let archive) = plist, archive["$archiver"] == .string("NSKeyedArchiver"),
              case .array(let objects)? = archive["$objects"], case .dictionary(let top)? = archive["$top"],
              let root = top["root"] else {
            throw Malformed(reason: "not an NSKeyedArchiver archive")
        }
        self.objects = objects
        self.top = root
    }

    func root() throws -> Object { try object(top, "the archive's root") }

    /// The value a reference points at (`$null` read as null); other values as they are.
    func deref(_ value: PropertyListValue) throws -> PropertyListValue {
        guard case .uid(let index) = value else { return value }
        guard index >= 0, index < objects.count else { throw Malformed(reason: "reference \(index) to no object (\(objects.count) objects)") }
        return objects[index] == .string("$null") ? .null : objects[index]
    }

    func object(_ value: PropertyListValue, _ place: String) throws -> Object {
        guard case .dictionary(let fields) = try deref(value) else { throw Malformed(reason: "\(place): a reference to something that is not an object") }
        return fields
    }

    func className(_ object: Object) throws -> String {
        guard let reference = object["$class"], case .dictionary(let info) = try deref(reference),
              case .string(let name)? = info["$classname"] else {
            throw Malformed(reason: "an object without a class")
        }
        return name
    }

    func field(_ object: Object, _ key: String, _ place: String) throws -> PropertyListValue {
        guard let value = object[key] else { throw Malformed(reason: "\(place): no \(key)") }
        return value
    }

    /// An NSArray's or NSSet's elements (references).
    func elements(_ value: PropertyListValue, _ place: String) throws -> [PropertyListValue] {
        guard case .array(let elements)? = try object(value, place)["NS.objects"] else { throw Malformed(reason: "\(place): an array without NS.objects") }
        return elements
    }

    /// The NSDictionary (string keys) in `object[key]`.
    func dictionary(_ object: Object, _ key: String, _ place: String) throws -> [String: PropertyListValue] {
        let dictionary = try self.object(field(object, key, place), "\(place): \(key)")
        guard case .array(let keys)? = dictionary["NS.keys"], case .array(let values)? = dictionary["NS.objects"], keys.count == values.count else {
            throw Malformed(reason: "\(place): \(key) is not a dictionary")
        }
        var result: [String: PropertyListValue] = [:]
        for (k, v) in zip(keys, values) { result[try text(k, "\(place): \(key)")] = v }
        return result
    }

    func text(_ value: PropertyListValue, _ place: String) throws -> String {
        switch try deref(value) {
        case .string(let s): return s
        case .dictionary(let fields):
            if let string = fields["NS.string"], case .string(let s) = try deref(string) { return s }
        default: break
        }
        throw Malformed(reason: "\(place): a value that is not text")
    }

    func string(_ object: Object, _ key: String, _ place: String) throws -> String {
        try text(field(object, key, place), "\(place): \(key)")
    }

    func optionalText(_ value: PropertyListValue?, _ place: String) throws -> String? {
        guard let value, try deref(value) != .null else { return nil }
        return try text(value, place)
    }

    /// A boolean key: Core Data archives it only when YES.
    func bool(_ value: PropertyListValue?, _ place: String) throws -> Bool {
        switch try value.map(deref) {
        case nil, .null?: return false
        case .bool(let b)?: return b
        case .integer(let i)?: return i != 0
        default: throw Malformed(reason: "\(place): a value that is not a boolean")
        }
    }

    func int(_ value: PropertyListValue?, _ place: String) throws -> Int? {
        switch try value.map(deref) {
        case nil, .null?: return nil
        case .integer(let i)?: return Int(truncatingIfNeeded: i)
        default: throw Malformed(reason: "\(place): a value that is not an integer")
        }
    }

    /// The object at `value` decoded as a tree, as `KeyedArchive` decodes a root: for a part
    /// of the graph that has no cycle (an archived NSExpression). Bounded in depth and size.
    func tree(_ value: PropertyListValue) throws -> ArchivedValue {
        var budget = 10_000
        return try tree(value, depth: 0, budget: &budget)
    }

    private func tree(_ value: PropertyListValue, depth: Int, budget: inout Int) throws -> ArchivedValue {
        guard depth < 64 else { throw Malformed(reason: "nested deeper than 64 (a reference cycle?)") }
        budget -= 1
        guard budget > 0 else { throw Malformed(reason: "more than 10,000 objects in one expression") }
        switch try deref(value) {
        case .null: return .null
        case .bool(let b): return .bool(b)
        case .integer(let i): return .integer(i)
        case .real(let d), .date(let d): return .real(d)
        case .data(let d): return .data(d)
        case .string(let s): return .string(s)
        case .uid: throw Malformed(reason: "a reference to a reference")
        case .array(let elements): return .array(try elements.map { try tree($0, depth: depth + 1, budget: &budget) })
        case .dictionary(let fields):
            guard fields["$class"] != nil else {
                return .dictionary(try fields.mapValues { try tree($0, depth: depth + 1, budget: &budget) })
            }
            let name = try className(fields)
            switch name {
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                return .array(try elements(value, name).map { try tree($0, depth: depth + 1, budget: &budget) })
            case "NSString", "NSMutableString":
                return .string(try text(value, name))
            default:
                var result: [String: ArchivedValue] = [:]
                for (key, field) in fields where key != "$class" { result[key] = try tree(field, depth: depth + 1, budget: &budget) }
                return .object(className: name, fields: result)
            }
        }
    }
}
