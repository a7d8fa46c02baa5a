/// FNV-1a, 64 bits: a fast, stable fingerprint for noticing that a file changed between
/// two runs. Not a defence against tampering — nothing here needs one.
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x0000_0100_0000_01B3
        }
    }

    var hex: String { String(value, radix: 16) }
}
