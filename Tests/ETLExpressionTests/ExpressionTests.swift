import XCTest
import ETLTestSupport
import ETLModel
@testable import ETLExpression

// MARK: - Helpers shared by the Expression*Tests files (the model: ExpressionFixture.swift)

extension XCTestCase {
    func compile(_ text: String, scope: ExpressionScope = ExpressionFixture.scope(),
                 slots: SlotTable = SlotTable()) throws -> CompiledExpression {
        try CompiledExpression.compile(text, scope: scope, slots: slots)
    }

    /// Compiles and evaluates `text`; `row` gives the slot values by path ("$source.title"),
    /// missing paths read as null.
    func evaluate(_ text: String, row: [String: Value] = [:], scope: ExpressionScope = ExpressionFixture.scope(),
                  lookup: @escaping (String, [Int64]) throws -> [Int64] = { _, _ in [] }) throws -> Value {
        let slots = SlotTable()
        let expression = try compile(text, scope: scope, slots: slots)
        let values = slots.paths.map { row[$0.description] ?? .null }
        return try expression.evaluate(EvaluationContext(slots: values, lookup: lookup))
    }

    func type(of text: String, scope: ExpressionScope = ExpressionFixture.scope()) throws -> ExprType {
        try compile(text, scope: scope).type
    }

    /// The compile error of `text`, failing the test when it compiles.
    func compileError(_ text: String, scope: ExpressionScope = ExpressionFixture.scope(),
                      file: StaticString = #filePath, line: UInt = #line) -> ExpressionError? {
        do {
            let compiled = try CompiledExpression.compile(text, scope: scope, slots: SlotTable())
            XCTFail("expected a compile error for \(text), got type \(compiled.type)", file: file, line: line)
            return nil
        } catch {
            return error
        }
    }

    /// The conversion failure `text` throws, failing the test when it evaluates.
    func evaluationFailure(_ text: String, row: [String: Value] = [:],
                           file: StaticString = #filePath, line: UInt = #line) -> ConversionFailure? {
        thrownError(ConversionFailure.self, file: file, line: line) { try evaluate(text, row: row) }
    }

    func evaluationError(_ text: String, row: [String: Value] = [:], scope: ExpressionScope = ExpressionFixture.scope(),
                         lookup: @escaping (String, [Int64]) throws -> [Int64] = { _, _ in [] },
                         file: StaticString = #filePath, line: UInt = #line) throws -> EvaluationError? {
        do {
            let value = try evaluate(text, row: row, scope: scope, lookup: lookup)
            XCTFail("expected an evaluation error for \(text), got \(value)", file: file, line: line)
            return nil
        } catch let error as EvaluationError {
            return error
        }
    }
}

// MARK: - Syntax, operators and logic

final class ExpressionTests: XCTestCase {
    func testLiterals() throws {
        XCTAssertEqual(try evaluate("42"), .integer(42))
        XCTAssertEqual(try evaluate("1.5"), .double(1.5))
        XCTAssertEqual(try evaluate("2e3"), .double(2000))
        XCTAssertEqual(try evaluate("2.5E-1"), .double(0.25))
        XCTAssertEqual(try evaluate(".5"), .double(0.5))
        XCTAssertEqual(try evaluate("'it''s'"), .string("it's"))
        XCTAssertEqual(try evaluate("\"say \"\"hi\"\"\""), .string("say \"hi\""))
        XCTAssertEqual(try evaluate("\"it's\""), .string("it's"))
        XCTAssertEqual(try evaluate("''"), .string(""))
        XCTAssertEqual(try evaluate("true"), .boolean(true))
        XCTAssertEqual(try evaluate("false"), .boolean(false))
        XCTAssertEqual(try evaluate("null"), .null)
        XCTAssertEqual(try type(of: "null"), .null)
        // Too large for Int64: a double, as in SQLite.
        XCTAssertEqual(try evaluate("9223372036854775808"), .double(9_223_372_036_854_775_808))
        XCTAssertEqual(try evaluate("  7  "), .integer(7))
    }

