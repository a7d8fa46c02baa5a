import XCTest
import ETLDocument

/// A comparable copy of a parsed value, without positions.
indirect enum JSONValue: Equatable, CustomStringConvertible {
    case null
    case bool(Bool)
    case number(String)
    case string(String)
    case array([JSONValue])
    case object([Member])

    struct Member: Equatable {
        var key: String
        var value: JSONValue
    }

    init(_ node: JSONNode) {
        switch node.value {
        case .null: self = .null
        case .bool(let b): self = .bool(b)
        case .number(let n): self = .number(n)
        case .string(let s): self = .string(s)
        case .array(let elements): self = .array(elements.map(JSONValue.init))
        case .object(let members): self = .object(members.map { Member(key: $0.key, value: JSONValue($0.node)) })
        }
    }

    var description: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return String(b)
        case .number(let n): return n
        case .string(let s): return s.debugDescription
        case .array(let a): return "[" + a.map(\.description).joined(separator: ",") + "]"
        case .object(let m): return "{" + m.map { "\($0.key.debugDescription):\($0.value)" }.joined(separator: ",") + "}"
        }
    }
}

final class JSONParserTests: XCTestCase {
    private func parse(_ text: String) throws -> JSONNode {
        try JSONParser.parse(Array(text.utf8), file: "doc.json")
    }

