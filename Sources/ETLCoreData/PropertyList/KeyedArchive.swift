/// An object graph written by `NSKeyedArchiver`, decoded without Apple's classes.
///
/// A keyed archive is a binary property list `{ $archiver: "NSKeyedArchiver", $version,
/// $top: { root: UID }, $objects: [...] }`. Every object is a dictionary in `$objects`
/// whose `$class` UID points at `{ $classname, $classes }`, and whose fields point at other
/// objects by UID (`CF$UID`); `$objects[0]` is `$null`. Collections are the same objects
/// with `NS.objects` (and `NS.keys`), strings may be `NS.string` objects.
///
///     let root = try KeyedArchive.root(of: bytes)
///     if case .object("NSFunctionExpression", let fields) = root { fields["NSSelectorName"] … }
///
/// What this gives back is the graph as a tree of `ArchivedValue`s; which class means what
/// is the caller's business (`ArchivedExpression` for NSExpression).
public indirect enum ArchivedValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    case string(String)
    case data([UInt8])
    /// NSArray, NSMutableArray, NSSet, NSOrderedSet: the elements.
    case array([ArchivedValue])
    /// NSDictionary, NSMutableDictionary, with string keys.
    case dictionary([String: ArchivedValue])
    /// Any other object: its class name and its fields, decoded.
    case object(className: String, fields: [String: ArchivedValue])

    public var string: String? {
        if case .string(let s) = self { return s }
        return nil
    }
}

public enum KeyedArchive {
    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "not a readable keyed archive: \(reason)" }
    }

    /// The archive's root object (`$top.root`), decoded.
    ///
    /// Each object of `$objects` is decoded once, however many UIDs share it; the tree it
    /// gives back is capped in weight as a property list is (`BinaryPropertyList.expansionLimit`),
    /// its nesting at `BinaryPropertyList.maximumDepth`, and an object that contains itself
    /// is an error naming it.
    public static func root(of bytes: [UInt8]) throws -> ArchivedValue {
        let plist: PropertyListValue
        do {
            plist = try BinaryPropertyList.read(bytes)
        } catch let error as BinaryPropertyList.Malformed {
            throw Malformed(reason: error.description)
        }
        guard case .dictionary(let archive) = plist else { throw Malformed(reason: "the top is not a dictionary") }
        guard archive["$archiver"] == .string("NSKeyedArchiver") else {
            throw Malformed(reason: "$archiver is not NSKeyedArchiver")
        }
        guard case .array(let objects)? = archive["$objects"] else { throw Malformed(reason: "no $objects array") }
        guard case .dictionary(let top)? = archive["$top"], case .uid(let root)? = top["root"] else {
            throw Malformed(reason: "no $top.root reference")
        }
        var decoder = Decoder(objects: objects, limit: BinaryPropertyList.expansionLimit(fileSize: bytes.count))
        return try decoder.value(.uid(root), depth: 0).value
    }

    private struct Decoder {
        let objects: [PropertyListValue]
        /// The most the decoded tree may weigh (one per value, plus its strings' and data's bytes).
        let limit: Int
        /// Objects decoded so far, by UID, with their weight as a tree.
        var decoded: [Int: (value: ArchivedValue, weight: Int)] = [:]
        var visiting = Set<Int>()

        mutating func value(_ value: PropertyListValue, depth: Int) throws -> (value: ArchivedValue, weight: Int) {
            guard depth < BinaryPropertyList.maximumDepth else {
                throw Malformed(reason: "objects nested deeper than \(BinaryPropertyList.maximumDepth)")
            }
            switch value {
            case .null: return (.null, 1)
            case .bool(let b): return (.bool(b), 1)
            case .integer(let i): return (.integer(i), 1)
            case .real(let d), .date(let d): return (.real(d), 1)
            case .data(let d): return (.data(d), 1 + d.count)
            case .string(let s): return s == "$null" ? (.null, 1) : (.string(s), 1 + s.utf8.count)
            case .array(let elements):
                var weight = 1
                return (.array(try elements.map { try add(&weight, self.value($0, depth: depth + 1), "an array") }), weight)
            case .dictionary(let d): return try object(d, depth: depth)
            case .uid(let uid):
                if let done = decoded[uid] { return done }
                guard uid < objects.count else { throw Malformed(reason: "reference \(uid) to no object (\(objects.count) objects)") }
                guard visiting.insert(uid).inserted else { throw Malformed(reason: "$objects[\(uid)] contains itself") }
                defer { visiting.remove(uid) }
                let result: (value: ArchivedValue, weight: Int)
                do {
                    result = try self.value(objects[uid], depth: depth + 1)
                } catch let error as Malformed where !error.reason.hasPrefix("$objects[") {
                    throw Malformed(reason: "$objects[\(uid)]: \(error.reason)")
                }
                decoded[uid] = result
                return result
            }
        }

        /// `part`'s weight added to `total`, refused past the limit; its value.
        private func add(_ total: inout Int, _ part: (value: ArchivedValue, weight: Int), _ what: String) throws -> ArchivedValue {
            guard part.weight <= limit - total else {
                throw Malformed(reason: "\(what) expands to more than \(limit) bytes (shared references to large objects)")
            }
            total += part.weight
            return part.value
        }

        mutating func object(_ fields: [String: PropertyListValue], depth: Int) throws -> (value: ArchivedValue, weight: Int) {
            var weight = 1
            guard case .uid(let classUID)? = fields["$class"] else {
                // A plain dictionary inside the property list, not an archived object.
                var result: [String: ArchivedValue] = [:]
                for (key, v) in fields { result[key] = try add(&weight, value(v, depth: depth + 1), "a dictionary") }
                return (.dictionary(result), weight)
            }
            guard classUID < objects.count, case .dictionary(let classInfo) = objects[classUID],
                  case .string(let className)? = classInfo["$classname"] else {
                throw Malformed(reason: "an object whose $class is not a class description")
            }
            switch className {
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                guard case .array(let elements)? = fields["NS.objects"] else { throw Malformed(reason: "\(className) without NS.objects") }
                return (.array(try elements.map { try add(&weight, value($0, depth: depth + 1), className) }), weight)
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"], keys.count == values.count else {
                    throw Malformed(reason: "\(className) without matching NS.keys and NS.objects")
                }
                var result: [String: ArchivedValue] = [:]
                for (k, v) in zip(keys, values) {
                    guard case .string(let key) = try add(&weight, value(k, depth: depth + 1), className) else {
                        throw Malformed(reason: "\(className) with a key that is not a string")
                    }
                    result[key] = try add(&weight, value(v, depth: depth + 1), className)
                }
                return (.dictionary(result), weight)
            case "NSString", "NSMutableString":
                let string = try value(fields["NS.string"] ?? .null, depth: depth + 1)
                guard case .string = string.value else { throw Malformed(reason: "\(className) without NS.string") }
                return string
            default:
                var result: [String: ArchivedValue] = [:]
                for (key, v) in fields where key != "$class" { result[key] = try add(&weight, value(v, depth: depth + 1), className) }
                return (.object(className: className, fields: result), weight)
            }
        }
    }
}
