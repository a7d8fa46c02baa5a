/// The conversion functions `integer()`, `double()`, `boolean()` and `date()`: a value
/// of another type made into one of these, or a `ConversionError` when it cannot be made
/// without inventing a value. A run rejects the row then (value and reason in the reject
/// file), unless the expression says `orNull(…)`.
///
/// Why not SQLite's CAST: CAST reads `'abc'` as 0 and `'2024/03/05'` as a null date, and
/// a migration then loses values without a word. Text must be the whole of a number (or
/// a boolean word, or a date), with only white space around it.
///
/// The engine runs the same code inside SQLite (`etl_convert_…`), so a step pushed down
/// gives the same values and rejects the same rows.
public enum Conversion: String, Sendable, Hashable, CaseIterable {
    case integer, double, boolean, date

    /// The type of the result.
    public var type: ExprType {
        switch self {
        case .integer: return .integer
        case .double: return .double
        case .boolean: return .boolean
        case .date: return .date
        }
    }

    /// `value` converted; `.null` stays null.
    public func convert(_ value: Value) throws(ConversionError) -> Value {
        if value.isNull { return .null }
        switch self {
        case .integer: return try Self.integer(value)
        case .double: return try Self.double(value)
        case .boolean: return try Self.boolean(value)
        case .date: return try Self.date(value)
        }
    }

    private func failure(_ value: Value, _ reason: String) -> ConversionError {
        ConversionError(function: rawValue, value: value, reason: reason)
    }

    private static func integer(_ value: Value) throws(ConversionError) -> Value {
        switch value {
        case .integer: return value
        case .boolean(let flag): return .integer(flag ? 1 : 0)
        case .double(let number), .date(let number):
            guard let whole = wholeNumber(number) else {
                throw Conversion.integer.failure(value, "outside the 64-bit integer range")
            }
            return .integer(whole)
        case .string(let text):
            guard let number = StrictNumber(text) else {
                throw Conversion.integer.failure(value, "not a number")
            }
            if let exact = number.integer { return .integer(exact) }
            guard let whole = wholeNumber(number.double) else {
                throw Conversion.integer.failure(value, "outside the 64-bit integer range")
            }
            return .integer(whole)
        default:
            throw Conversion.integer.failure(value, "not a number")
        }
    }

    /// A double truncated toward zero, as CAST does, when it fits an Int64.
    private static func wholeNumber(_ number: Double) -> Int64? {
        guard number.isFinite, number >= -9_223_372_036_854_775_808.0, number < 9_223_372_036_854_775_808.0 else { return nil }
        return Int64(number.rounded(.towardZero))
    }

    private static func double(_ value: Value) throws(ConversionError) -> Value {
        switch value {
        case .double: return value
        case .integer(let number): return .double(Double(number))
        case .date(let seconds): return .double(seconds)
        case .boolean(let flag): return .double(flag ? 1 : 0)
        case .string(let text):
            guard let number = StrictNumber(text) else { throw Conversion.double.failure(value, "not a number") }
            return .double(number.double)
        default:
            throw Conversion.double.failure(value, "not a number")
        }
    }

    /// Words a boolean may be written as (compared without case).
    /// The words `boolean()` reads as true and false, in any case.
    public static let trueWords: Set<String> = ["true", "yes", "on"]
    public static let falseWords: Set<String> = ["false", "no", "off"]

    /// What `word` says in any case (true/yes/on, false/no/off), or nil. Compared as ASCII
    /// folded to lower case, without `lowercased()` and a hash per value: no other scalar
    /// lowercases into these letters (Kelvin's K becomes k, Ångström's Å becomes å), so text
    /// that is not ASCII is none of the words.
    static func booleanWord(_ word: String) -> Bool? {
        guard word.utf8.count <= 5 else { return nil }
        var folded: UInt64 = 0
        for byte in word.utf8 {
            guard byte < 0x80 else { return nil }
            folded = folded << 8 | UInt64((0x41...0x5A).contains(byte) ? byte | 0x20 : byte)
        }
        if trueCodes.contains(folded) { return true }
        if falseCodes.contains(folded) { return false }
        return nil
    }

    /// The words' bytes, packed as `booleanWord` packs them.
    private static let trueCodes = trueWords.map(packed)
    private static let falseCodes = falseWords.map(packed)
    private static func packed(_ word: String) -> UInt64 { word.utf8.reduce(0) { $0 << 8 | UInt64($1) } }

