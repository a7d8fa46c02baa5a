/// A cursor over UTF-8 bytes for the small hand-written parsers.
/// Over an array, or over a string's own bytes (`String.withUTF8`) where no copy is wanted.
struct ByteScanner<Bytes: RandomAccessCollection> where Bytes.Element == UInt8, Bytes.Index == Int {
    let bytes: Bytes
    var position = 0

    init(_ bytes: Bytes) { self.bytes = bytes }

    var atEnd: Bool { position >= bytes.count }
    var peek: UInt8? { position < bytes.count ? bytes[position] : nil }

    var peekDigit: Int64? {
        guard let byte = peek, byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
        return Int64(byte - UInt8(ascii: "0"))
    }

    mutating func take(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        position += 1
        return true
    }

    /// Exactly `count` decimal digits as a number, or nil (position unchanged).
    mutating func digits(_ count: Int) -> Int64? {
        let start = position
        var value: Int64 = 0
        for _ in 0..<count {
            guard let digit = peekDigit else { position = start; return nil }
            value = value * 10 + digit
            position += 1
        }
        return value
    }

    /// SQLite's isspace: space, \t, \n, \v, \f, \r.
    static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || (byte >= 0x09 && byte <= 0x0D)
    }

    mutating func skipSpaces() {
        while let byte = peek, Self.isSpace(byte) { position += 1 }
    }
}
