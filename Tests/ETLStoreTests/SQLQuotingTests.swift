import XCTest
import ETLStore

final class SQLQuotingTests: XCTestCase {
    func testTextsAndNamesAreQuotedWithEachQuoteDoubled() {
        XCTAssertEqual(SQLValue.text("").sqlLiteral, "''")
        XCTAssertEqual(SQLValue.text("it's").sqlLiteral, "'it''s'")
        XCTAssertEqual(SQLValue.text("''").sqlLiteral, "''''''")
        XCTAssertEqual(SQLValue.text("Zürich \"Ω\" 🙂").sqlLiteral, "'Zürich \"Ω\" 🙂'")
        XCTAssertEqual(Database.quote("Ω\"x"), "\"Ω\"\"x\"")
        XCTAssertEqual(SQLValue.blob([]).sqlLiteral, "X''")
        XCTAssertEqual(SQLValue.blob([0x00, 0x0F, 0xA0, 0xFF]).sqlLiteral, "X'000FA0FF'")
        XCTAssertEqual(SQLValue.integer(-3).sqlLiteral, "-3")
        XCTAssertEqual(SQLValue.null.sqlLiteral, "NULL")
    }

    /// A quote followed by a combining mark is one character to Swift and Foundation, and
    /// Foundation's search did not double it: the literal ended there. Doubled now, SQLite
    /// reads the text back as it was.
    func testAQuoteBeforeACombiningMarkIsDoubledToo() throws {
        let text = "a'\u{301}b"
        XCTAssertEqual(Array(SQLValue.text(text).sqlLiteral.utf8), Array("'a''\u{301}b'".utf8))
        let db = try Database(path: ":memory:", mode: .create)
        XCTAssertEqual(try db.rows("SELECT \(SQLValue.text(text).sqlLiteral)").first?.first, .text(text))
        try db.execute("CREATE TABLE \(Database.quote("t\"\u{301}")) (x)")
        XCTAssertEqual(try db.rows("SELECT name FROM sqlite_schema").first?.first, .text("t\"\u{301}"))
    }

    /// Whatever the text, SQLite reads back the literal as the text itself.
    func testSQLiteReadsEveryLiteralBackAsItsText() throws {
        let db = try Database(path: ":memory:", mode: .create)
        var generator = SplitMix64(seed: 44)
        let pieces = ["'", "\"", "a", "é", "\u{301}", "🙂", " ", "''", "\n"]
        for _ in 0..<200 {
            let text = (0..<Int(generator.next() % 8)).map { _ in pieces[Int(generator.next() % UInt64(pieces.count))] }.joined()
            XCTAssertEqual(try db.rows("SELECT \(SQLValue.text(text).sqlLiteral)").first?.first, .text(text), text)
            let bytes = (0..<Int(generator.next() % 6)).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            XCTAssertEqual(try db.rows("SELECT \(SQLValue.blob(bytes).sqlLiteral)").first?.first, .blob(bytes))
        }
    }
}
