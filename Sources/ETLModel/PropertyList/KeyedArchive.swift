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
        var decoder = Decoder(objects: objects)
        return try decoder.value(.uid(root), depth: 0)
    }

    private struct Decoder {
        let objects: [PropertyListValue]
        /// Objects decoded so far: a graph whose objects are shared many times could
        /// otherwise expand exponentially.
        var decoded = 0

        mutating func value(_ value: PropertyListValue, depth: Int) throws -> ArchivedValue {
            guard depth < 256 else { throw Malformed(reason: "nested deeper than 256 (a reference cycle?)") }
            decoded += 1
            guard decoded < 1_000_000 else { throw Malformed(reason: "more than 1,000,000 objects") }
            switch value {
            case .null: return .null
            case .bool(let b): return .bool(b)
            case .integer(let i): return .integer(i)
            case .real(let d), .date(let d): return .real(d)
            case .data(let d): return .data(d)
            case .string(let s): return s == "$null" ? .null : .string(s)
            case .array(let elements): return .array(try elements.map { try self.value($0, depth: depth + 1) })
            case .dictionary(let d): return try object(d, depth: depth)
            case .uid(let uid):
                guard uid < objects.count else { throw Malformed(reason: "reference \(uid) to no object (\(objects.count) objects)") }
                return try self.value(objects[uid], depth: depth + 1)
            }
        }

        mutating func object(_ fields: [String: PropertyListValue], depth: Int) throws -> ArchivedValue {
            guard case .uid(let classUID)? = fields["$class"] else {
                // A plain dictionary inside the property list, not an archived object.
                var result: [String: ArchivedValue] = [:]
                for (key, v) in fields { result[key] = try value(v, depth: depth + 1) }
                return .dictionary(result)
            }
            guard classUID < objects.count, case .dictionary(let classInfo) = objects[classUID],
                  case .string(let className)? = classInfo["$classname"] else {
                throw Malformed(reason: "an object whose $class is not a class description")
            }
            switch className {
            case "NSArray", "NSMutableArray", "NSSet", "NSMutableSet", "NSOrderedSet", "NSMutableOrderedSet":
                guard case .array(let elements)? = fields["NS.objects"] else { throw Malformed(reason: "\(className) without NS.objects") }
                return .array(try elements.map { try value($0, depth: depth + 1) })
            case "NSDictionary", "NSMutableDictionary":
                guard case .array(let keys)? = fields["NS.keys"], case .array(let values)? = fields["NS.objects"], keys.count == values.count else {
                    throw Malformed(reason: "\(className) without matching NS.keys and NS.objects")
                }
                var result: [String: ArchivedValue] = [:]
                for (k, v) in zip(keys, values) {
                    guard case .string(let key) = try value(k, depth: depth + 1) else { throw Malformed(reason: "\(className) with a key that is not a string") }
                    result[key] = try value(v, depth: depth + 1)
                }
                return .dictionary(result)
            case "NSString", "NSMutableString":
                guard case .string(let s) = try value(fields["NS.string"] ?? .null, depth: depth + 1) else {
                    throw Malformed(reason: "\(className) without NS.string")
                }
                return .string(s)
            default:
                var result: [String: ArchivedValue] = [:]
                for (key, v) in fields where key != "$class" { result[key] = try value(v, depth: depth + 1) }
                return .object(className: className, fields: result)
            }
        }
    }
}
