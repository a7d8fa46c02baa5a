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
/// The bytes are untrusted (they come from a file the user names): every offset, length
/// and reference is checked, and a reference cycle or a nesting deeper than 512 is an
/// error, never a crash or a hang.
public struct BinaryPropertyList {
    public struct Malformed: Error, CustomStringConvertible, Sendable {
        public var reason: String
        public var description: String { "not a readable binary property list: \(reason)" }
    }

    private let bytes: [UInt8]
    private let offsets: [Int]
    private let referenceSize: Int

    public static func read(_ bytes: [UInt8]) throws -> PropertyListValue {
        guard bytes.count >= 40, Array(bytes[0..<8]) == Array("bplist00".utf8) else {
            throw Malformed(reason: "no bplist00 header")
        }
        let trailer = bytes.count - 32
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        guard (1...8).contains(offsetSize), (1...8).contains(referenceSize) else {
            throw Malformed(reason: "offset size \(offsetSize) or reference size \(referenceSize) out of range")
        }
        let count = try Self.unsigned(bytes, at: trailer + 8, size: 8)
        let top = try Self.unsigned(bytes, at: trailer + 16, size: 8)
        let table = try Self.unsigned(bytes, at: trailer + 24, size: 8)
        guard count > 0, count <= UInt64(bytes.count), top < count, table >= 8,
              table + count * UInt64(offsetSize) <= UInt64(trailer) else {
            throw Malformed(reason: "trailer points outside the file")
        }
        var offsets: [Int] = []
        offsets.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            let offset = try Self.unsigned(bytes, at: Int(table) + i * offsetSize, size: offsetSize)
            guard offset >= 8, offset < table else { throw Malformed(reason: "object \(i) starts outside the object area") }
            offsets.append(Int(offset))
        }
        let reader = BinaryPropertyList(bytes: bytes, offsets: offsets, referenceSize: referenceSize)
        var visiting = Set<Int>()
        var budget = 1_000_000
        return try reader.object(Int(top), visiting: &visiting, budget: &budget)
    }

    private static func unsigned(_ bytes: [UInt8], at offset: Int, size: Int) throws -> UInt64 {
        guard offset >= 0, size <= 8, offset + size <= bytes.count else { throw Malformed(reason: "truncated at byte \(offset)") }
        var value: UInt64 = 0
        for byte in bytes[offset..<offset + size] { value = value << 8 | UInt64(byte) }
        return value
    }

    /// The count after a marker: its low nibble, or an integer object that follows when 0xF.
    private func count(marker: UInt8, at offset: inout Int) throws -> Int {
        let low = Int(marker & 0x0F)
        guard low == 0x0F else { return low }
        guard offset < bytes.count, bytes[offset] >> 4 == 0x1 else { throw Malformed(reason: "bad length at byte \(offset)") }
        let size = 1 << Int(bytes[offset] & 0x0F)
        guard size <= 8 else { throw Malformed(reason: "length too large at byte \(offset)") }
        let value = try Self.unsigned(bytes, at: offset + 1, size: size)
        offset += 1 + size
        guard value <= UInt64(bytes.count) else { throw Malformed(reason: "length \(value) larger than the file") }
        return Int(value)
    }

    private func references(_ count: Int, at offset: Int) throws -> [Int] {
        guard offset + count * referenceSize <= bytes.count else { throw Malformed(reason: "truncated reference list at byte \(offset)") }
        return try (0..<count).map { i in
            let reference = try Self.unsigned(bytes, at: offset + i * referenceSize, size: referenceSize)
            guard reference < UInt64(offsets.count) else { throw Malformed(reason: "reference \(reference) to no object") }
            return Int(reference)
        }
    }

    /// `budget`: values left to decode. An object shared by many references is decoded once
    /// per reference, so without a budget a small hostile file could expand exponentially.
    private func object(_ index: Int, visiting: inout Set<Int>, budget: inout Int) throws -> PropertyListValue {
        guard visiting.count < 512 else { throw Malformed(reason: "nested deeper than 512") }
        budget -= 1
        guard budget >= 0 else { throw Malformed(reason: "more than 1,000,000 values") }
        guard visiting.insert(index).inserted else { throw Malformed(reason: "object \(index) contains itself") }
        defer { visiting.remove(index) }
        var offset = offsets[index]
        let marker = bytes[offset]
        offset += 1
        switch marker >> 4 {
        case 0x0:
            switch marker {
            case 0x00: return .null
            case 0x08: return .bool(false)
            case 0x09: return .bool(true)
            default: throw Malformed(reason: "unknown marker 0x\(String(marker, radix: 16)) at byte \(offset - 1)")
            }
        case 0x1:
            let size = 1 << Int(marker & 0x0F)
            // 16-byte integers hold values beyond Int64 only in their high half.
            guard size <= 16 else { throw Malformed(reason: "integer of \(size) bytes") }
            let value = try Self.unsigned(bytes, at: offset + max(0, size - 8), size: min(size, 8))
            return .integer(size >= 8 ? Int64(bitPattern: value) : Int64(value))
        case 0x2, 0x3:
            let size = marker == 0x33 ? 8 : 1 << Int(marker & 0x0F)
            let raw = try Self.unsigned(bytes, at: offset, size: size)
            let value: Double
            switch size {
            case 4: value = Double(Float(bitPattern: UInt32(raw)))
            case 8: value = Double(bitPattern: raw)
            default: throw Malformed(reason: "real of \(size) bytes")
            }
            return marker >> 4 == 0x3 ? .date(value) : .real(value)
        case 0x4:
            let length = try count(marker: marker, at: &offset)
            guard offset + length <= bytes.count else { throw Malformed(reason: "truncated data at byte \(offset)") }
            return .data(Array(bytes[offset..<offset + length]))
        case 0x5:
            let length = try count(marker: marker, at: &offset)
            guard offset + length <= bytes.count else { throw Malformed(reason: "truncated string at byte \(offset)") }
            return .string(String(decoding: bytes[offset..<offset + length], as: UTF8.self))
        case 0x6:
            let length = try count(marker: marker, at: &offset)
            guard offset + 2 * length <= bytes.count else { throw Malformed(reason: "truncated string at byte \(offset)") }
            let units = (0..<length).map { UInt16(bytes[offset + 2 * $0]) << 8 | UInt16(bytes[offset + 2 * $0 + 1]) }
            return .string(String(decoding: units, as: UTF16.self))
        case 0x8:
            let size = Int(marker & 0x0F) + 1
            return .uid(Int(try Self.unsigned(bytes, at: offset, size: size)))
        case 0xA, 0xC:
            let length = try count(marker: marker, at: &offset)
            return .array(try references(length, at: offset).map { try object($0, visiting: &visiting, budget: &budget) })
        case 0xD:
            let length = try count(marker: marker, at: &offset)
            let keys = try references(length, at: offset)
            let values = try references(length, at: offset + length * referenceSize)
            var dictionary: [String: PropertyListValue] = [:]
            for (k, v) in zip(keys, values) {
                guard case .string(let key) = try object(k, visiting: &visiting, budget: &budget) else {
                    throw Malformed(reason: "a dictionary key that is not a string (object \(k))")
                }
                dictionary[key] = try object(v, visiting: &visiting, budget: &budget)
            }
            return .dictionary(dictionary)
        default:
            throw Malformed(reason: "unknown marker 0x\(String(marker, radix: 16)) at byte \(offset - 1)")
        }
    }
}
