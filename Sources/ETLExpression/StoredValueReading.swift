import ETLStore

/// The one rule by which every path of the engine reads a stored value as a value of its
/// attribute's type (row by row, pushed down, policies' fields, filters, forEach, uniqueBy
/// keys, lookups): SQLite keeps any value in any column, and a value of another storage
/// class than its type's own is converted only where that is exact and reversible.
/// Anything else is *unreadable*: its row is rejected, naming the value and its storage
/// class (or made null, and counted, where the pipeline says `"unreadable": "null"`).
/// docs/pipeline.md has the table.
///
/// | type     | its own class | also read, exactly                                          |
/// |----------|---------------|-------------------------------------------------------------|
/// | integer  | INTEGER       | REAL with an integer value in Int64's range; TEXT that is an integer as it prints (`12`, `-3`) |
/// | double   | REAL          | INTEGER a double holds exactly (|n| ≤ 2^53 or a power of two…); TEXT that is a finite number as it prints (`12`, `12.5`) |
/// | boolean  | INTEGER 0/1   | REAL 0.0/1.0; TEXT `0`/`1`                                  |
/// | date     | REAL (finite) | INTEGER held exactly; TEXT in ISO 8601 (converted once, to the instant it names); TEXT that is a number as it prints (seconds since the layout's epoch) |
/// | string   | TEXT (UTF-8)  | INTEGER (its digits); finite REAL (its shortest form); BLOB of UTF-8 text |
/// | binary   | BLOB          | TEXT (its UTF-8 bytes)                                      |
extension Value {
    /// `sql` read as a value of `type`, or nil when the rule does not read it
    /// (`unreadable(sql:as:)` says why). Dates come as seconds since 1970: a number is
    /// seconds since `epoch` (the layout's, 0 for 1970), shifted once; ISO text names its
    /// instant and is not shifted again.
    @inline(__always)
    public static func reading(_ sql: SQLValue, as type: ExprType, epoch: Double = 0) -> Value? {
        switch (sql, type) {
        // The own storage classes first: what nearly every value is.
        case (.null, _), (_, .null): return .null
        case (.integer(let i), .integer): return .integer(i)
        case (.real(let r), .double): return .double(r)
        case (.text(let t), .string): return .string(t)
        case (.real(let r), .date): return r.isFinite ? .date(r + epoch) : nil
        case (.blob(let b), .binary): return .binary(b)
        case (.integer(let i), .boolean): return i == 0 || i == 1 ? .boolean(i == 1) : nil
        case (.integer(let key), .sourceRow), (.integer(let key), .destinationRow): return .row(key)
        case (.integer(let key), .sourceRows), (.integer(let key), .destinationRows): return .rows([key])

        case (.real(let r), .integer): return exactInteger(r).map(Value.integer)
        case (.text(let t), .integer): return printedInteger(t).map(Value.integer)
        case (.integer(let i), .double): return exactDouble(i).map(Value.double)
        case (.text(let t), .double): return printedDouble(t).map(Value.double)
        case (.real(let r), .boolean): return r == 0 || r == 1 ? .boolean(r == 1) : nil
        case (.text(let t), .boolean): return t == "0" || t == "1" ? .boolean(t == "1") : nil
        case (.integer(let i), .date): return exactDouble(i).map { .date($0 + epoch) }
        case (.text(let t), .date):
            if let seconds = CivilDate.parse(t), seconds.isFinite, isBareISODate(t) { return .date(seconds) }
            return printedDouble(t).map { .date($0 + epoch) }
        case (.integer(let i), .string): return .string(String(i))
        case (.real(let r), .string): return r.isFinite ? .string(String(r)) : nil
        case (.blob(let b), .string): return b.withUnsafeBufferPointer(\.utf8String).map(Value.string)
        case (.text(let t), .binary): return .binary(Array(t.utf8))
        default:
            // Relationship keys: only an integer is a key; anything else reads as no row.
            if type.isRow { return .null }
            return nil
        }
    }

