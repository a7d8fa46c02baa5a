/// A value of an Apple property list, as a binary property list (`bplist00`) stores it.
///
/// `uid` is the keyed archiver's object reference (`CF$UID`), which is why this reader
/// exists: swift-corelibs-foundation's `PropertyListSerialization` reads binary property
/// lists, but hands a UID back as an internal class whose number cannot be read.
public indirect enum PropertyListValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case integer(Int64)
    case real(Double)
    /// Seconds since 2001-01-01 (Core Data's reference date), as stored.
    case date(Double)
    case data([UInt8])
    case string(String)
    case uid(Int)
    case array([PropertyListValue])
    case dictionary([String: PropertyListValue])
}

/// A reader of binary property lists (the `bplist00` format of CoreFoundation's
/// `CFBinaryPList.c`): a header, the objects, a table of their offsets and a 32-byte
/// trailer saying where the table and the top object are.
///
///     let value = try BinaryPropertyList.read(bytes)
///     if case .dictionary(let top) = value { top["$objects"] … }
///
/// The bytes are untrusted (they come from a file the user names): every offset, length,
/// reference and UID is checked against the file before it is used, in arithmetic that
/// cannot overflow. Each object is decoded once, however many references share it (the
/// values share their storage), and the size the value would have written out as a tree
/// is capped (`expansionLimit`), so that a small file of shared references cannot make
/// whoever walks the value walk gigabytes. A reference cycle or a nesting deeper than
/// `maximumDepth` is an error, never a crash or a hang.
public struct BinaryPropertyList {
    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "not a readable binary property list: \(reason)" }
    }

    /// Containers nested deeper than this are refused: the reader recurses, and may run on
    /// a thread with a small stack.
    public static let maximumDepth = 200

    /// The most a value may weigh written out as a tree (one per value, plus the bytes of
    /// its strings and data): 16 MiB beyond eight times the file's own size, which a file
    /// without shared references never reaches.
    public static func expansionLimit(fileSize: Int) -> Int {
        16 << 20 + 8 * fileSize
    }

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int
    private let limit: Int

    public static func read(_ bytes: [UInt8]) throws -> PropertyListValue {
        guard bytes.count >= 40, bytes[0..<8].elementsEqual("bplist00".utf8) else {
            throw Malformed(reason: "no bplist00 header")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Malformed(reason: "the trailer's offset size \(offsetSize) or reference size \(referenceSize) is not 1 to 8")
        }
        let count = try unsigned(bytes, at: trailer + 8, size: 8)
        let top = try unsigned(bytes, at: trailer + 16, size: 8)
        let table = try unsigned(bytes, at: trailer + 24, size: 8)
        // Each bound checked before the next sum: every value stays below the file's size.
        guard count > 0, count <= UInt64(trailer), top < count, table >= 8, table <= UInt64(trailer),
              count * UInt64(offsetSize) <= UInt64(trailer) - table else {
            throw Malformed(reason: "the trailer (\(count) objects, top object \(top), offset table at byte \(table)) points outside the file")
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let offset = try unsigned(bytes, at: Int(table) + i * offsetSize, size: offsetSize)
            guard offset >= 8, offset < table else {
                throw Malformed(reason: "object \(i) starts at byte \(offset), outside the object area (bytes 8 to \(table))")
            }
            offsets.append(Int(offset))
        }
        let reader = BinaryPropertyList(bytes: bytes, offsets: offsets, referenceSize: referenceSize,
                                        limit: expansionLimit(fileSize: bytes.count))
        var state = State()
        return try reader.object(Int(top), depth: 0, &state).value
    }

    /// What a read has decoded so far: each object once, with its weight as a tree.
    private struct State {
        var decoded: [Int: (value: PropertyListValue, weight: Int)] = [:]
        var visiting = Set<Int>()
    }

    /// A big-endian unsigned integer of `size` (at most 8) bytes, within the file.
    private static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) throws -> UInt64 {
        guard offset >= 0, offset <= bytes.count, (0...8).contains(size), size <= bytes.count - offset else {
            throw Malformed(reason: "truncated at byte \(offset)")
        }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value
    }

    /// Whether `length` items of `size` bytes from `offset` lie within the file.
    private func fits(_ length: Int, of size: Int, at offset: Int) -> Bool {
        offset <= bytes.count && length <= (bytes.count - offset) / size
    }

    /// The count after a marker: its low nibble, or an integer object that follows when 0xF.
    private func count(marker: UInt8, at offset: inout Int, object index: Int) throws -> Int {
        let low = Int(marker & 0x0F)
        guard low == 0x0F else { return low }
        guard offset < bytes.count, bytes[offset] >> 4 == 0x1 else {
            throw Malformed(reason: "object \(index): its length at byte \(offset) is not an integer")
        }
        let size = 1 << Int(bytes[offset] & 0x0F)
        guard size <= 8 else { throw Malformed(reason: "object \(index): its length at byte \(offset) has \(size) bytes") }
        let value = try Self.unsigned(bytes, at: offset + 1, size: size)
        offset += 1 + size
        guard value <= UInt64(bytes.count) else {
            throw Malformed(reason: "object \(index): length \(value) is larger than the file (\(bytes.count) bytes)")
        }
        return Int(value)
    }

    private func references(_ count: Int, at offset: Int, object index: Int) throws -> [Int] {
        guard fits(count, of: referenceSize, at: offset) else {
            throw Malformed(reason: "object \(index): its \(count) references at byte \(offset) run past the end of the file")
        }
        return try (0..<count).map { i in
            let reference = try Self.unsigned(bytes, at: offset + i * referenceSize, size: referenceSize)
            guard reference < UInt64(offsets.count) else {
                throw Malformed(reason: "object \(index): reference \(reference) to no object (the file has \(offsets.count))")
            }
            return Int(reference)
        }
    }

    /// Object `index`, decoded once: a second reference to it gets the same value.
    private func object(_ index: Int, depth: Int, _ state: inout State) throws -> (value: PropertyListValue, weight: Int) {
        if let done = state.decoded[index] { return done }
        guard depth < Self.maximumDepth else {
            throw Malformed(reason: "object \(index) is nested deeper than \(Self.maximumDepth)")
        }
        guard state.visiting.insert(index).inserted else { throw Malformed(reason: "object \(index) contains itself") }
        defer { state.visiting.remove(index) }
        let decoded = try decode(index, depth: depth, &state)
        guard decoded.weight <= limit else {
            throw Malformed(reason: "object \(index) expands to more than \(limit) bytes (shared references to large objects)")
        }
        state.decoded[index] = decoded
        return decoded
    }

    private func decode(_ index: Int, depth: Int, _ state: inout State) throws -> (value: PropertyListValue, weight: Int) {
        var offset = offsets[index]
        let marker = bytes[offset]
        offset += 1
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return (.null, 1)
            case 0x08: return (.bool(false), 1)
            case 0x09: return (.bool(true), 1)
            default: throw Malformed(reason: "object \(index): unknown marker 0x\(String(marker, radix: 16)) at byte \(offset - 1)")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            // 16-byte integers hold values beyond Int64 only in their high half.
            guard size <= 16 else { throw Malformed(reason: "object \(index): an integer of \(size) bytes") }
            let value = try Self.unsigned(bytes, at: offset + max(0, size - 8), size: min(size, 8))
            return (.integer(size >= 8 ? Int64(bitPattern: value) : Int64(value)), 1)
        case 0x2, 0x3:
            let size = marker == 0x33 ? 8 : 1 << Int(marker & 0x0F)
            guard size == 4 || size == 8 else { throw Malformed(reason: "object \(index): a real of \(size) bytes") }
            let raw = try Self.unsigned(bytes, at: offset, size: size)
            let value = size == 4 ? Double(Float(bitPattern: UInt32(truncatingIfNeeded: raw))) : Double(bitPattern: raw)
            return (marker >> 4 == 0x3 ? .date(value) : .real(value), 1)
        case 0x4:
            let length = try count(marker: marker, at: &offset, object: index)
            guard fits(length, of: 1, at: offset) else { throw Malformed(reason: "object \(index): data truncated at byte \(offset)") }
            return (.data(Array(bytes[offset..<offset + length])), 1 + length)
        case 0x5:
            let length = try count(marker: marker, at: &offset, object: index)
            guard fits(length, of: 1, at: offset) else { throw Malformed(reason: "object \(index): string truncated at byte \(offset)") }
            return (.string(String(decoding: bytes[offset..<offset + length], as: UTF8.self)), 1 + length)
        case 0x6:
            let length = try count(marker: marker, at: &offset, object: index)
            guard fits(length, of: 2, at: offset) else { throw Malformed(reason: "object \(index): string truncated at byte \(offset)") }
            let units = (0..<length).map { UInt16(bytes[offset + 2 * $0]) << 8 | UInt16(bytes[offset + 2 * $0 + 1]) }
            return (.string(String(decoding: units, as: UTF16.self)), 1 + 2 * length)
        case 0x8:
            // A UID names an object of the archive: none can be beyond the file's size.
            let size = Int(marker & 0x0F) + 1
            guard size <= 8 else { throw Malformed(reason: "object \(index): a UID of \(size) bytes") }
            let uid = try Self.unsigned(bytes, at: offset, size: size)
            guard uid < UInt64(bytes.count) else {
                throw Malformed(reason: "object \(index): UID \(uid) is larger than the file (\(bytes.count) bytes)")
            }
            return (.uid(Int(uid)), 1)
        case 0xA, 0xC:
            let length = try count(marker: marker, at: &offset, object: index)
            var elements: [PropertyListValue] = []
            var weight = 1
            for reference in try references(length, at: offset, object: index) {
                let element = try object(reference, depth: depth + 1, &state)
                elements.append(element.value)
                weight = try add(weight, element.weight, index)
            }
            return (.array(elements), weight)
        case 0xD:
            let length = try count(marker: marker, at: &offset, object: index)
            let keys = try references(length, at: offset, object: index)
            let values = try references(length, at: offset + length * referenceSize, object: index)
            var dictionary: [String: PropertyListValue] = [:]
            var weight = 1
            for (k, v) in zip(keys, values) {
                let key = try object(k, depth: depth + 1, &state)
                guard case .string(let name) = key.value else {
                    throw Malformed(reason: "object \(index): a dictionary key that is not a string (object \(k))")
                }
                let value = try object(v, depth: depth + 1, &state)
                dictionary[name] = value.value
                weight = try add(add(weight, key.weight, index), value.weight, index)
            }
            return (.dictionary(dictionary), weight)
        default:
            throw Malformed(reason: "object \(index): unknown marker 0x\(String(marker, radix: 16)) at byte \(offset - 1)")
        }
    }

    /// Weights added, refused past the limit (which keeps the sum far from overflowing).
    private func add(_ a: Int, _ b: Int, _ index: Int) throws -> Int {
        guard b <= limit - a else {
            throw Malformed(reason: "object \(index) expands to more than \(limit) bytes (shared references to large objects)")
        }
        return a + b
    }
}
