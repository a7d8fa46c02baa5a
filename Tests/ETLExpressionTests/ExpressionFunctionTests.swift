import XCTest
import ETLModel
@testable import ETLExpression

final class FunctionExpressionTests: XCTestCase {
    func testCoalesce() throws {
        XCTAssertEqual(try evaluate("coalesce(null, 2)"), .integer(2))
        XCTAssertEqual(try evaluate("coalesce(null, null, 'c')"), .string("c"))
        XCTAssertEqual(try evaluate("coalesce(null, null)"), .null)
        XCTAssertEqual(try type(of: "coalesce($source.price, 0)"), .double)
        // The integer fallback is widened to the expression's type.
        XCTAssertEqual(try evaluate("coalesce($source.price, 0)"), .double(0))
        XCTAssertEqual(try evaluate("coalesce($source.price, 0)", row: ["$source.price": .double(3.5)]), .double(3.5))
        XCTAssertEqual(try evaluate("coalesce($source.price, 0) * 1.5", row: ["$source.price": .double(4)]), .double(6))
        // Evaluated left to right only as far as needed.
        XCTAssertEqual(try evaluate("coalesce(1, 9223372036854775807 + 1)"), .integer(1))

        let mismatch = compileError("coalesce($source.pages, 'none')")
        XCTAssertEqual(mismatch?.message, "coalesce: argument 2 is string, but the arguments before it are integer")
        XCTAssertEqual(mismatch?.column, 25)
        XCTAssertEqual(compileError("coalesce(1)")?.message, "coalesce takes at least 2 arguments, found 1")
    }

    /// Core Data's MATCHES: an ICU regular expression over the whole text.
    func testMatchesIsARegularExpressionOverTheWholeText() throws {
        XCTAssertEqual(try evaluate("matches($source.title, '[a-hA-H].*')", row: ["$source.title": .string("Dune")]), .boolean(true))
        XCTAssertEqual(try evaluate("matches($source.title, '[i-pI-P].*')", row: ["$source.title": .string("Dune")]), .boolean(false))
        XCTAssertEqual(try evaluate("matches($source.title, 'un')", row: ["$source.title": .string("Dune")]), .boolean(false), "not a part of it")
        XCTAssertEqual(try evaluate("matches('ab', 'a|ab')"), .boolean(true))
        XCTAssertEqual(try evaluate("matches($source.title, '.*')"), .null)
        XCTAssertEqual(try type(of: "matches('a', 'a')"), .boolean)
        XCTAssertEqual(compileError("matches('a', '[')")?.message.hasPrefix("matches: '[' is not a regular expression"), true)
        XCTAssertEqual(compileError("matches('a', '[')")?.column, 14)
        XCTAssertEqual(compileError("matches($source.pages, 'a')")?.message, "matches: argument 1 must be a string, found integer")
        XCTAssertEqual(try evaluationError("matches('a', $source.title)", row: ["$source.title": .string("(")])?.message
            .hasPrefix("matches: '(' is not a regular expression"), true)
    }

    func testIf() throws {
        XCTAssertEqual(try evaluate("if(true, 'a', 'b')"), .string("a"))
        XCTAssertEqual(try evaluate("if(false, 'a', 'b')"), .string("b"))
        XCTAssertEqual(try evaluate("if(null, 1, 2)"), .integer(2))  // like CASE WHEN
        XCTAssertEqual(try evaluate("if($source.pages > 100, 'long', 'short')", row: ["$source.pages": .integer(300)]),
                       .string("long"))
        XCTAssertEqual(try evaluate("if(true, null, 2)"), .null)
        XCTAssertEqual(try type(of: "if(true, null, 2)"), .integer)
        XCTAssertEqual(try type(of: "if(true, 1, 2.5)"), .double)
        XCTAssertEqual(try evaluate("if(true, 1, 2.5)"), .double(1))
        // Only the chosen branch is evaluated.
        XCTAssertEqual(try evaluate("if(true, 1, 9223372036854775807 + 1)"), .integer(1))
        XCTAssertNotNil(try evaluationError("if(false, 1, 9223372036854775807 + 1)"))

        XCTAssertEqual(compileError("if(1, 'a', 'b')")?.message, "if: the condition must be a boolean, found integer")
        XCTAssertEqual(compileError("if(true, 'a', 2)")?.message, "if: the branches have different types, string and integer")
        XCTAssertEqual(compileError("if(true, 'a')")?.message, "if takes 3 arguments, found 2")
    }

