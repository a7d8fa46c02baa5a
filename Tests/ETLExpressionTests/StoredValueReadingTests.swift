import XCTest
import ETLStore
@testable import ETLExpression

/// The reading rule, row by row of docs/pipeline.md's table: what each type reads of each
/// storage class, and why it does not read the rest.
final class StoredValueReadingTests: XCTestCase {
    func read(_ sql: SQLValue, _ type: ExprType, epoch: Double = 0) -> Value? { Value.reading(sql, as: type, epoch: epoch) }

    func testEachTypeReadsItsOwnStorageClassAsItIs() {
        XCTAssertEqual(read(.integer(.max), .integer), .integer(.max))
        XCTAssertEqual(read(.real(0.1), .double), .double(0.1))
        XCTAssertEqual(read(.real(.infinity), .double), .double(.infinity), "a double keeps ±Inf")
        XCTAssertEqual(read(.text("  x "), .string), .string("  x "))
        XCTAssertEqual(read(.blob([0xFF]), .binary), .binary([0xFF]))
        XCTAssertEqual(read(.integer(1), .boolean), .boolean(true))
        XCTAssertEqual(read(.real(1.25), .date), .date(1.25))
        for type in [ExprType.integer, .double, .boolean, .date, .string, .binary] { XCTAssertEqual(read(.null, type), .null) }
    }

    func testOtherStorageClassesAreReadOnlyWhereTheConversionIsExact() {
        XCTAssertEqual(read(.real(3), .integer), .integer(3))
        XCTAssertNil(read(.real(1.5), .integer))
        XCTAssertNil(read(.real(1e300), .integer))
        XCTAssertNil(read(.real(9_223_372_036_854_775_808), .integer), "2^63 is beyond Int64")
        XCTAssertEqual(read(.text("12"), .integer), .integer(12))
        XCTAssertEqual(read(.text("-3"), .integer), .integer(-3))
        for text in ["12.5", " 12", "012", "+12", "1e3", "", "abc"] { XCTAssertNil(read(.text(text), .integer), text) }

        XCTAssertEqual(read(.integer(1 << 53), .double), .double(9_007_199_254_740_992))
        XCTAssertNil(read(.integer(9_007_199_254_740_993), .double), "a double does not hold it")
        XCTAssertEqual(read(.integer(1 << 60), .double), .double(1_152_921_504_606_846_976), "a power of two it holds")
        XCTAssertEqual(read(.text("12.5"), .double), .double(12.5))
        XCTAssertEqual(read(.text("12"), .double), .double(12))
        for text in ["12.50", "NaN", "nan", "inf", "-Infinity", "1e300", " 1", ".5"] { XCTAssertNil(read(.text(text), .double), text) }

        XCTAssertEqual(read(.real(0), .boolean), .boolean(false))
        XCTAssertEqual(read(.text("1"), .boolean), .boolean(true))
        for value in [SQLValue.integer(2), .integer(-1), .text("yes"), .text("true"), .real(0.5)] { XCTAssertNil(read(value, .boolean), "\(value)") }

        XCTAssertEqual(read(.integer(42), .string), .string("42"))
        XCTAssertEqual(read(.real(2.5), .string), .string("2.5"))
        XCTAssertNil(read(.real(-.infinity), .string))
        XCTAssertEqual(read(.blob(Array("café".utf8)), .string), .string("café"))
        XCTAssertNil(read(.blob([0xFF, 0xFE]), .string))
        XCTAssertEqual(read(.text("ab"), .binary), .binary([0x61, 0x62]))
        XCTAssertNil(read(.integer(7), .binary))
        XCTAssertNil(read(.blob([1]), .integer))
    }

    /// A number of a date is counted from the layout's epoch and shifted once; ISO text
    /// names its instant and is not shifted again (the 2050-01-05).
    func testDatesAreShiftedOnceAndTextDatesNotAtAll() {
        let epoch = 978_307_200.0
        XCTAssertEqual(read(.real(568_375_200), .date, epoch: epoch), .date(1_546_682_400))
        XCTAssertEqual(read(.integer(568_375_200), .date, epoch: epoch), .date(1_546_682_400))
        XCTAssertEqual(read(.text("2019-01-05T10:00:00Z"), .date, epoch: epoch), .date(1_546_682_400))
        XCTAssertEqual(read(.text("2019-01-05"), .date), .date(1_546_646_400))
        XCTAssertEqual(read(.text("568375200"), .date, epoch: epoch), .date(1_546_682_400), "text of a number: as the number")
        for text in ["not a date", "05/01/2019", "2024-02-30", " 2019-01-05", ""] { XCTAssertNil(read(.text(text), .date), text) }
        XCTAssertNil(read(.real(.infinity), .date), "a date is finite")
        XCTAssertNil(read(.blob([0xDE, 0xAD, 0xBE, 0xEF]), .date))
    }

    func testWhyNamesTheValueAsStoredAndItsStorageClass() {
        XCTAssertNil(Value.unreadable(sql: .text("12"), as: .integer))
        XCTAssertEqual(Value.unreadable(sql: .blob([0xDE, 0xAD, 0xBE, 0xEF]), as: .date),
                       "the stored BLOB x'DEADBEEF' is not a date value: a date attribute reads a finite number of seconds, or TEXT in ISO 8601 (2024-01-31, 2024-01-31T10:00:00Z)")
        XCTAssertTrue(Value.unreadable(sql: .text("it's"), as: .integer)!.hasPrefix("the stored TEXT 'it''s' is not an integer value"))
        XCTAssertTrue(Value.unreadable(sql: .blob([0xFF]), as: .string, storedAsText: true)!.hasPrefix("the stored TEXT (not UTF-8) x'FF' is not a string value"))
        XCTAssertEqual(Value.shown(.blob([0x00, 0x0A])), "x'000A'")
        XCTAssertEqual(Value.shown(.text("garbage")), "garbage")
    }
}