    private func value(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> JSONValue? {
        do {
            return JSONValue(try parse(text))
        } catch {
            XCTFail("\(text.debugDescription) should parse: \(error)", file: file, line: line)
            return nil
        }
    }

    /// Asserts that `text` fails to parse with an error at `line`:`column` whose message contains `message`.
    private func assertError(_ text: String, line: Int, column: Int, _ message: String,
                             file: StaticString = #filePath, testLine: UInt = #line) {
        assertError(Array(text.utf8), line: line, column: column, message, file: file, testLine: testLine)
    }

    private func assertError(_ bytes: [UInt8], line: Int, column: Int, _ message: String,
                             file: StaticString = #filePath, testLine: UInt = #line) {
        do {
            let node = try JSONParser.parse(bytes, file: "doc.json")
            XCTFail("expected an error, parsed \(JSONValue(node))", file: file, line: testLine)
        } catch let error as DocumentError {
            XCTAssertEqual(error.file, "doc.json", file: file, line: testLine)
            XCTAssertEqual(error.path, "$", file: file, line: testLine)
            XCTAssertEqual("\(error.line):\(error.column)", "\(line):\(column)", "position of: \(error)", file: file, line: testLine)
            XCTAssertTrue(error.message.hasPrefix("invalid JSON: "), error.message, file: file, line: testLine)
            XCTAssertTrue(error.message.contains(message), "'\(error.message)' should contain '\(message)'", file: file, line: testLine)
            XCTAssertEqual(error.description, "doc.json:\(error.line):\(error.column): $: \(error.message)", file: file, line: testLine)
        } catch {
            XCTFail("expected a DocumentError, got \(error)", file: file, line: testLine)
        }
    }

    // MARK: Valid documents

    func testScalars() {
        XCTAssertEqual(value("null"), .null)
        XCTAssertEqual(value("true"), .bool(true))
        XCTAssertEqual(value("false"), .bool(false))
        XCTAssertEqual(value("\"\""), .string(""))
        XCTAssertEqual(value("  \"text\"\n"), .string("text"))
    }

    func testNumbersAreKeptAsWritten() {
        for number in ["0", "-0", "7", "-12", "3.25", "-0.5", "1e10", "1E+2", "2.5e-3", "-9223372036854775808", "123456789012345678901234567890"] {
            XCTAssertEqual(value(number), .number(number), number)
        }
        XCTAssertEqual(value("[1.0,2]"), .array([.number("1.0"), .number("2")]))
    }

    func testStringEscapes() {
        XCTAssertEqual(value(#""q\" b\\ s\/ \b\f\n\r\t end""#), .string("q\" b\\ s/ \u{08}\u{0C}\n\r\t end"))
        XCTAssertEqual(value(#""\u0041\u00e9\u00C9\u4e2D\u0000""#), .string("AéÉ中\u{0}"))
        XCTAssertEqual(value("\"raw ünïcödé 日本 🚀\""), .string("raw ünïcödé 日本 🚀"), "UTF-8 passes through")
    }

    func testSurrogatePairEscape() {
        XCTAssertEqual(value(#""\uD83D\uDE00""#), .string("😀"))
        XCTAssertEqual(value(#""a\ud834\udd1eb""#), .string("a𝄞b"))
        XCTAssertEqual(value(#"["\uD83D\uDE00", "\uDBFF\uDFFF"]"#), .array([.string("\u{1F600}"), .string("\u{10FFFF}")]))
    }

    func testArraysAndObjects() {
        XCTAssertEqual(value("[]"), .array([]))
        XCTAssertEqual(value("{}"), .object([]))
        XCTAssertEqual(value("[ ]"), .array([]))
        XCTAssertEqual(value("{\n}"), .object([]))
        XCTAssertEqual(value(#"[null, true, false, 1, "s", [], {}]"#),
                       .array([.null, .bool(true), .bool(false), .number("1"), .string("s"), .array([]), .object([])]))
        // Members keep the written order.
        XCTAssertEqual(value(#"{"z": 1, "a": {"k": [2]}, "m": null}"#), .object([
            .init(key: "z", value: .number("1")),
            .init(key: "a", value: .object([.init(key: "k", value: .array([.number("2")]))])),
            .init(key: "m", value: .null),
        ]))
        XCTAssertEqual(value(#"{"": 0, "a b": 1}"#), .object([.init(key: "", value: .number("0")), .init(key: "a b", value: .number("1"))]))
        XCTAssertEqual(value("\t[\r\n1\r\n]\r\n"), .array([.number("1")]), "tabs and CRLF are whitespace")
    }

    func testPositionsOfNestedValues() throws {
        let text = """
            {
              "name": "x",
              "list": [1, {"deep": true}],
              "n": null
            }
            """
        let root = try parse(text)
        XCTAssertEqual(root.line, 1)
        XCTAssertEqual(root.column, 1)
        guard case .object(let members) = root.value else { return XCTFail("expected an object") }
        XCTAssertEqual(members.map(\.key), ["name", "list", "n"])
        XCTAssertEqual([members[0].node.line, members[0].node.column], [2, 11])
        XCTAssertEqual([members[1].node.line, members[1].node.column], [3, 11])
        XCTAssertEqual([members[2].node.line, members[2].node.column], [4, 8])
        guard case .array(let elements) = members[1].node.value else { return XCTFail("expected an array") }
        XCTAssertEqual([elements[0].line, elements[0].column], [3, 12])
        XCTAssertEqual([elements[1].line, elements[1].column], [3, 15])
        guard case .object(let inner) = elements[1].value else { return XCTFail("expected an object") }
        XCTAssertEqual([inner[0].node.line, inner[0].node.column], [3, 24])
        XCTAssertEqual(inner[0].node.kindName, "a boolean")
    }

    func testPositionsAfterCRLFAndLeadingWhitespace() throws {
        let root = try parse("\r\n\r\n   [\r\n  7]")
        XCTAssertEqual([root.line, root.column], [3, 4])
        guard case .array(let elements) = root.value else { return XCTFail("expected an array") }
        XCTAssertEqual([elements[0].line, elements[0].column], [4, 3])
    }

    func testByteOrderMarkIsAccepted() throws {
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("{\"a\": [1,\n 2]}".utf8)
        let root = try JSONParser.parse(bytes, file: "bom.json")
        XCTAssertEqual(JSONValue(root), .object([.init(key: "a", value: .array([.number("1"), .number("2")]))]))
        XCTAssertEqual([root.line, root.column], [1, 1], "the mark takes no column")
        guard case .object(let members) = root.value, case .array(let elements) = members[0].node.value else {
            return XCTFail("expected an object holding an array")
        }
        XCTAssertEqual([members[0].node.line, members[0].node.column], [1, 7])
        XCTAssertEqual([elements[1].line, elements[1].column], [2, 2])
        // Errors on the first line are counted after the mark too.
        assertError([0xEF, 0xBB, 0xBF] + Array("[1 2]".utf8), line: 1, column: 4, "expected ',' or ']'")
        // A mark alone is an empty document.
        assertError([0xEF, 0xBB, 0xBF], line: 1, column: 1, "unexpected end of file")
    }

    func testKindNames() throws {
        let kinds = try ["null", "true", "1", "\"s\"", "[]", "{}"].map { try parse($0).kindName }
        XCTAssertEqual(kinds, ["null", "a boolean", "a number", "a string", "an array", "an object"])
    }

    // MARK: Errors with their positions

    func testMissingComma() {
        assertError("{\n  \"a\": 1\n  \"b\": 2\n}", line: 3, column: 3, "unexpected '\"', expected ',' or '}'")
        assertError("[1\n, 2 3]", line: 2, column: 5, "unexpected '3', expected ',' or ']'")
        assertError("{\"a\" 1}", line: 1, column: 6, "expected ':' after key 'a'")
    }

    func testTrailingComma() {
        assertError("[1, 2,]", line: 1, column: 7, "unexpected ']', expected a value")
        assertError("{\n  \"a\": 1,\n}", line: 3, column: 1, "unexpected '}', expected a key in double quotes")
    }

    func testUnterminatedString() {
        assertError("{\"a\": \"abc", line: 1, column: 11, "unterminated string")
        assertError("[\n\"abc\\", line: 2, column: 6, "unterminated string")
        assertError("{\"key", line: 1, column: 6, "unterminated string")
    }

    func testBadEscape() {
        // The column is the escape letter's.
        assertError(#"["a\qb"]"#, line: 1, column: 5, "invalid escape '\\q' in string")
        assertError("{\n \"k\": \"\\x41\"}", line: 2, column: 9, "invalid escape '\\x'")
        assertError(#""\u12G4""#, line: 1, column: 6, "invalid hex digit in \\u escape")
        assertError(#""\u12"#, line: 1, column: 4, "truncated \\u escape")
        assertError(#"  "\uD83D""#, line: 1, column: 10, "unpaired surrogate")
        assertError(#""\uD83D\u0041""#, line: 1, column: 14, "unpaired surrogate")
        assertError(#""\uDE00""#, line: 1, column: 8, "invalid \\u escape")
    }

    func testControlCharacterInString() {
        assertError("[\"a\tb\"]", line: 1, column: 4, "control character in string")
        assertError("{\"a\": \"line\nbreak\"}", line: 1, column: 12, "control character in string")
        assertError([UInt8(ascii: "\""), 0x00, UInt8(ascii: "\"")], line: 1, column: 2, "control character in string")
    }

    func testLeadingZero() {
        assertError("{\"n\": 012}", line: 1, column: 7, "leading zero")
        assertError("[1,\n  -00]", line: 2, column: 4, "leading zero")
    }

    func testOtherInvalidNumbers() {
        assertError("-", line: 1, column: 2, "expected a digit")
        assertError("[1.]", line: 1, column: 4, "expected a digit after '.'")
        assertError("1e+", line: 1, column: 4, "expected a digit in the exponent")
        assertError("+1", line: 1, column: 1, "unexpected '+', expected a value")
        assertError(".5", line: 1, column: 1, "unexpected '.', expected a value")
    }

    func testDuplicateKeyPointsAtTheSecondKey() {
        assertError("{\n \"a\": 1,\n \"a\": 2\n}", line: 3, column: 2, "duplicate key 'a'")
        // The same key in different objects is fine.
        XCTAssertNotNil(value(#"{"a": {"a": 1}, "b": {"a": 2}}"#))
        // Keys compare after unescaping.
        assertError(#"{"ab": 1, "\u0061b": 2}"#, line: 1, column: 11, "duplicate key 'ab'")
    }

    func testGarbageAfterTheDocument() {
        assertError("{} x", line: 1, column: 4, "unexpected 'x' after the end of the document")
        assertError("[1]\n]", line: 2, column: 1, "unexpected ']' after the end of the document")
        assertError("1 2", line: 1, column: 3, "after the end of the document")
        assertError("{}\u{0}", line: 1, column: 3, "byte 0x0 after the end of the document")
    }

    func testEmptyInput() {
        assertError("", line: 1, column: 1, "unexpected end of file, expected a value")
        assertError("  \n\n  ", line: 3, column: 3, "unexpected end of file, expected a value")
    }

    func testTruncatedDocuments() {
        assertError("[1, 2", line: 1, column: 6, "unexpected end of file, expected ',' or ']'")
        assertError("{\"a\": 1", line: 1, column: 8, "unexpected end of file, expected ',' or '}'")
        assertError("{\"a\":", line: 1, column: 6, "unexpected end of file, expected a value")
        assertError("tru", line: 1, column: 4, "expected 'true'")
        assertError("nul!", line: 1, column: 4, "unexpected '!', expected 'null'")
        assertError("[True]", line: 1, column: 2, "unexpected 'T', expected a value")
    }

    // MARK: Nesting

    func testNestingUpTo200LevelsIsAccepted() throws {
        let text = String(repeating: "[", count: 200) + String(repeating: "]", count: 200)
        var node = try parse(text)
        var depth = 1
        while case .array(let elements) = node.value, let first = elements.first {
            node = first
            depth += 1
        }
        XCTAssertEqual(depth, 200)
    }

    func testNestingDeeperThan200LevelsIsAnError() {
        let arrays = String(repeating: "[", count: 201) + String(repeating: "]", count: 201)
        assertError(arrays, line: 1, column: 201, "nested deeper than 200 levels")
        let objects = String(repeating: "{\"a\":", count: 201) + "1" + String(repeating: "}", count: 201)
        assertError(objects, line: 1, column: 5 * 200 + 1, "nested deeper than 200 levels")
    }

    func testHostileNestingDoesNotCrash() {
        let deep = String(repeating: "[", count: 100_000)
        XCTAssertThrowsError(try parse(deep)) { error in
            XCTAssertTrue((error as? DocumentError)?.message.contains("nested deeper") ?? false, "\(error)")
        }
        let mixed = String(repeating: "{\"k\":[", count: 50_000)
        XCTAssertThrowsError(try parse(mixed))
    }

    // MARK: Cursors

    func testCursorPathsAndTypedAccess() throws {
        let text = """
            {"steps": [{"count": 3, "ratio": 0.5, "on": true, "name": "x"}],
             "odd key": 1, "9lives": 2, "_ok": null}
            """
        let root = try JSONCursor.parse(Array(text.utf8), file: "p.json")
        let object = try root.object(keys: ["steps", "odd key", "9lives", "_ok"])
        let step = try object.required("steps").array()[0]
        XCTAssertEqual(step.path, "$.steps[0]")
        let fields = try step.object(keys: ["count", "ratio", "on", "name"])
        XCTAssertEqual(try fields.required("count").int(), 3)
        XCTAssertEqual(try fields.required("ratio").double(), 0.5)
        XCTAssertEqual(try fields.required("on").bool(), true)
        XCTAssertEqual(try fields.required("name").string(), "x")
        XCTAssertEqual(try fields.required("count").path, "$.steps[0].count")
        XCTAssertEqual(try object.required("odd key").path, #"$["odd key"]"#)
        XCTAssertEqual(try object.required("9lives").path, #"$["9lives"]"#)
        XCTAssertNil(object.optional("_ok"), "null counts as absent")

        XCTAssertThrowsError(try fields.required("ratio").int()) { error in
            let e = error as? DocumentError
            XCTAssertEqual(e?.message, "expected a whole number, found 0.5")
            XCTAssertEqual(e?.path, "$.steps[0].ratio")
            XCTAssertEqual(e.map { [$0.line, $0.column] }, [1, 34])
        }
        XCTAssertThrowsError(try fields.required("count").int(in: 5...9)) { error in
            XCTAssertEqual((error as? DocumentError)?.message, "3 is out of range: expected 5…9")
        }
        XCTAssertThrowsError(try fields.required("missing")) { error in
            XCTAssertEqual((error as? DocumentError)?.message, "missing required key 'missing'")
            XCTAssertEqual((error as? DocumentError)?.path, "$.steps[0]")
        }
        XCTAssertThrowsError(try step.object(keys: ["count", "ratio", "on"])) { error in
            XCTAssertEqual((error as? DocumentError)?.message, "unknown key 'name'; allowed here: count, ratio, on")
        }
    }
}