    func testConcat() throws {
        XCTAssertEqual(try evaluate("concat('a', 'b', 'c')"), .string("abc"))
        XCTAssertEqual(try evaluate("concat('n=', 12, ' p=', 2.5, ' b=', true, false)"), .string("n=12 p=2.5 b=10"))
        XCTAssertEqual(try evaluate("concat('x', 2.0)"), .string("x2.0"))
        XCTAssertEqual(try evaluate("concat('on ', date('2024-02-29T10:11:12.75Z'))"), .string("on 2024-02-29T10:11:12Z"))
        XCTAssertEqual(try evaluate("concat($source.title, '!')", row: ["$source.title": .string("Dune")]), .string("Dune!"))
        XCTAssertEqual(try evaluate("concat($source.title, '!')"), .null)
        XCTAssertEqual(try evaluate("concat('a', null)"), .null)
        XCTAssertEqual(compileError("concat()")?.message, "concat takes at least 1 argument, found 0")
        XCTAssertEqual(compileError("concat('a', $source.cover)")?.message,
                       "concat: argument 2 must be a string, number, boolean or date, found binary")
        XCTAssertEqual(compileError("concat('a', $source.cover)")?.column, 13)
    }

    func testSubstringAndPrefixFollowSQLiteSubstr() throws {
        XCTAssertEqual(try evaluate("substring('hello', 2, 3)"), .string("ell"))
        XCTAssertEqual(try evaluate("substring('hello', 2)"), .string("ello"))
        XCTAssertEqual(try evaluate("substring('hello', 0, 2)"), .string("h"))
        XCTAssertEqual(try evaluate("substring('hello', -3)"), .string("llo"))
        XCTAssertEqual(try evaluate("substring('hello', 3, -2)"), .string("he"))
        XCTAssertEqual(try evaluate("substring('hello', -10, 7)"), .string("he"))
        XCTAssertEqual(try evaluate("substring('hello', 10)"), .string(""))
        XCTAssertEqual(try evaluate("substring('héllo wörld', 2, 4)"), .string("éllo"))
        XCTAssertEqual(try evaluate("substring(null, 1)"), .null)
        XCTAssertEqual(try evaluate("substring('abc', 1, null)"), .null)
        XCTAssertEqual(try evaluate("prefix('hello', 3)"), .string("hel"))
        XCTAssertEqual(try evaluate("prefix('hi', 5)"), .string("hi"))
        XCTAssertEqual(try evaluate("prefix('hi', 0)"), .string(""))
        XCTAssertEqual(compileError("substring('abc', '1')")?.message, "substring: argument 2 must be an integer, found string")
        XCTAssertEqual(compileError("substring('abc')")?.message, "substring takes 2 to 3 arguments, found 1")
    }

    func testUpperAndLowerAreASCIIOnly() throws {
        XCTAssertEqual(try evaluate("upper('Straße é ß')"), .string("STRAßE é ß"))
        XCTAssertEqual(try evaluate("lower('ÀBC Ünï')"), .string("Àbc Ünï"))
        XCTAssertEqual(try evaluate("upper(trim($source.title))", row: ["$source.title": .string("  dune ")]), .string("DUNE"))
        XCTAssertEqual(try evaluate("upper(null)"), .null)
        XCTAssertEqual(compileError("upper(1)")?.message, "upper: argument 1 must be a string, found integer")
        XCTAssertEqual(compileError("lower('a', 'b')")?.message, "lower takes 1 argument, found 2")
    }

    /// trim's ASCII shortcut answers as Unicode's White_Space property does, for every
    /// ASCII scalar; beyond ASCII the property itself answers (no-break space, NEL, U+3000).
    func testTrimsWhiteSpaceExactlyAsUnicodeDefinesIt() throws {
        for value in UInt32(0)..<0x80 {
            let scalar = Unicode.Scalar(value)!
            XCTAssertEqual(TextOperations.isWhiteSpace(scalar), scalar.properties.isWhitespace, "U+\(String(value, radix: 16))")
        }
        XCTAssertEqual(TextOperations.trim("\u{A0}\u{85}\u{3000} a b\u{2028}\t\u{0B}"), "a b")
        XCTAssertEqual(TextOperations.trim("\u{1C}x\u{1F}"), "\u{1C}x\u{1F}", "separators U+1C–U+1F are not White_Space")
        // Trimmed by bytes while the ends are ASCII, by scalars otherwise: alike.
        let parts = ["", " ", "\t", "a", "é", "\u{A0}", "\u{3000}", "\u{85}", "x y", "\u{2028}", "\r\n", "ß"]
        for a in parts { for b in parts { for c in parts {
            let text = a + b + c
            XCTAssertEqual(TextOperations.trim(text), TextOperations.trimScalars(text), "\(text.unicodeScalars.map { String($0.value, radix: 16) })")
        } } }
    }

