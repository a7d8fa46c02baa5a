import Foundation
import ETLStore

/// The string functions. Most follow SQLite's semantics so that push-down gives the same
/// results: characters are Unicode scalars (SQLite counts code points, not grapheme
/// clusters), `upper`/`lower` are ASCII-only, and `replace` matches bytes. `trim`,
/// `normalize` and `casefold` are Unicode-aware and have no SQLite twin: the engine
/// registers these very functions in SQLite (`TextFunction`).
enum TextOperations {
    /// SQLite's `substr(s, start, length)`: 1-based start; a start of 0 or a negative
    /// start counts as SQLite does (negative: from the end); a negative length takes the
    /// characters before `start`. nil length: to the end.
    static func substring(_ text: String, start: Int64, length: Int64?) -> String {
        let scalars = Array(text.unicodeScalars)
        let count = Int64(scalars.count)
        // Clamp so that the arithmetic below cannot overflow; no string is this long.
        let bound: Int64 = 1 << 53
        var p1 = min(max(start, -bound), bound)
        var p2: Int64
        var negativeLength = false
        if let length {
            p2 = min(max(length, -bound), bound)
            if p2 < 0 { p2 = -p2; negativeLength = true }
        } else {
            p2 = bound
        }
        if p1 < 0 {
            p1 += count
            if p1 < 0 {
                p2 += p1
                if p2 < 0 { p2 = 0 }
                p1 = 0
            }
        } else if p1 > 0 {
            p1 -= 1
        } else if p2 > 0 {
            p2 -= 1
        }
        if negativeLength {
            p1 -= p2
            if p1 < 0 {
                p2 += p1
                p1 = 0
            }
        }
        guard p1 < count, p2 > 0 else { return "" }
        let end = min(p1 + p2, count)
        var result = String.UnicodeScalarView()
        result.append(contentsOf: scalars[Int(p1)..<Int(end)])
        return String(result)
    }

    /// ASCII-only upper case, as SQLite's built-in `upper()`.
    static func upper(_ text: String) -> String {
        mapASCII(text, from: UInt8(ascii: "a"), to: UInt8(ascii: "z"), offset: -32)
    }

    /// ASCII-only lower case, as SQLite's built-in `lower()`.
    static func lower(_ text: String) -> String {
        mapASCII(text, from: UInt8(ascii: "A"), to: UInt8(ascii: "Z"), offset: 32)
    }

    private static func mapASCII(_ text: String, from low: UInt8, to high: UInt8, offset: Int16) -> String {
        guard text.utf8.contains(where: { $0 >= low && $0 <= high }) else { return text }
        let bytes = text.utf8.map { $0 >= low && $0 <= high ? UInt8(Int16($0) + offset) : $0 }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Removes white space (every scalar with Unicode's White_Space property: spaces,
    /// tabs, line breaks, no-break and ideographic spaces…) from both ends.
    static func trim(_ text: String) -> String {
        // By bytes while the ends are ASCII (every value of a pushed-down step comes here):
        // a byte of 0x80 or more at an end may begin a white-space scalar, so the scalars decide.
        let utf8 = text.utf8
        var start = utf8.startIndex, end = utf8.endIndex
        while start < end, utf8[start] < 0x80, isWhiteSpace(Unicode.Scalar(utf8[start])) { start = utf8.index(after: start) }
        while start < end, utf8[utf8.index(before: end)] < 0x80, isWhiteSpace(Unicode.Scalar(utf8[utf8.index(before: end)])) {
            end = utf8.index(before: end)
        }
        let asciiEnds = start == end || (utf8[start] < 0x80 && utf8[utf8.index(before: end)] < 0x80)
        if asciiEnds {
            if start == utf8.startIndex && end == utf8.endIndex { return text }
            return String(text[start..<end])
        }
        return trimScalars(text)
    }

    /// `trim` of stored text by its bytes: the range of `bytes` it keeps, when they are
    /// UTF-8 and what it keeps begins and ends with ASCII; else nil (not UTF-8: the reading
    /// rule decides; a byte of 0x80 or more at an end may begin a white-space scalar: the
    /// scalars decide). What SQLite's `etl_text_trim` answers without making a String.
    static func trimmedRange(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        guard bytes.isValidUTF8 else { return nil }
        var start = 0, end = bytes.count
        while start < end, bytes[start] < 0x80, isWhiteSpace(Unicode.Scalar(bytes[start])) { start += 1 }
        while start < end, bytes[end - 1] < 0x80, isWhiteSpace(Unicode.Scalar(bytes[end - 1])) { end -= 1 }
        guard start == end || (bytes[start] < 0x80 && bytes[end - 1] < 0x80) else { return nil }
        return start..<end
    }

    /// `trim` scalar by scalar, what it does when an end is not ASCII.
    static func trimScalars(_ text: String) -> String {
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isWhiteSpace($0) }) else {
            return scalars.isEmpty ? text : ""
        }
        let last = scalars.lastIndex(where: { !isWhiteSpace($0) })!
        if first == scalars.startIndex && scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// Unicode's White_Space property, answered without a table look-up for ASCII (tab,
    /// line feed, vertical tab, form feed, carriage return, space), the common case: the
    /// look-up cost more than the rest of `trim`.
    @inline(__always)
    static func isWhiteSpace(_ scalar: Unicode.Scalar) -> Bool {
        if scalar.value < 0x80 { return scalar.value == 0x20 || (0x09...0x0D).contains(scalar.value) }
        return scalar.properties.isWhitespace
    }

    /// Unicode canonical composition (NFC): `e` + U+0301 becomes `é`, so texts that look
    /// alike compare alike.
    static func normalize(_ text: String) -> String {
        // ASCII is already in NFC: skip Foundation for the common case.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return text.precomposedStringWithCanonicalMapping
    }

    /// Unicode full case folding, independent of the locale, then NFC: 'Straße', 'STRASSE'
    /// and 'strasse' give 'strasse'. For keys that must not depend on case (`uniqueBy`).
    static func casefold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return lower(text) }
        return text.folding(options: [.caseInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    /// Diacritics removed, as Foundation folds them for a diacritic-insensitive comparison
    /// (NSPredicate's `[d]`), then NFC: 'Café', 'Cafe\u{301}' and 'Cafe' give 'Cafe'.
    static func diacriticfold(_ text: String) -> String {
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return text.folding(options: [.diacriticInsensitive], locale: nil).precomposedStringWithCanonicalMapping
    }

    /// Replaces every non-overlapping occurrence of `find`, left to right, comparing
    /// bytes (as SQLite does). An empty `find` leaves the text unchanged.
    static func replace(_ text: String, _ find: String, with replacement: String) -> String {
        let pattern = Array(find.utf8)
        guard !pattern.isEmpty else { return text }
        let source = Array(text.utf8)
        let substitute = Array(replacement.utf8)
        var result: [UInt8] = []
        result.reserveCapacity(source.count)
        var index = 0
        var replaced = false
        while index < source.count {
            if source[index] == pattern[0], index + pattern.count <= source.count,
               source[index..<(index + pattern.count)].elementsEqual(pattern) {
                result.append(contentsOf: substitute)
                index += pattern.count
                replaced = true
            } else {
                result.append(source[index])
                index += 1
            }
        }
        return replaced ? String(decoding: result, as: UTF8.self) : text
    }

    /// The number of characters (Unicode scalars, as SQLite counts them).
    static func length(_ text: String) -> Int64 {
        Int64(text.unicodeScalars.count)
    }
}
