import XCTest
import Foundation
@testable import ETL
import ETLExpression

/// What `etl plan` counts in the source for a hop's drops.
final class PlanReportTests: XCTestCase {
    func testDropsAreCountedAsRowsValuesAndLinks() throws {
        let store = CommandLineTests.root.appendingPathComponent("data/books-v1.sqlite").path
        let db = try Database(path: store, mode: .readOnly)
        let layout = PlainLayout(model: BooksSample.modelV1)
        XCTAssertEqual(try PlanReport.rows(of: "Book", in: db, layout: layout), 2000)
        XCTAssertEqual(try PlanReport.values(of: "authorName", entity: "Book", in: db, layout: layout),
                       Int(try db.scalarInt("SELECT count(*) FROM Book WHERE authorName IS NOT NULL")))
        // A many-to-many's links are its join table's rows, from either side.
        XCTAssertEqual(try PlanReport.values(of: "users", entity: "Book", in: db, layout: layout), 3002)
        XCTAssertEqual(try PlanReport.values(of: "books", entity: "User", in: db, layout: layout), 3002)
    }
}