    private static func boolean(_ value: Value) throws(ConversionError) -> Value {
        switch value {
        case .boolean: return value
        case .integer(let number): return .boolean(number != 0)
        case .double(let number): return .boolean(number != 0)
        case .string(let text):
            if let flag = booleanWord(TextOperations.trim(text)) { return .boolean(flag) }
            if let number = StrictNumber(text) { return .boolean(number.double != 0) }
            throw Conversion.boolean.failure(value, "not a boolean (true/false, yes/no, on/off or a number)")
        default:
            throw Conversion.boolean.failure(value, "not a boolean")
        }
    }

    /// What `date()` makes of a text given as its UTF-8 bytes when that text is an
    /// ISO-8601 date (`CivilDate.parse`, the first thing `date()` tries on a string); nil
    /// for anything else, which only `convert` decides (a number of seconds, or a reject).
    /// A byte that is not UTF-8 is never part of a date, so the raw bytes give the answer
    /// the repaired String would.
    public static func isoDate(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        CivilDate.parse(bytes: bytes)
    }

    private static func date(_ value: Value) throws(ConversionError) -> Value {
        switch value {
        case .date: return value
        case .integer(let seconds): return .date(Double(seconds))
        case .double(let seconds):
            guard seconds.isFinite else { throw Conversion.date.failure(value, "not a finite number of seconds") }
            return .date(seconds)
        case .string(let text):
            if let seconds = CivilDate.parse(text) { return .date(seconds) }
            if let number = StrictNumber(text), number.double.isFinite { return .date(number.double) }
            throw Conversion.date.failure(value, "not a date (ISO 8601 such as 2024-01-31 or 2024-01-31T10:00:00Z, of a day the month has, or seconds since 1970)")
        default:
            throw Conversion.date.failure(value, "not a date")
        }
    }
}

/// A value a conversion function could not convert: the row is rejected with this as its
/// reason (`orNull(…)` makes it null instead).
public struct ConversionError: Error, Sendable, Hashable, CustomStringConvertible {
    public var function: String
    public var value: Value
    public var reason: String

    /// "date('yesterday'): not a date (…)"
    public var description: String {
        let shown: String
        switch value {
        case .string(let text): shown = "'" + text.replacingAll("'", with: "''") + "'"
        case .integer(let number): shown = String(number)
        case .double(let number): shown = String(number)
        case .date(let seconds): shown = "date(\(seconds))"
        case .binary(let bytes): shown = "<\(bytes.count) bytes>"
        default: shown = "…"
        }
        return "\(function)(\(shown)): \(reason)"
    }
}

/// A number written as the whole of a text: optional white space, an optional sign, digits
/// with an optional fraction (`12`, `-3.5`, `.5`, `3.`), an optional exponent (`1e3`),
/// optional white space. `integer` is set when it is an integer literal within Int64.
struct StrictNumber {
    var double: Double
    var integer: Int64?

    init?(_ text: String) {
        let trimmed = TextOperations.trim(text)
        var scanner = ByteScanner(Array(trimmed.utf8))
        var literal = ""
        if scanner.take(UInt8(ascii: "-")) { literal = "-" } else { _ = scanner.take(UInt8(ascii: "+")) }
        let integerDigits = scanner.decimalDigits()
        var fractionDigits: String?
        if scanner.take(UInt8(ascii: ".")) { fractionDigits = scanner.decimalDigits() }
        guard !integerDigits.isEmpty || !(fractionDigits ?? "").isEmpty else { return nil }
        literal += integerDigits.isEmpty ? "0" : integerDigits
        if let fractionDigits, !fractionDigits.isEmpty { literal += "." + fractionDigits }
        var hasExponent = false
        if scanner.take(UInt8(ascii: "e")) || scanner.take(UInt8(ascii: "E")) {
            var exponent = "e"
            if scanner.take(UInt8(ascii: "-")) { exponent += "-" } else { _ = scanner.take(UInt8(ascii: "+")) }
            let exponentDigits = scanner.decimalDigits()
            guard !exponentDigits.isEmpty else { return nil }
            literal += exponent + exponentDigits
            hasExponent = true
        }
        guard scanner.atEnd, let number = Double(literal) else { return nil }
        double = number
        integer = fractionDigits == nil && !hasExponent ? Int64(literal) : nil
    }
}

private extension String {
    func replacingAll(_ find: Character, with replacement: String) -> String {
        var out = ""
        for character in self { if character == find { out += replacement } else { out.append(character) } }
        return out
    }
}
