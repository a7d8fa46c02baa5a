/// Texts and names written into SQL between quotes, each quote inside doubled ('it''s',
/// "my""table"), and blobs as hex (X'01FF').
///
/// Byte by byte over the UTF-8, not by Foundation's `replacingOccurrences` (about 23,000
/// instructions a text, mostly a search and a copy through NSString): a batch quotes every
/// row of every store's schema to tell its kind (`PlanCache`). A quote is ASCII, so it is
/// never a byte of another character's UTF-8; it is doubled wherever it stands, a combining
/// mark after it too (that search, comparing canonically, did not match a quote followed
/// by one, and so left it single: the literal then ended there).
public enum SQLQuoting {
    /// `text` between `quote`s (an ASCII quote: `'` or `"`), each `quote` in it doubled.
    public static func quoted(_ text: String, by quote: Unicode.Scalar) -> String {
        let mark = UInt8(ascii: quote)
        let utf8 = text.utf8
        return String(unsafeUninitializedCapacity: 2 * utf8.count + 2) { buffer in
            var end = 0
            buffer[end] = mark
            end += 1
            for byte in utf8 {
                buffer[end] = byte
                end += 1
                if byte == mark {
                    buffer[end] = mark
                    end += 1
                }
            }
            buffer[end] = mark
            return end + 1
        }
    }

    /// `bytes` as SQL's blob literal: X'…', two upper-case hex digits a byte.
    public static func blob(_ bytes: [UInt8]) -> String {
        let digits: StaticString = "0123456789ABCDEF"
        return String(unsafeUninitializedCapacity: 2 * bytes.count + 3) { buffer in
            digits.withUTF8Buffer { digits in
                buffer[0] = UInt8(ascii: "X")
                buffer[1] = UInt8(ascii: "'")
                var end = 2
                for byte in bytes {
                    buffer[end] = digits[Int(byte >> 4)]
                    buffer[end + 1] = digits[Int(byte & 0x0F)]
                    end += 2
                }
                buffer[end] = UInt8(ascii: "'")
            }
            return 2 * bytes.count + 3
        }
    }
}
