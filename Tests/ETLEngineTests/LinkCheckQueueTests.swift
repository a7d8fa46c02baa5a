import XCTest
import Foundation
import ETLStore
@testable import ETLEngine

/// Validation's link checks are shared by two connections; the problems are those of the
/// checks run one after the other, in the checks' order, whichever connection ran each.
final class LinkCheckQueueTests: XCTestCase {
    func testTwoConnectionsDrainingTheQueueFindWhatOneWouldInTheSameOrder() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("links.sqlite")
        let db = try Database(path: path, mode: .create)
        try db.execute("""
            CREATE TABLE Book (id INTEGER PRIMARY KEY);
            CREATE TABLE Shelf (id INTEGER PRIMARY KEY, book INTEGER);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 2000) INSERT INTO Book SELECT i FROM n;
            INSERT INTO Shelf SELECT id, id FROM Book;
            """)
        // Twelve checks of the same column; every third finds the two links it is given to miss.
        var checks: [LinkCheck] = []
        for number in 0..<12 {
            let missing = number % 3 == 0 ? "\(number * 100 + 1), \(number * 100 + 2)" : "-1"
            try db.execute("CREATE VIEW Book\(number) AS SELECT id FROM Book WHERE id NOT IN (\(missing))")
            checks.append(LinkCheck(entity: "Shelf", relationship: "book\(number)", table: "Shelf", column: "book",
                                    target: "Book\(number)", targetKey: "id"))
        }
        let expected = stride(from: 0, to: 12, by: 3).map { "Shelf.book\($0) links to rows that do not exist (keys \($0 * 100 + 1), \($0 * 100 + 2))" }

        let queue = LinkCheckQueue(checks)
        let side = SideWork(on: try Database(path: path, mode: .readOnly)) { try queue.drain(on: $0) }
        try queue.drain(on: db)
        try side.wait()
        XCTAssertEqual(queue.problems, expected)

        let alone = LinkCheckQueue(checks)
        try alone.drain(on: db)
        XCTAssertEqual(alone.problems, expected, "one connection finds the same")
    }
}