    func testTrimReplaceLength() throws {
        XCTAssertEqual(try evaluate("trim('  a b  ')"), .string("a b"))
        XCTAssertEqual(try evaluate("trim('\ta\n\r ')"), .string("a"), "tabs and line breaks too")
        XCTAssertEqual(try evaluate("trim('\u{00A0}\u{3000}a\u{2003}')"), .string("a"), "no-break, ideographic and em spaces")
        XCTAssertEqual(try evaluate("trim('a\u{200B}')"), .string("a\u{200B}"), "a zero-width space is no white space")
        XCTAssertEqual(try evaluate("trim('   ')"), .string(""))
        XCTAssertEqual(try evaluate("replace('a-b-c', '-', '+')"), .string("a+b+c"))
        XCTAssertEqual(try evaluate("replace('aaa', 'aa', 'b')"), .string("ba"))
        XCTAssertEqual(try evaluate("replace('abc', '', 'x')"), .string("abc"))
        XCTAssertEqual(try evaluate("replace('café', 'é', 'e')"), .string("cafe"))
        XCTAssertEqual(try evaluate("replace('abc', null, 'x')"), .null)
        XCTAssertEqual(try evaluate("length('héllo')"), .integer(5))
        XCTAssertEqual(try evaluate("length('')"), .integer(0))
        XCTAssertEqual(try evaluate("length($source.cover)", row: ["$source.cover": .binary([1, 2, 3])]), .integer(3))
        XCTAssertEqual(try evaluate("length($source.title)"), .null)
        XCTAssertEqual(compileError("length(3)")?.message, "length: argument 1 must be a string or binary, found integer")
        // length() counts Unicode scalars (as substring() does); utf16length() UTF-16 units, as NSString.
        XCTAssertEqual(try evaluate("length('😀😀')"), .integer(2))
        XCTAssertEqual(try evaluate("utf16length('😀😀')"), .integer(4))
        XCTAssertEqual(try evaluate("utf16length('he\u{301}llo')"), .integer(6))
        XCTAssertEqual(try evaluate("utf16length($source.cover)", row: ["$source.cover": .binary([1, 2, 3])]), .integer(3))
        XCTAssertEqual(try evaluate("utf16length($source.title)"), .null)
        XCTAssertEqual(compileError("utf16length(3)")?.message, "utf16length: argument 1 must be a string or binary, found integer")
    }

    func testIntegerCast() throws {
        XCTAssertEqual(try evaluate("integer(3.9)"), .integer(3))
        XCTAssertEqual(try evaluate("integer(-3.9)"), .integer(-3))
        XCTAssertEqual(try evaluate("integer('  -7 ')"), .integer(-7))
        XCTAssertEqual(try evaluate("integer('1e5')"), .integer(100_000))
        XCTAssertEqual(try evaluate("integer('2.5')"), .integer(2))
        XCTAssertEqual(try evaluate("integer('9223372036854775807')"), .integer(.max))
        XCTAssertEqual(try evaluate("integer(true)"), .integer(1))
        XCTAssertEqual(try evaluate("integer(null)"), .null)
        XCTAssertEqual(try type(of: "integer($source.price)"), .integer)
        for (text, reason) in [("integer('42abc')", "not a number"), ("integer('abc')", "not a number"), ("integer('')", "not a number"),
                               ("integer('99999999999999999999')", "outside the 64-bit integer range"),
                               ("integer(1e30)", "outside the 64-bit integer range")] {
            XCTAssertEqual(evaluationFailure(text)?.error.reason, reason, text)
        }
        XCTAssertEqual(try evaluate("orNull(integer('abc'))"), .null)
    }

