import XCTest
import ETLModel
import ETLStore
@testable import ETLExpression

final class DateExpressionTests: XCTestCase {
    func testKnownDatesRoundTrip() throws {
        let known: [(text: String, epoch: Double, year: Int64, month: Int64, day: Int64)] = [
            ("2001-01-01T00:00:00Z", 978_307_200, 2001, 1, 1),
            ("1970-01-01T00:00:00Z", 0, 1970, 1, 1),
            ("1969-12-31T00:00:00Z", -86_400, 1969, 12, 31),
            ("2024-02-29T12:34:56Z", 1_709_210_096, 2024, 2, 29),
            ("2000-02-29T00:00:00Z", 951_782_400, 2000, 2, 29),
            ("1900-03-01T00:00:00Z", -2_203_891_200, 1900, 3, 1),
        ]
        for date in known {
            let parsed = "date('\(date.text)')"
            XCTAssertEqual(try evaluate(parsed), .date(date.epoch), date.text)
            XCTAssertEqual(try evaluate("epoch(\(parsed))"), .double(date.epoch), date.text)
            XCTAssertEqual(try evaluate("iso8601(date(\(Int64(date.epoch))))"), .string(date.text), date.text)
            XCTAssertEqual(try evaluate("year(\(parsed))"), .integer(date.year), date.text)
            XCTAssertEqual(try evaluate("month(\(parsed))"), .integer(date.month), date.text)
            XCTAssertEqual(try evaluate("day(\(parsed))"), .integer(date.day), date.text)
        }
    }

    func testAcceptedISO8601Forms() throws {
        XCTAssertEqual(try evaluate("date('2024-01-31')"), .date(1_706_659_200))
        XCTAssertEqual(try evaluate("date('2024-01-31T10:00:00Z')"), .date(1_706_695_200))
        XCTAssertEqual(try evaluate("date('2024-01-31 10:00:00')"), .date(1_706_695_200))
        XCTAssertEqual(try evaluate("date('2024-01-31T10:00')"), .date(1_706_695_200))
        XCTAssertEqual(try evaluate("date('2024-01-31T10:00:00+02:00')"), .date(1_706_688_000))
        XCTAssertEqual(try evaluate("date('2024-01-31T10:00:00-01:30')"), .date(1_706_700_600))
        XCTAssertEqual(try evaluate("epoch(date('1970-01-01T00:00:00.25Z'))"), .double(0.25))
        XCTAssertEqual(try evaluate("date('2024-02-29')"), .date(1_709_164_800), "a leap day")
        // What the docs promise: text of a number is seconds since 1970.
        XCTAssertEqual(try evaluate("date('1712345678')"), .date(1_712_345_678))
        XCTAssertEqual(try evaluate("date(' -1.5 ')"), .date(-1.5))
    }

    /// A date that cannot be read rejects the row: the error names the function, the value
    /// and why, instead of a null nobody notices.
    func testUnparseableAndImpossibleDatesFail() throws {
        for text in ["yesterday", "2024/03/05", "2024-13-45T99:99:99Z", "2024-02-30T00:00:00Z", "2023-02-29",
                     "2024-04-31", "2024-13-01", "2024-01-32", "2024-1-5", "2024-01-31T", "2024-01-31T25:00",
                     "2024-01-31 10:00:00 junk", "", "  ", "12abc"] {
            let failure = evaluationFailure("date('\(text)')")
            XCTAssertEqual(failure?.error.value, .string(text), text)
            XCTAssertEqual(failure?.column, 1, text)
            XCTAssertTrue(failure?.description.hasPrefix("column 1: date('\(text)'): not a date") ?? false, failure?.description ?? text)
        }
        XCTAssertEqual(try evaluate("date(null)"), .null)
        XCTAssertEqual(try evaluate("orNull(date('nope'))"), .null)
        XCTAssertEqual(try evaluate("year(orNull(date('nope')))"), .null)
        XCTAssertEqual(try evaluate("orNull(date('2024-02-29'))"), .date(1_709_164_800))
    }

    func testDatesFromNumbersAndFractionsFloor() throws {
        XCTAssertEqual(try evaluate("date(978307200)"), .date(978_307_200))
        XCTAssertEqual(try evaluate("date(1.5)"), .date(1.5))
        XCTAssertEqual(try evaluate("iso8601(date(-0.5))"), .string("1969-12-31T23:59:59Z"))
        XCTAssertEqual(try evaluate("iso8601(date(59.999))"), .string("1970-01-01T00:00:59Z"))
        XCTAssertEqual(try evaluate("day(date(-1))"), .integer(31))
        XCTAssertEqual(try type(of: "epoch($source.published)"), .double)
        XCTAssertEqual(try evaluate("year($source.published)", row: ["$source.published": .date(978_307_200)]),
                       .integer(2001))
    }

    func testDateComparisonsAndTypeErrors() throws {
        let filter = "$source.published >= date('2001-01-01')"
        XCTAssertEqual(try evaluate(filter, row: ["$source.published": .date(978_307_200)]), .boolean(true))
        XCTAssertEqual(try evaluate(filter, row: ["$source.published": .date(978_307_199)]), .boolean(false))
        XCTAssertEqual(compileError("year('2024-01-01')")?.message, "year: argument 1 must be a date, found string")
        XCTAssertEqual(compileError("epoch(5)")?.message, "epoch: argument 1 must be a date, found integer")
        XCTAssertEqual(compileError("date(true)")?.message, "date: argument 1 must be a string, number or date, found boolean")
        XCTAssertEqual(compileError("$source.published + 1")?.message, "operator '+' needs numbers, found date and integer")
    }

    func testCivilArithmeticDirectly() {
        XCTAssertEqual(CivilDate.daysFromCivil(year: 1970, month: 1, day: 1), 0)
        XCTAssertEqual(CivilDate.daysFromCivil(year: 2000, month: 3, day: 1), 11_017)
        XCTAssertEqual(CivilDate.daysFromCivil(year: 1600, month: 2, day: 29), -135_081)
        let back = CivilDate.civilFromDays(-135_081)
        XCTAssertEqual([back.year, back.month, back.day], [1600, 2, 29])
        XCTAssertEqual(CivilDate.format(.infinity), nil)
    }

    func testDateValuesAndSQLite() {
        XCTAssertEqual(Value(sql: .real(978_307_200), as: .date), .date(978_307_200))
        XCTAssertEqual(Value(sql: .integer(60), as: .date), .date(60))
        XCTAssertEqual(Value(sql: .text("2001-01-01"), as: .date), .date(978_307_200))
        XCTAssertEqual(Value.date(1.5).sqlValue, .real(1.5))
    }
}