    /// Why the rule does not read `sql` as `type`, or nil when it does: the value as stored
    /// (blobs in hex), its storage class, and what the type reads.
    /// - Parameter storedAsText: `sql` is the BLOB of the bytes of TEXT that is not UTF-8
    ///   (`Statement.storedValue`), named as the TEXT it is stored as.
    public static func unreadable(sql: SQLValue, as type: ExprType, storedAsText: Bool = false) -> String? {
        guard reading(sql, as: type) == nil else { return nil }
        let what: String
        switch type {
        case .integer: what = "an integer attribute reads an INTEGER, a REAL with an integer value, or TEXT that is an integer as it prints (12)"
        case .double: what = "a double attribute reads a REAL, an INTEGER a double holds exactly, or TEXT that is a finite number as it prints (12.5)"
        case .boolean: what = "a boolean attribute reads 0 or 1"
        case .date: what = "a date attribute reads a finite number of seconds, or TEXT in ISO 8601 (2024-01-31, 2024-01-31T10:00:00Z)"
        case .string:
            what = "a string attribute reads TEXT, a number, or a BLOB of UTF-8 text; "
                + "this is not UTF-8 text and would not arrive byte for byte (store it in a binary attribute)"
        case .binary: what = "a binary attribute reads a BLOB or TEXT"
        default: what = "it reads \(type) values"
        }
        let value: String
        if case .text(let t) = sql { value = "'" + t.split(separator: "'", omittingEmptySubsequences: false).joined(separator: "''") + "'" } else { value = shown(sql) }
        var storage = storageClass(sql)
        if storedAsText, case .blob = sql { storage = "TEXT (not UTF-8)" }
        return "the stored \(storage) \(value) is not \(type == .integer ? "an" : "a") \(type) value: \(what)"
    }

    /// The value as stored, for a reject file or a message: text as it is, numbers as
    /// SQLite prints them, blobs in hex (`x'DEADBEEF'`), null as `null`.
    public static func shown(_ sql: SQLValue) -> String {
        switch sql {
        case .null: return "null"
        case .integer(let i): return String(i)
        case .real(let r): return String(r)
        case .text(let t): return t
        case .blob(let b): return "x'" + b.map { String($0, radix: 16, uppercase: true).leftPadded(2) }.joined() + "'"
        }
    }

    /// SQLite's name of the storage class of `sql`.
    public static func storageClass(_ sql: SQLValue) -> String {
        switch sql {
        case .null: return "NULL"
        case .integer: return "INTEGER"
        case .real: return "REAL"
        case .text: return "TEXT"
        case .blob: return "BLOB"
        }
    }

    /// A REAL's value as an Int64 when it is a whole number within Int64's range.
    static func exactInteger(_ r: Double) -> Int64? {
        Int64(exactly: r)
    }

    /// An INTEGER as a double when the double holds it exactly (and reads back as it).
    static func exactDouble(_ i: Int64) -> Double? {
        let d = Double(i)
        return Int64(exactly: d) == i ? d : nil
    }

    /// TEXT that is an Int64 exactly as it prints: an optional `-`, digits without a
    /// leading zero (or `0`); no sign `+`, no white space, no exponent.
    static func printedInteger(_ t: String) -> Int64? {
        guard let i = Int64(t), String(i) == t else { return nil }
        return i
    }

    /// TEXT that is a finite number as it prints: an integer a double holds exactly, or a
    /// double's shortest form (`12.5`, `0.1`, `1e-07`). Not `NaN`, `inf`, ` 12`, `12.50`.
    static func printedDouble(_ t: String) -> Double? {
        if let i = printedInteger(t) { return exactDouble(i) }
        guard let first = t.utf8.first, first == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first),
              let d = Double(t), d.isFinite, String(d) == t else { return nil }
        return d
    }

    /// ISO 8601 text without white space around it (`CivilDate.parse` allows some).
    private static func isBareISODate(_ t: String) -> Bool {
        guard let first = t.utf8.first, let last = t.utf8.last else { return false }
        return first > 0x20 && last > 0x20
    }
}

private extension ExprType {
    var isRow: Bool {
        switch self {
        case .sourceRow, .destinationRow, .sourceRows, .destinationRows: return true
        default: return false
        }
    }
}

private extension String {
    func leftPadded(_ width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
