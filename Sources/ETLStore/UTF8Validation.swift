extension UnsafeBufferPointer where Element == UInt8 {
    /// The bytes are UTF-8 (SQLite keeps whatever bytes it is given as TEXT): no overlong
    /// form, no surrogate, nothing beyond U+10FFFF, no sequence cut short. ASCII is passed
    /// eight bytes at a time, as nearly every text is. No String is made: the standard
    /// library's `String(validating:as:)` cost a thousand instructions per short text here.
    public var isValidUTF8: Bool {
        var index = 0
        let count = self.count
        if let base = baseAddress {
            let raw = UnsafeRawPointer(base)
            while index + 8 <= count {
                if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { break }
                index += 8
            }
        }
        while index < count {
            let lead = self[index]
            if lead < 0x80 { index += 1; continue }
            // The second byte's range depends on the lead (RFC 3629's table); the others are 80...BF.
            let length: Int
            let second: ClosedRange<UInt8>
            switch lead {
            case 0xC2...0xDF: length = 2; second = 0x80...0xBF
            case 0xE0: length = 3; second = 0xA0...0xBF
            case 0xE1...0xEC, 0xEE...0xEF: length = 3; second = 0x80...0xBF
            case 0xED: length = 3; second = 0x80...0x9F
            case 0xF0: length = 4; second = 0x90...0xBF
            case 0xF1...0xF3: length = 4; second = 0x80...0xBF
            case 0xF4: length = 4; second = 0x80...0x8F
            default: return false
            }
            guard index + length <= count, second.contains(self[index + 1]) else { return false }
            for next in index + 2 ..< index + length where self[next] & 0xC0 != 0x80 { return false }
            index += length
        }
        return true
    }

    /// The bytes as a String when they are UTF-8, else nil (never U+FFFD in place of a byte).
    public var utf8String: String? {
        isValidUTF8 ? String(decoding: self, as: UTF8.self) : nil
    }
}