    func testPrecedenceAndAssociativity() throws {
        XCTAssertEqual(try evaluate("1 + 2 * 3"), .integer(7))
        XCTAssertEqual(try evaluate("(1 + 2) * 3"), .integer(9))
        XCTAssertEqual(try evaluate("10 - 4 - 3"), .integer(3))
        XCTAssertEqual(try evaluate("100 / 10 / 5"), .integer(2))
        XCTAssertEqual(try evaluate("2 * 3 % 4"), .integer(2))
        XCTAssertEqual(try evaluate("-2 * 3"), .integer(-6))
        XCTAssertEqual(try evaluate("- -2"), .integer(2))
        XCTAssertEqual(try evaluate("1 + 2 == 3 && 2 < 3"), .boolean(true))
        XCTAssertEqual(try evaluate("true || false && false"), .boolean(true))
        XCTAssertEqual(try evaluate("(true || false) && false"), .boolean(false))
        XCTAssertEqual(try evaluate("!true || true"), .boolean(true))
        XCTAssertEqual(try evaluate("!(true || true)"), .boolean(false))
        XCTAssertEqual(try evaluate("1 < 2 == 2 < 3"), .boolean(true))
        XCTAssertEqual(try evaluate("1 + 1 > 1 * 3"), .boolean(false))
    }

    func testWordOperators() throws {
        XCTAssertEqual(try evaluate("true and not false"), .boolean(true))
        XCTAssertEqual(try evaluate("false or true and false"), .boolean(false))
        XCTAssertEqual(try evaluate("not (1 > 2)"), .boolean(true))
        XCTAssertEqual(compileError("true AND false")?.message, "expected an operator or the end of the expression, found 'AND'")
    }

    func testIntegerAndDoubleArithmetic() throws {
        XCTAssertEqual(try evaluate("7 / 2"), .integer(3))
        XCTAssertEqual(try evaluate("-7 / 2"), .integer(-3))
        XCTAssertEqual(try evaluate("7 % 3"), .integer(1))
        XCTAssertEqual(try evaluate("-7 % 3"), .integer(-1))
        XCTAssertEqual(try evaluate("7.0 / 2"), .double(3.5))
        XCTAssertEqual(try evaluate("1 + 2.5"), .double(3.5))
        XCTAssertEqual(try evaluate("5.5 % 2"), .double(1))  // SQLite: operands truncated to integers
        XCTAssertEqual(try type(of: "1 + 2"), .integer)
        XCTAssertEqual(try type(of: "1 * 2.0"), .double)
        XCTAssertEqual(try type(of: "$source.pages / 2"), .integer)
        XCTAssertEqual(try type(of: "$source.price / 2"), .double)
    }

    func testDivisionByZeroAndNullOperands() throws {
        XCTAssertEqual(try evaluate("7 / 0"), .null)
        XCTAssertEqual(try evaluate("7 % 0"), .null)
        XCTAssertEqual(try evaluate("7.5 / 0"), .null)
        XCTAssertEqual(try evaluate("7 / 0.0"), .null)
        XCTAssertEqual(try evaluate("7.5 % 0.5"), .null)  // 0.5 truncates to 0
        XCTAssertEqual(try evaluate("1 + null"), .null)
        XCTAssertEqual(try evaluate("null * 2.5"), .null)
        XCTAssertEqual(try evaluate("-null"), .null)
        XCTAssertEqual(try evaluate("$source.pages + 1"), .null)
        XCTAssertEqual(try evaluate("$source.pages + 1", row: ["$source.pages": .integer(41)]), .integer(42))
    }

    func testIntegerOverflowIsAnEvaluationError() throws {
        let plus = try evaluationError("9223372036854775807 + 1")
        XCTAssertTrue(plus?.message.contains("integer overflow in '+'") == true, plus?.message ?? "")
        XCTAssertEqual(plus?.column, 21)
        XCTAssertNotNil(try evaluationError("-9223372036854775807 - 2"))
        XCTAssertNotNil(try evaluationError("4611686018427387904 * 2"))
        let divide = try evaluationError("(-9223372036854775807 - 1) / -1")
        XCTAssertTrue(divide?.message.contains("'/'") == true)
        XCTAssertNotNil(try evaluationError("-(-9223372036854775807 - 1)"))
        // Results that fit are fine, and x % -1 never traps.
        XCTAssertEqual(try evaluate("(-9223372036854775807 - 1) % -1"), .integer(0))
        XCTAssertEqual(try evaluate("9223372036854775806 + 1"), .integer(.max))
        XCTAssertEqual(try evaluate("9223372036854775807 + 1.0"), .double(9_223_372_036_854_775_808))
    }

