import XCTest
import ETLTestSupport
import ETLStore
import ETLModel
@testable import ETLExpression

/// Pushed down, `trim()` of a string attribute trims its stored bytes (no String made),
/// `boolean()` runs a CASE over the words before it calls into Swift, and `date()` of a
/// text reads its bytes: for every stored value, what they give is what the engine's Swift
/// functions give (the fallback is that very function), and a value the reading rule does
/// not read fails the statement by itself — text that is not UTF-8 included — so that a
/// statement reading a column only through them needs no row guard (`PushdownPlan.rowGuard`).
final class SQLTextShortcutTests: XCTestCase {
    func testTrimAndBooleanShortcutsGiveTheEnginesOwnValues() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        let texts = [
            "", " ", "\t a \n", "é", " é ", "\u{A0}x\u{A0}", "x\u{3000}", "a\u{0}b", " a\u{0}\u{A0}", "\u{0}",
            "\u{0B}\u{0C}q\r", "\u{1C}x\u{1F}", "\u{85}", "YES", " yes ", "Yes", "yés", "1", "0", "2", " 1 ", "01", "on",
            "ON", "oFf", "o\u{FB00}", "\u{212A}", "true\u{0}", "truE", "no", "nO ", "maybe", "1e3", "-0", "\u{130}",
        ]
        // Each text by its bytes (a bound text would end at a NUL), and values of the other storage classes.
        let values = texts.map { "CAST(X'" + $0.utf8.map { String(format: "%02X", $0) }.joined() + "' AS TEXT)" }
            + ["NULL", "1", "0", "10", "1.0", "0.0", "-1", "X'796573'", "X'2059657320'", "X'FF'", "X''", "CAST(X'C3' AS TEXT)",
               // Not UTF-8, yet as many characters as bytes by SQLite's count: no ASCII.
               "CAST(X'FF' AS TEXT)", "CAST(X'2080' AS TEXT)", "CAST(X'61C328' AS TEXT)", "CAST(X'20FE20' AS TEXT)"]
        // The translator's SQL for a string attribute `v`, shortcut and way out.
        let trim = try Self.translated(.text(.trim, Self.v))
        let boolean = try Self.translated(.convert(.boolean, Self.v, from: .string, orNull: true))
        for value in values {
            let stored = try Self.stored(value, db)
            let shortcuts = [trim, boolean].map { sql in Result { try db.rows("SELECT \(sql) FROM (SELECT \(value) AS v) AS s")[0][0] } }
            if let reason = Value.unreadable(sql: stored, as: .string) {
                XCTAssertThrowsError(try shortcuts[0].get(), "trim of \(value) is rejected: \(reason)")
                XCTAssertThrowsError(try shortcuts[1].get(), "boolean of \(value) is rejected: \(reason)")
                for function in [TextFunction.normalize, .casefold, .diacriticfold] {
                    let sql = try Self.translated(.text(function, Self.v))
                    XCTAssertThrowsError(try db.rows("SELECT \(sql) FROM (SELECT \(value) AS v) AS s"), "\(function) of \(value) is rejected: \(reason)")
                }
                continue
            }
            let row = try shortcuts.map { try $0.get() }
            let text = Value(sql: stored, as: .string)
            let trimmed: SQLValue
            if case .string(let string) = text { trimmed = .text(TextOperations.trim(string)) } else { trimmed = .null }
            XCTAssertEqual(row[0], trimmed, "trim of \(value)")
            XCTAssertEqual(row[1], (try? Conversion.boolean.convert(text))?.sqlValue ?? .null, "boolean of \(value)")
        }
    }

    /// Pushed down, `date()` of a text reads its bytes, not a String of them: for every
    /// text it gives the engine's own date, or sends the value on to the engine's
    /// conversion (a number of seconds, or a reject).
    func testTextDatesReadAsBytesGiveTheEnginesOwnDates() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        let texts = [
            "2024-01-31", "2024-02-29", "2023-02-29", "2024-02-30", "2024-04-31", "2024-13-01", "2024-00-10", "0000-01-01",
            "9999-12-31T23:59:59Z", "2024-01-31T10:00:00Z", "2024-01-31 10:00:00", "2024-01-31T10:00", "2024-01-31T24:00:00",
            "2024-01-31T25:00:00", "2024-01-31T10:60:00", "2024-01-31T10:00:60", "2024-01-31T10:00:00.25",
            "2024-01-31T10:00:00.", "2024-01-31T10:00:00+02:00", "2024-01-31T10:00:00-14:00", "2024-01-31T10:00:00+15:00",
            "2024-01-31T10:00:00z", " 2024-01-31 ", "2024-01-31  10:00", "2024-01-31TT10:00", "2024-01-31 T10:00",
            "2024-1-31", "24-01-31", "2024-01-31x", "2024-01-31\u{0}", "2024-01-31T10:00:00\u{0}Z", "\u{FF10}024-01-31",
            "1700000000", " 1.5e9 ", "-86400", "now", "", "2024-01-31T10:00:00 +02:00", "2024-01-31T10:00:00Z ",
        ]
        let values = texts.map { "CAST(X'" + $0.utf8.map { String(format: "%02X", $0) }.joined() + "' AS TEXT)" }
            + ["CAST(X'323032342D30312D3331FF' AS TEXT)", "NULL", "1700000000", "1.5", "X'323032342D30312D3331'"]
        let sql = try Self.translated(.convert(.date, Self.v, from: .string, orNull: false))
        for value in values {
            let stored = try Self.stored(value, db)
            let date = Result { try db.rows("SELECT \(sql) FROM (SELECT \(value) AS v) AS s")[0][0] }
            if let reason = Value.unreadable(sql: stored, as: .string) {
                XCTAssertThrowsError(try date.get(), "\(value) is rejected: \(reason)")
                continue
            }
            let expected = Result { try Conversion.date.convert(Value(sql: stored, as: .string)).sqlValue }
            switch (date, expected) {
            case (.success(let got), .success(let want)): XCTAssertEqual(got, want, "date of \(value)")
            case (.failure, .failure): break
            default: XCTFail("date of \(value): \(date) pushed down, \(expected) in the engine")
            }
        }
    }

    /// A string attribute `v` of the row `s`.
    /// `matches(v, pattern)` (Core Data's MATCHES) pushed down calls the engine's own
    /// regular expression: for every text and pattern, the value row by row computes, and a
    /// pattern that is no regular expression fails the statement as it rejects the row.
    func testMatchesPushedDownGivesTheEnginesOwnAnswer() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        let texts = ["", "Architecture", "architecture", "iOS", "quality", "Zoology", "1990s", "ab", "a", "é", "É", "a\nb", "abc"]
        let patterns = ["[a-hA-H].*", "[i-pI-P].*", "[q-zQ-Z].*", "a|ab", "a", ".*", "é", "(?i)ARCH.*", "a.b", "[", "b"]
        for pattern in patterns {
            let sql = try Self.translated(.matches(Self.v, .literal(.string(pattern))))
            for text in texts {
                let value = "CAST(X'" + text.utf8.map { String(format: "%02X", $0) }.joined() + "' AS TEXT)"
                let pushed = Result { try db.rows("SELECT \(sql) FROM (SELECT \(value) AS v) AS s")[0][0] }
                let rowByRow = Result { try RegularExpression.matches(text, pattern: pattern) }
                switch (pushed, rowByRow) {
                case (.success(let row), .success(let matches)): XCTAssertEqual(row, .integer(matches ? 1 : 0), "'\(text)' MATCHES '\(pattern)'")
                case (.failure, .failure): break
                default: XCTFail("'\(text)' MATCHES '\(pattern)': pushed down \(pushed), row by row \(rowByRow)")
                }
            }
        }
        // MATCHES is the whole text, backtracking to a longer alternative where one fits.
        XCTAssertTrue(try RegularExpression.matches("ab", pattern: "a|ab"))
        XCTAssertFalse(try RegularExpression.matches("abc", pattern: "a|ab"))
        XCTAssertFalse(try RegularExpression.matches("xa", pattern: "a"))
        XCTAssertEqual(try db.rows("SELECT \(try Self.translated(.matches(Self.v, .literal(.string("a")))) ) FROM (SELECT NULL AS v) AS s")[0][0], .null)
    }

    private static let v = ExpressionForm.path(SourcePath(root: .source, segments: ["v"]), .string)

    /// The SQL the translator writes for `form` over `s`, a row of an entity whose only
    /// attribute is the string `v`.
    private static func translated(_ form: ExpressionForm) throws -> String {
        let translator = SQLTranslator(layout: PlainLayout(model: Model(version: "m", entities: [
            Entity(name: "Note", attributes: [Attribute(name: "v", type: .string)], relationships: []),
        ])), entity: "Note", alias: "s")
        return try XCTUnwrap(translator.sql(form))
    }

    /// Only a string attribute read gets the shortcut: it tests the column as stored, and
    /// reads it as the engine does only on its way out.
    func testTheShortcutsAreTakenForAStringAttributeOnly() {
        let path = SourcePath(root: .source, segments: ["title"])
        let translator = SQLTranslator(layout: PlainLayout(model: Model(version: "m", entities: [
            Entity(name: "Note", attributes: [Attribute(name: "title", type: .string)], relationships: []),
        ])), entity: "Note", alias: "s")
        XCTAssertEqual(translator.sql(.text(.trim, .path(path, .string))), "etl_text_trim(s.\"title\")")
        let literal = translator.sql(.text(.trim, .literal(.string(" a "))))
        XCTAssertEqual(literal, "etl_text_trim(' a ')")
        let flag = translator.sql(.convert(.boolean, .path(path, .string), from: .string, orNull: false))
        XCTAssertTrue(flag?.hasPrefix("(CASE lower(s.\"title\") WHEN") ?? false, flag ?? "nil")
    }

    /// `value` as a source column holds it: text that is not UTF-8 as the blob of its bytes,
    /// as the engine reads it (`Statement.storedValue`).
    static func stored(_ value: String, _ db: Database) throws -> SQLValue {
        let statement = try db.prepare("SELECT \(value)")
        _ = try statement.step()
        defer { statement.reset() }
        return statement.storedValue(0)
    }
}
