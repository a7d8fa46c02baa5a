import XCTest
import ETLTestSupport
@testable import ETLExpression

/// `Parser.parse(Printer.print(t))` is `t` (positions aside) for every tree the parser makes,
/// and for the trees producers build.
final class PrinterTests: XCTestCase {
    /// Parses `text`, prints it, parses the print: the two trees must be the same, and printing
    /// again gives the same text (the printed form is canonical).
    private func assertRoundTrip(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let tree = try Parser.parse(text)
        try assertRoundTrip(tree, file: file, line: line)
    }

    private func assertRoundTrip(_ tree: Syntax, file: StaticString = #filePath, line: UInt = #line) throws {
        let printed = Printer.print(tree)
        let again: Syntax
        do {
            again = try Parser.parse(printed)
        } catch {
            return XCTFail("printed \(printed) does not parse: \(error)", file: file, line: line)
        }
        XCTAssertTrue(again.isSameTree(as: tree), "printed \(printed) parses to another tree", file: file, line: line)
        XCTAssertEqual(Printer.print(again), printed, file: file, line: line)
    }

    func testEveryParsingExpressionOfTheFuzzCorpusRoundTrips() throws {
        let folder = repositoryRoot.appendingPathComponent("Fuzz/corpus/expressions")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
        var parsed = 0
        for name in names {
            let bytes = try Data(contentsOf: folder.appendingPathComponent(name))
            // As the fuzzer reads its input.
            let text = String(decoding: bytes, as: UTF8.self)
            guard (try? Parser.parse(text)) != nil else { continue }
            parsed += 1
            try assertRoundTrip(text)
        }
        // The corpus holds many expressions that parse; none read means the test read nothing.
        XCTAssertGreaterThan(parsed, 10, "expressions of \(folder.path) that parse")
    }

    func testParenthesesOnlyWherePrecedenceNeedsThem() throws {
        let cases: [(String, String)] = [
            ("(1 + 2) * 3", "(1 + 2) * 3"),
            ("1 + (2 * 3)", "1 + 2 * 3"),
            ("(1 - 2) - 3", "1 - 2 - 3"),
            ("1 - (2 - 3)", "1 - (2 - 3)"),
            ("8 / (4 / 2)", "8 / (4 / 2)"),
            ("8 % (3 * 2)", "8 % (3 * 2)"),
            ("-(1 + 2)", "-(1 + 2)"),
            ("!($source.title == 'x')", "!($source.title == 'x')"),
            ("not (true or false) and true", "not (true or false) and true"),
            ("(true || false) && (false || true)", "(true || false) && (false || true)"),
            ("true || (false && true)", "true || false && true"),
            ("(1 < 2) == (3 >= 4)", "1 < 2 == 3 >= 4"),
            ("1 == (2 == 3)", "1 == (2 == 3)"),
            ("- -1", "--1"),
            ("!!true", "!!true"),
            ("coalesce((1 + 2), (3))", "coalesce(1 + 2, 3)"),
        ]
        for (text, expected) in cases {
            XCTAssertEqual(Printer.print(try Parser.parse(text)), expected, text)
            try assertRoundTrip(text)
        }
    }

    func testStringsQuotedAsTheLexerReadsThem() throws {
        for value in ["", "it's", "''", "\"", "say \"hi\"", "back\\slash\\", "\\'", "tab\tand\nnewline",
                      "ünïcödé ✓ 日本語", "e\u{301}", "👩‍👩‍👧", "'quoted'", "$source.title", "a || b"] {
            let tree = Syntax.string(value)
            let printed = Printer.print(tree)
            XCTAssertEqual(try Parser.parse(printed).stringLiteral, value, printed)
            try assertRoundTrip(tree)
        }
        XCTAssertEqual(Printer.print(.string("it's")), "'it''s'")
        try assertRoundTrip("\"double \"\" quoted\"")
    }

    func testNumbers() throws {
        for text in ["0", "42", "9223372036854775807", "99999999999999999999", "1.5", "0.1", ".5", "1e3", "1.5E-7",
                     "5e-324", "1.7976931348623157e308", "1e999", "-3", "-2.5", "-0.0", "2 - -3", "-9223372036854775807 - 1"] {
            try assertRoundTrip(text)
        }
        // Numbers a producer may hold that the parser never makes: the text means the same value.
        for value: Value in [.integer(-5), .integer(.min), .double(-2.5), .double(-.infinity), .double(.infinity), .double(1e16)] {
            let printed = Printer.print(.literal(value))
            let compiled = try CompiledExpression.compile(printed, scope: ExpressionFixture.scope(), slots: SlotTable())
            XCTAssertEqual(try compiled.evaluate(EvaluationContext(slots: [], lookup: { _, _ in [] })), value, printed)
        }
        XCTAssertEqual(Printer.print(.literal(.double(1))), "1.0")
        XCTAssertEqual(Printer.print(.binary(.minus, .literal(.integer(2)), .literal(.integer(-3)))), "2 - -3")
    }

    func testKeyPathsAndCalls() throws {
        for text in ["$source", "$item", "$source.author.name", "$source._private", "$source.ünïcode", "$source.x1_2",
                     "$source.and", "$source.true.null", "$item.not", "destination('Books', $source)",
                     "union(destinations('A', $source.a), destinations('B', $source.b))", "now()",
                     "matches(upper($source.title), '^[A-Z]+$')"] {
            try assertRoundTrip(text)
        }
        XCTAssertTrue(Syntax.isName("_a1"))
        XCTAssertTrue(Syntax.isName("ünï"))
        XCTAssertFalse(Syntax.isName("1a"))
        XCTAssertFalse(Syntax.isName("a b"))
        XCTAssertFalse(Syntax.isName("a-b"))
        XCTAssertFalse(Syntax.isName(""))
    }

    func testOperatorsKeepTheirSpelling() throws {
        for text in ["true and false or not true", "true && false || !true", "1 != 2 and 3 <= 4", "$source.pages % 2 == 0"] {
            try assertRoundTrip(text)
            XCTAssertEqual(Printer.print(try Parser.parse(text)), text)
        }
    }

    func testTreesThatDifferAreNotTheSame() throws {
        let pairs = [("1 - 2 - 3", "1 - (2 - 3)"), ("true and false", "true && false"), ("$source.a", "$item.a"),
                     ("f(1)", "f(1, 2)"), ("'a'", "'b'"), ("1", "1.5"), ("!true", "-true")]
        for (a, b) in pairs {
            XCTAssertFalse(try Parser.parse(a).isSameTree(as: Parser.parse(b)), "\(a) vs \(b)")
        }
        XCTAssertTrue(try Parser.parse("( 1+2 )*3").isSameTree(as: Parser.parse("(1 + 2) * 3")))
    }
}