    func testComparisons() throws {
        XCTAssertEqual(try evaluate("1 < 1.5"), .boolean(true))
        XCTAssertEqual(try evaluate("2 == 2.0"), .boolean(true))
        XCTAssertEqual(try evaluate("2 != 2.0"), .boolean(false))
        XCTAssertEqual(try evaluate("3 >= 3"), .boolean(true))
        XCTAssertEqual(try evaluate("3 > 3"), .boolean(false))
        XCTAssertEqual(try evaluate("2.5 <= 2"), .boolean(false))
        // Exact across integer and double: 2^53 + 1 is not equal to the double 2^53.
        XCTAssertEqual(try evaluate("9007199254740993 > 9007199254740992.0"), .boolean(true))
        XCTAssertEqual(try evaluate("'a' < 'b'"), .boolean(true))
        XCTAssertEqual(try evaluate("'B' < 'a'"), .boolean(true))  // byte order, not alphabetical
        XCTAssertEqual(try evaluate("'abc' > 'ab'"), .boolean(true))
        XCTAssertEqual(try evaluate("'é' > 'z'"), .boolean(true))  // UTF-8 bytes 0xC3… > 0x7A
        // Canonically equivalent but different bytes: not equal, as in SQLite.
        XCTAssertEqual(try evaluate("'\u{E9}' == 'e\u{301}'"), .boolean(false))
        XCTAssertEqual(try evaluate("false < true"), .boolean(true))
        XCTAssertEqual(try evaluate("true == true"), .boolean(true))
        XCTAssertEqual(try evaluate("date('2024-01-01') < date('2024-01-02')"), .boolean(true))
        XCTAssertEqual(try evaluate("$source.author == $source.author", row: ["$source.author": .row(4)]), .boolean(true))
    }

    func testNullComparisons() throws {
        XCTAssertEqual(try evaluate("null == null"), .boolean(true))
        XCTAssertEqual(try evaluate("1 == null"), .boolean(false))
        XCTAssertEqual(try evaluate("null != 1"), .boolean(true))
        XCTAssertEqual(try evaluate("$source.price == null"), .boolean(true))
        XCTAssertEqual(try evaluate("$source.price != null", row: ["$source.price": .double(1)]), .boolean(true))
        XCTAssertEqual(try evaluate("$source.author == null", row: ["$source.author": .row(3)]), .boolean(false))
        XCTAssertEqual(try evaluate("($source.price) == (null)"), .boolean(true))
        // Without the literal null, null propagates.
        XCTAssertEqual(try evaluate("$source.price > 10"), .null)
        XCTAssertEqual(try evaluate("$source.price == $source.pages", row: ["$source.pages": .integer(1)]), .null)
        XCTAssertEqual(try evaluate("null < 1"), .null)
        XCTAssertEqual(try evaluate("coalesce(null, null) == 1"), .null)
    }

    func testThreeValuedLogicTruthTable() throws {
        let values: [(String, Bool?)] = [("true", true), ("false", false), ("null", nil)]
        for (a, x) in values {
            for (b, y) in values {
                let and: Bool? = x == false || y == false ? false : (x == true && y == true ? true : nil)
                let or: Bool? = x == true || y == true ? true : (x == false && y == false ? false : nil)
                XCTAssertEqual(try evaluate("\(a) && \(b)"), and.map(Value.boolean) ?? .null, "\(a) && \(b)")
                XCTAssertEqual(try evaluate("\(a) || \(b)"), or.map(Value.boolean) ?? .null, "\(a) || \(b)")
            }
            XCTAssertEqual(try evaluate("!\(a)"), x.map { .boolean(!$0) } ?? .null, "!\(a)")
        }
        // Spot checks independent of the formula above.
        XCTAssertEqual(try evaluate("false && null"), .boolean(false))
        XCTAssertEqual(try evaluate("null && true"), .null)
        XCTAssertEqual(try evaluate("true || null"), .boolean(true))
        XCTAssertEqual(try evaluate("null || false"), .null)
        XCTAssertEqual(try evaluate("not null"), .null)
    }

    func testLogicSkipsTheDecidedOperand() throws {
        XCTAssertEqual(try evaluate("false && 9223372036854775807 + 1 > 0"), .boolean(false))
        XCTAssertEqual(try evaluate("true || 9223372036854775807 + 1 > 0"), .boolean(true))
        XCTAssertNotNil(try evaluationError("true && 9223372036854775807 + 1 > 0"))
    }

    func testFilterPassesOnlyTrue() throws {
        XCTAssertTrue(Value.boolean(true).isTrue)
        XCTAssertFalse(Value.boolean(false).isTrue)
        XCTAssertFalse(Value.null.isTrue)
        XCTAssertFalse(Value.integer(1).isTrue)
        let filter = "$source.price > 10 && $source.published != null"
        XCTAssertEqual(try type(of: filter), .boolean)
        XCTAssertTrue(try evaluate(filter, row: ["$source.price": .double(12), "$source.published": .date(0)]).isTrue)
        XCTAssertFalse(try evaluate(filter, row: ["$source.price": .double(12)]).isTrue)
        XCTAssertFalse(try evaluate(filter, row: ["$source.published": .date(0)]).isTrue)  // null && true = null
        XCTAssertEqual(try evaluate(filter, row: ["$source.published": .date(0)]), .null)
    }

