/// Conversions between values the way SQLite's CAST and `||` perform them, so that an
/// expression evaluated here and the same expression pushed down into SQL agree.
enum SQLiteConversion {
    /// CAST(real AS INTEGER): truncation toward zero, saturating at the Int64 bounds;
    /// NaN becomes 0.
    static func integer(fromReal value: Double) -> Int64 {
        if value.isNaN { return 0 }
        if value <= -9_223_372_036_854_774_784.0 { return Int64.min }
        if value >= 9_223_372_036_854_774_784.0 { return Int64.max }
        return Int64(value.rounded(.towardZero))
    }

    /// CAST(text AS INTEGER): leading spaces skipped, then the longest prefix that reads
    /// as an integer (optional sign, digits; an exponent is not part of it), saturating
    /// at the Int64 bounds; 0 when there is no such prefix.
    static func integer(fromText text: String) -> Int64 {
        var scanner = ByteScanner(Array(text.utf8))
        scanner.skipSpaces()
        var negative = false
        if scanner.take(UInt8(ascii: "-")) { negative = true } else { _ = scanner.take(UInt8(ascii: "+")) }
        var magnitude: UInt64 = 0
        var overflow = false
        while let digit = scanner.peekDigit {
            scanner.position += 1
            if overflow { continue }
            let (times10, o1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, o2) = times10.addingReportingOverflow(UInt64(digit))
            if o1 || o2 { overflow = true } else { magnitude = sum }
        }
        if negative {
            if overflow || magnitude >= UInt64(Int64.max) + 1 { return Int64.min }
            return -Int64(magnitude)
        }
        if overflow || magnitude > UInt64(Int64.max) { return Int64.max }
        return Int64(magnitude)
    }

    /// CAST(text AS REAL): leading spaces skipped, then the longest prefix that reads as
    /// a decimal number (`-12`, `.5`, `3.`, `1e3`); 0.0 when there is no such prefix.
    static func real(fromText text: String) -> Double {
        var scanner = ByteScanner(Array(text.utf8))
        scanner.skipSpaces()
        var literal = ""
        if scanner.take(UInt8(ascii: "-")) { literal = "-" } else { _ = scanner.take(UInt8(ascii: "+")) }
        let integerDigits = scanner.decimalDigits()
        var fractionDigits = ""
        if scanner.peek == UInt8(ascii: ".") {
            let dot = scanner.position
            scanner.position += 1
            fractionDigits = scanner.decimalDigits()
            if integerDigits.isEmpty && fractionDigits.isEmpty { scanner.position = dot }
        }
        guard !integerDigits.isEmpty || !fractionDigits.isEmpty else { return 0 }
        literal += integerDigits.isEmpty ? "0" : integerDigits
        if !fractionDigits.isEmpty { literal += "." + fractionDigits }
        if scanner.peek == UInt8(ascii: "e") || scanner.peek == UInt8(ascii: "E") {
            let mark = scanner.position
            scanner.position += 1
            var exponent = "e"
            if scanner.take(UInt8(ascii: "-")) { exponent += "-" } else { _ = scanner.take(UInt8(ascii: "+")) }
            let exponentDigits = scanner.decimalDigits()
            if exponentDigits.isEmpty { scanner.position = mark } else { literal += exponent + exponentDigits }
        }
        return Double(literal) ?? 0
    }

    /// A double as text: Swift's shortest round-tripping form ("1.5", "2.0", "1e+20").
    static func text(fromReal value: Double) -> String {
        String(value)
    }

    /// The text form `concat` and `string()` use: integers as digits, doubles in their
    /// shortest form, booleans as 1/0, dates as `yyyy-MM-dd'T'HH:mm:ss'Z'`, binary decoded
    /// as UTF-8, strings unchanged. nil for null.
    static func text(from value: Value) -> String? {
        switch value {
        case .null: return nil
        case .string(let text): return text
        case .integer(let number): return String(number)
        case .double(let number): return text(fromReal: number)
        case .boolean(let flag): return flag ? "1" : "0"
        case .date(let seconds): return CivilDate.format(seconds)
        case .binary(let bytes): return String(decoding: bytes, as: UTF8.self)
        case .row(let key): return String(key)
        case .rows(let keys): return keys.map(String.init).joined(separator: ",")
        }
    }
}

extension ByteScanner {
    /// The run of decimal digits at the position (possibly empty), consumed.
    mutating func decimalDigits() -> String {
        let start = position
        while peekDigit != nil { position += 1 }
        return String(decoding: bytes[start..<position], as: UTF8.self)
    }
}
