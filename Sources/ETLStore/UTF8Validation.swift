extension UnsafeBufferPointer where Element == UInt8 {
    /// The bytes are UTF-8 (SQLite keeps whatever bytes it is given as TEXT). ASCII is
    /// tested eight bytes at a time first, as nearly every text is; the rest by the
    /// standard library. No String is made.
    public var isValidUTF8: Bool {
        var index = 0
        if let base = baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= count {
                if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
        }
        while index < count, self[index] < 0x80 { index += 1 }
        return index == count || String(validating: UnsafeBufferPointer(rebasing: self[index...]), as: UTF8.self) != nil
    }
}