    func testParseErrors() {
        let unclosedCall = compileError("concat('a', 'b'")
        XCTAssertEqual(unclosedCall?.message, "expected ')' after arguments of concat")
        XCTAssertEqual(unclosedCall?.column, 16)
        XCTAssertEqual(compileError("concat('a' 'b')")?.column, 12)

        let misspelt = compileError("uper($source.title)")
        XCTAssertEqual(misspelt?.description, "column 1: unknown function 'uper' (did you mean 'upper'?)")
        XCTAssertEqual(compileError("frobnicate(1)")?.message, "unknown function 'frobnicate'")

        let unterminated = compileError("1 + 'abc")
        XCTAssertEqual(unterminated?.column, 5)
        XCTAssertTrue(unterminated?.message.hasPrefix("unterminated string") == true)
        XCTAssertEqual(compileError("'it''s")?.column, 1)

        let stray = compileError("1 # 2")
        XCTAssertEqual(stray?.message, "unexpected character '#'")
        XCTAssertEqual(stray?.column, 3)
        XCTAssertEqual(compileError("1 = 1")?.message, "unexpected '='; use '==' to compare")
        XCTAssertEqual(compileError("true & false")?.column, 6)

        let dangling = compileError("1 +")
        XCTAssertEqual(dangling?.message, "expected a value, found end of expression")
        XCTAssertEqual(dangling?.column, 4)
        XCTAssertEqual(compileError("(1 + 2")?.column, 7)
        XCTAssertEqual(compileError("1 + 2)")?.message, "unmatched ')'")
        XCTAssertEqual(compileError("1 2")?.column, 3)
        XCTAssertEqual(compileError("")?.message, "empty expression")
        XCTAssertEqual(compileError("   ")?.column, 1)
        XCTAssertEqual(compileError("ture")?.message, "unknown name 'ture' (did you mean 'true'?)")
        XCTAssertEqual(compileError("title")?.message, "unknown name 'title'; key paths start with $source or $item, as in $source.title")
        XCTAssertEqual(compileError("NULL")?.message, "unknown name 'NULL' (did you mean 'null'?)")
        XCTAssertEqual(compileError("upper")?.message, "expected '(' after function name 'upper'")
        XCTAssertEqual(compileError("$sourse.title")?.message, "unknown variable '$sourse' (did you mean '$source'?)")
        XCTAssertEqual(compileError("$ + 1")?.column, 1)
        XCTAssertEqual(compileError("$source.")?.column, 9)
    }

    func testOperatorTypeErrors() {
        let stringPlusInteger = compileError("$source.title + 1")
        XCTAssertEqual(stringPlusInteger?.message, "operator '+' needs numbers, found string and integer; use concat() to join text")
        XCTAssertEqual(stringPlusInteger?.column, 15)
        XCTAssertEqual(compileError("'a' + 'b'")?.message, "operator '+' needs numbers, found string and string; use concat() to join text")
        XCTAssertEqual(compileError("true * 2")?.message, "operator '*' needs numbers, found boolean and integer")

        let compare = compileError("$source.title > 10")
        XCTAssertEqual(compare?.message, "cannot compare string with integer using '>'")
        XCTAssertEqual(compare?.column, 15)
        XCTAssertNotNil(compileError("$source.published == '2024-01-01'"))
        XCTAssertNotNil(compileError("$source.pages == true"))
        XCTAssertEqual(compileError("$source.author == $source")?.message,
                       "cannot compare Author (source row) with Book (source row) using '=='")
        XCTAssertEqual(compileError("$source.author < $source.author")?.message,
                       "rows can only be compared with '==' and '!=', not '<'")
        XCTAssertNotNil(compileError("$source.users == $source.users"))

        XCTAssertEqual(compileError("$source.price > 1 && $source.title")?.message,
                       "operator '&&' needs boolean operands, found string")
        XCTAssertEqual(compileError("$source.price > 1 && $source.title")?.column, 22)
        XCTAssertEqual(compileError("not 1")?.message, "operator 'not' needs a boolean, found integer")
        XCTAssertEqual(compileError("-'a'")?.message, "operator '-' needs a number, found string")
    }
}
