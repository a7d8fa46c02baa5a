import Foundation

/// Writes a binary property list (`bplist00`) with dictionary keys in sorted order, so the
/// same metadata always gives the same bytes: a resumed run must write the store an
/// uninterrupted one writes. (Foundation's writer follows the dictionary's iteration
/// order, which changes from process to process.)
///
///     let bytes = try BinaryPropertyList.encode(["NSStoreType": "SQLite"])
///
/// Values: String, Data, Bool, integers, Double, Date, arrays and string-keyed dictionaries
/// of them — what `PropertyListSerialization` reads from a store's `Z_PLIST` — and the
/// references of a keyed archive (`UID`, `KeyedArchiver`).
extension BinaryPropertyList {
    /// A keyed archiver's reference to an object of `$objects` (`CF$UID`).
    struct UID: Hashable {
        var index: Int
    }


    struct UnsupportedValue: Error, CustomStringConvertible {
        var value: String
        var description: String { "a property list cannot hold \(value)" }
    }

    static func encode(_ root: Any) throws -> Data {
        var objects: [[UInt8]] = []
        // Reference size must be known before bodies are written: count objects first.
        let refSize = byteCount(for: try count(root) - 1)
        func ref(_ index: Int) -> [UInt8] { bigEndian(UInt64(index), size: refSize) }
        // Objects are numbered depth-first; a container's slot is reserved before its
        // children are added, so the root is object 0.
        func add(_ value: Any) throws -> Int {
            let index = objects.count
            objects.append([])
            objects[index] = try body(value)
            return index
        }
        func body(_ value: Any) throws -> [UInt8] {
            switch contents(value) {
            case .array(let items)?:
                var refs: [Int] = []
                for item in items { refs.append(try add(item)) }
                return marker(0xA0, refs.count) + refs.flatMap(ref)
            case .dictionary(let v)?:
                let keys = v.keys.sorted()
                var keyRefs: [Int] = [], valueRefs: [Int] = []
                for key in keys { keyRefs.append(try add(key)) }
                for key in keys { valueRefs.append(try add(v[key]!)) }
                return marker(0xD0, keys.count) + (keyRefs + valueRefs).flatMap(ref)
            case nil: break
            }
            // The archive's own scalars by their exact type, as its containers (`contents`).
            let exact = type(of: value)
            if exact == UID.self { return uid(value as! UID) }
            if exact == String.self { return string(value as! String) }
            if exact == Int.self { return [0x13] + bigEndian(UInt64(bitPattern: Int64(value as! Int))) }
            switch value {
            case let v as Bool where type(of: value) == Bool.self:
                return [v ? 0x09 : 0x08]
            case let v as String:
                return string(v)
            case let v as Data:
                return marker(0x40, v.count) + Array(v)
            case let v as Date:
                return [0x33] + bigEndian(v.timeIntervalSinceReferenceDate.bitPattern)
            case let v as Int:
                return [0x13] + bigEndian(UInt64(bitPattern: Int64(v)))
            case let v as Double:
                return [0x23] + bigEndian(v.bitPattern)
            case let v as NSNumber:
                if let exact = Int64(exactly: v.doubleValue), "\(v)" == "\(exact)" {
                    return [0x13] + bigEndian(UInt64(bitPattern: exact))
                }
                return [0x23] + bigEndian(v.doubleValue.bitPattern)
            case let v as UID:
                return uid(v)
            default:
                throw UnsupportedValue(value: "\(type(of: value))")
            }
        }
        _ = try add(root)

        var bytes = Array("bplist00".utf8)
        var offsets: [Int] = []
        for object in objects {
            offsets.append(bytes.count)
            bytes += object
        }
        let offsetTable = bytes.count
        // Every offset is below the table's: its size says how many bytes each takes.
        let offsetSize = byteCount(for: offsetTable)
        for offset in offsets { bytes += bigEndian(UInt64(offset), size: offsetSize) }
        bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)]
        bytes += bigEndian(UInt64(objects.count)) + bigEndian(UInt64(0)) + bigEndian(UInt64(offsetTable))
        return Data(bytes)
    }

    private static func string(_ v: String) -> [UInt8] {
        if v.utf8.allSatisfy({ $0 < 0x80 }) {
            return marker(0x50, v.utf8.count) + Array(v.utf8)
        }
        let units = Array(v.utf16)
        return marker(0x60, units.count) + units.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }

    private static func uid(_ v: UID) -> [UInt8] {
        let size = byteCount(for: v.index)
        return [0x80 | UInt8(size - 1)] + bigEndian(UInt64(v.index), size: size)
    }

    /// How many objects `value` is written as (containers, keys and values, no uniquing).
    private static func count(_ value: Any) throws -> Int {
        switch contents(value) {
        case .array(let items)?: return try 1 + items.reduce(0) { $0 + (try count($1)) }
        case .dictionary(let fields)?: return try 1 + fields.reduce(0) { $0 + 1 + (try count($1.value)) }
        case nil: return 1
        }
    }

    private enum Contents {
        case array([Any])
        case dictionary([String: Any])
    }

    /// The elements of an array or a dictionary, nil for anything else. The types a keyed
    /// archive holds are told by their exact type first: a failing `as? String` of a
    /// dictionary makes an NSDictionary of it to ask, which cost more than the rest of
    /// writing a model cache (a third of a Core Data store's run).
    private static func contents(_ value: Any) -> Contents? {
        let type = type(of: value)
        if type == [String: Any].self { return .dictionary(value as! [String: Any]) }
        if type == [Any].self { return .array(value as! [Any]) }
        if type == [UID].self { return .array((value as! [UID]).map { $0 as Any }) }
        if type == [String].self { return .array((value as! [String]).map { $0 as Any }) }
        if type == UID.self || type == String.self || type == Int.self || type == Bool.self || type == Double.self
            || type == Data.self || type == Date.self { return nil }
        if let v = value as? [String: Any] { return .dictionary(v) }
        if let v = value as? [Any] { return .array(v) }
        return nil
    }

    /// The fewest bytes (1, 2, 4 or 8, as the format allows) that hold numbers up to `largest`.
    static func byteCount(for largest: Int) -> Int {
        switch UInt64(max(largest, 0)) {
        case ...0xFF: return 1
        case ...0xFFFF: return 2
        case ...0xFFFF_FFFF: return 4
        default: return 8
        }
    }

    /// The low `size` bytes of `value`, most significant first.
    private static func bigEndian(_ value: UInt64, size: Int) -> [UInt8] {
        (0..<size).map { UInt8(truncatingIfNeeded: value >> UInt64(8 * (size - 1 - $0))) }
    }

    /// A type nibble with a count: inline below 15, else 0xF and an integer object.
    private static func marker(_ type: UInt8, _ count: Int) -> [UInt8] {
        count < 15 ? [type | UInt8(count)] : [type | 0x0F, 0x13] + bigEndian(UInt64(count))
    }

    private static func bigEndian<T: FixedWidthInteger>(_ value: T) -> [UInt8] {
        withUnsafeBytes(of: value.bigEndian) { Array($0) }
    }
}
