import XCTest
import ETLStore
import ETLModel
@testable import ETLPipeline
@testable import ETLEngine

/// Pushed down, `trim()` and `boolean()` of a string attribute run SQLite's own `trim` and
/// a CASE over the words before they call into Swift: for every text, what they give is
/// what the engine's Swift functions give (the fallback is that very function).
final class SQLTextShortcutTests: XCTestCase {
    func testTrimAndBooleanShortcutsGiveTheEnginesOwnValues() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        let texts: [String?] = [
            nil, "", " ", "\t a \n", "é", " é ", "\u{A0}x\u{A0}", "x\u{3000}", "a\u{0}b", " a\u{0}\u{A0}", "\u{0}",
            "\u{0B}\u{0C}q\r", "\u{1C}x\u{1F}", "\u{85}", "YES", " yes ", "Yes", "yés", "1", "0", "2", " 1 ", "01", "on",
            "ON", "oFf", "o\u{FB00}", "\u{212A}", "true\u{0}", "truE", "no", "nO ", "maybe", "1e3", "-0", "\u{130}",
        ]
        let trim = SQLTranslator.asciiTrim("v", else: "\(SQLTranslator.textFunction(.trim))(v)")
        let boolean = SQLTranslator.booleanWords("v", else: "\(SQLTranslator.convertFunction(.boolean, .string))(1, v)")
        for text in texts {
            // The text's bytes as SQL (a bound text would end at a NUL).
            let value = text.map { "CAST(X'" + $0.utf8.map { String(format: "%02X", $0) }.joined() + "' AS TEXT)" } ?? "NULL"
            let row = try db.rows("SELECT \(trim), \(boolean) FROM (SELECT \(value) AS v)")[0]
            let name = text.map { $0.unicodeScalars.map { String($0.value, radix: 16) }.joined(separator: " ") } ?? "null"
            XCTAssertEqual(row[0], text.map { .text(TextOperations.trim($0)) } ?? .null, "trim of \(name)")
            let flag = (try? Conversion.boolean.convert(text.map { .string($0) } ?? .null))?.sqlValue ?? .null
            XCTAssertEqual(row[1], flag, "boolean of \(name)")
        }
    }

    /// Only a string attribute read gets the shortcut: its SQL reads a column, which the
    /// CASE may read twice at no cost and with no effect.
    func testTheShortcutsAreTakenForAStringAttributeOnly() {
        let path = SourcePath(root: .source, segments: ["title"])
        let translator = SQLTranslator(layout: PlainLayout(model: Model(version: "m", entities: [
            Entity(name: "Note", attributes: [Attribute(name: "title", type: .string)], relationships: []),
        ])), entity: "Note", alias: "s")
        let trimmed = translator.sql(.text(.trim, .path(path, .string)))
        XCTAssertTrue(trimmed?.hasPrefix("(CASE WHEN length(") ?? false, trimmed ?? "nil")
        let literal = translator.sql(.text(.trim, .literal(.string(" a "))))
        XCTAssertEqual(literal, "etl_text_trim(' a ')")
        let flag = translator.sql(.convert(.boolean, .path(path, .string), from: .string, orNull: false))
        XCTAssertTrue(flag?.hasPrefix("(CASE lower(") ?? false, flag ?? "nil")
    }
}