    func testDoubleStringBooleanCasts() throws {
        XCTAssertEqual(try evaluate("double(3)"), .double(3))
        XCTAssertEqual(try evaluate("double('.5')"), .double(0.5))
        XCTAssertEqual(try evaluate("double(' -1.5e2 ')"), .double(-150))
        XCTAssertEqual(try evaluate("double(false)"), .double(0))
        XCTAssertEqual(evaluationFailure("double('2.5x')")?.description, "column 1: double('2.5x'): not a number")
        XCTAssertNotNil(evaluationFailure("double('abc')"))
        XCTAssertNotNil(evaluationFailure("double('1e')"))
        XCTAssertEqual(try evaluate("string(12)"), .string("12"))
        XCTAssertEqual(try evaluate("string(1.5)"), .string("1.5"))
        XCTAssertEqual(try evaluate("string(true)"), .string("1"))
        XCTAssertEqual(try evaluate("string(date(0))"), .string("1970-01-01T00:00:00Z"))
        XCTAssertEqual(try evaluate("string(null)"), .null)
        XCTAssertEqual(try evaluate("boolean(0)"), .boolean(false))
        XCTAssertEqual(try evaluate("boolean(2.5)"), .boolean(true))
        XCTAssertEqual(try evaluate("boolean('0')"), .boolean(false))
        XCTAssertEqual(try evaluate("boolean('1')"), .boolean(true))
        for word in ["yes", "YES", " true ", "On"] { XCTAssertEqual(try evaluate("boolean('\(word)')"), .boolean(true), word) }
        for word in ["no", "False", "off"] { XCTAssertEqual(try evaluate("boolean('\(word)')"), .boolean(false), word) }
        // Words are told by their bytes folded to lower case: what lowercasing and looking up would say.
        for word in ["true", "TrUe", "YES", "oN", "OFF", "nO", "false", "FALSE", "tru", "truee", "yes!", "o n", "",
                     "\u{212A}", "ｔｒｕｅ", "Yés", "ON\u{301}", "İ", "oﬀ", "no\u{0}"] {
            let looked = Conversion.trueWords.contains(word.lowercased()) ? true : Conversion.falseWords.contains(word.lowercased()) ? false : nil
            XCTAssertEqual(Conversion.booleanWord(word), looked, word)
        }
        XCTAssertEqual(evaluationFailure("boolean('maybe')")?.error.value, .string("maybe"))
        XCTAssertEqual(try evaluate("orNull(boolean('maybe'))"), .null)
        XCTAssertEqual(try evaluate("boolean(null)"), .null)
        XCTAssertEqual(compileError("boolean($source.published)")?.message,
                       "boolean: argument 1 must be a number, string or boolean, found date")
        XCTAssertNotNil(compileError("double($source.cover)"))
    }

    /// `orNull` turns only a failed conversion into null: other failures still reject the row.
    func testOrNullCatchesConversionsOnly() throws {
        XCTAssertEqual(try evaluate("orNull(integer('x') + 1)"), .null)
        XCTAssertNotNil(try evaluationError("orNull(9223372036854775807 + 1)"), "an overflow is no conversion")
        XCTAssertEqual(try type(of: "orNull(date($source.title))"), .date)
    }

    func testNormalizeAndCasefold() throws {
        XCTAssertEqual(try evaluate("normalize('e\u{301}te\u{301}')"), .string("\u{E9}t\u{E9}"), "composed (NFC)")
        XCTAssertEqual(try evaluate("normalize('plain')"), .string("plain"))
        XCTAssertEqual(try evaluate("casefold('Straße')"), try evaluate("casefold('STRASSE')"))
        XCTAssertEqual(try evaluate("casefold('Straße')"), .string("strasse"))
        XCTAssertEqual(try evaluate("casefold('ÉCOLE')"), try evaluate("casefold('e\u{301}cole')"), "folded and composed")
        XCTAssertEqual(try evaluate("casefold('ABC')"), .string("abc"))
        XCTAssertEqual(try evaluate("casefold(null)"), .null)
    }

    /// `diacriticfold`: NSPredicate's `[d]`, Foundation's folding then NFC; case is kept.
    func testDiacriticfold() throws {
        XCTAssertEqual(try evaluate("diacriticfold('Crème Brûlée')"), .string("Creme Brulee"))
        XCTAssertEqual(try evaluate("diacriticfold('e\u{301}tude')"), .string("etude"), "a combining mark too")
        XCTAssertEqual(try evaluate("diacriticfold('ÉCOLE')"), .string("ECOLE"))
        XCTAssertEqual(try evaluate("diacriticfold('plain')"), .string("plain"))
        XCTAssertEqual(try evaluate("diacriticfold(null)"), .null)
    }

    func testCount() throws {
        XCTAssertEqual(try type(of: "count($source.users)"), .integer)
        XCTAssertEqual(try evaluate("count($source.users)", row: ["$source.users": .rows([1, 2, 3])]), .integer(3))
        XCTAssertEqual(try evaluate("count($source.users)", row: ["$source.users": .rows([])]), .integer(0))
        XCTAssertEqual(try evaluate("count($source.users) > 2", row: ["$source.users": .rows([1, 2, 3])]), .boolean(true))
        XCTAssertEqual(compileError("count($source.author)")?.message,
                       "count: argument 1 must be a to-many path or destinations(), found Author (source row)")
        XCTAssertNotNil(compileError("count('abc')"))
    }

    func testArityErrorPointsAtFunction() {
        let error = compileError("1 + upper('a', 'b')")
        XCTAssertEqual(error?.column, 5)
        XCTAssertEqual(error?.message, "upper takes 1 argument, found 2")
    }
}
