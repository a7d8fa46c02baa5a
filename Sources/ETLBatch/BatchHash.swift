import Foundation

/// FNV-1a 64: how a batch notices that a file it recorded changed (a source, a result, an
/// input). Not a defence against tampering: the manifest is no secret either.
struct BatchHash {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        var h = value
        for byte in bytes { h = (h ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        value = h
    }

    mutating func add(_ data: Data) { data.withUnsafeBytes { add($0) } }
    mutating func add(_ bytes: [UInt8]) { bytes.withUnsafeBytes { add($0) } }
    mutating func add(_ text: String) { add(Array(text.utf8)) }

    var hex: String { String(value, radix: 16) }

    static func hex(_ data: Data) -> String {
        var hash = BatchHash()
        hash.add(data)
        return hash.hex
    }

    static func hex(_ bytes: [UInt8]) -> String {
        var hash = BatchHash()
        hash.add(bytes)
        return hash.hex
    }

    /// A whole file, read in blocks of 1 MiB; nil when it cannot be read.
    static func ofFile(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        var hash = BatchHash()
        while let block = try? handle.read(upToCount: 1 << 20), !block.isEmpty { hash.add(block) }
        return hash.hex
    }
}
