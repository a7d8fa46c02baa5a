import XCTest
import ETLStore
@testable import ETLExpression

/// The row guard of a pushed-down statement (`etl_readable`, one call a row) passes a value
/// of its type's own storage class on that class alone, in C, and sends any other to the
/// reading rule. Both ways together must say exactly what the rule says of every value: a row
/// it passes that the rule does not read would arrive bent; one it stops that the rule
/// reads would leave push-down for nothing.
final class RowGuardReadingTests: XCTestCase {
    static let values = [
        "NULL", "0", "1", "2", "-1", "9007199254740992", "-9007199254740992", "9007199254740993", "-9007199254740993",
        "9223372036854775807", "0.0", "1.0", "1.5", "-0.0", "1e300", "9e999", "-9e999", "9007199254740993.0",
        "''", "' '", "'12'", "'12.5'", "'abc'", "'0'", "'1'", "'yes'", "'2024-01-31'", "'2024-01-31T10:00:00Z'", "'1e3'", "'é'",
        "CAST(X'C3' AS TEXT)", "CAST(X'61FF' AS TEXT)", "CAST(X'F09F9880' AS TEXT)",
        "X''", "X'FF'", "X'616263'", "X'DEADBEEF'",
    ]

    func testTheGuardReadsEveryValueAsTheReadingRuleDoes() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        for (type, _) in SQLTranslator.readableTypes {
            let code = try XCTUnwrap(SQLTranslator.readableCode(type))
            for value in Self.values {
                let stored = try SQLTextShortcutTests.stored(value, db)
                let guarded = Result { try db.rows("SELECT etl_readable('\(code)', '$source.v', \(value))")[0][0] }
                if let reason = Value.unreadable(sql: stored, as: type) {
                    XCTAssertThrowsError(try guarded.get(), "\(type) \(value)") { error in
                        XCTAssertTrue("\(error)".contains("$source.v: \(reason)"), "\(type) \(value): \(error)")
                    }
                } else {
                    XCTAssertEqual(try guarded.get(), .integer(1), "\(type) \(value)")
                }
            }
        }
    }

    /// In a row of several values, the first one the rule does not read is the reason,
    /// named by its path; readable values of other classes before it pass.
    func testTheFirstUnreadableValueOfARowIsTheReason() throws {
        let db = try Database(path: ":memory:", mode: .create)
        try SQLTranslator.registerValueFunction(on: db)
        let codes = String([.integer, .string, .double, .boolean].map { SQLTranslator.readableCode($0)! })
        XCTAssertEqual(try db.rows("SELECT etl_readable('\(codes)', '$source.a', '12', '$source.b', 'x', '$source.c', 3, '$source.d', 1)")[0][0], .integer(1))
        XCTAssertThrowsError(try db.rows("SELECT etl_readable('\(codes)', '$source.a', '12', '$source.b', X'FF', '$source.c', 'abc', '$source.d', 1)")) { error in
            XCTAssertTrue("\(error)".contains("$source.b: the stored BLOB x'FF' is not a string value"), "\(error)")
        }
    }
}
