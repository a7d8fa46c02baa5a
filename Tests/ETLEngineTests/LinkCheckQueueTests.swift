import XCTest
import ETLTestSupport
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression

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

        let queue = LinkCheckQueue(checks, rangeTests: true)
        let side = SideWork(on: try Database(path: path, mode: .readOnly)) { try queue.drain(on: $0) }
        try queue.drain(on: db)
        try side.wait()
        XCTAssertEqual(queue.problems, expected)

        let alone = LinkCheckQueue(checks, rangeTests: true)
        try alone.drain(on: db)
        XCTAssertEqual(alone.problems, expected, "one connection finds the same")
    }

    /// Where the target's keys are contiguous, a link is tested against their range; it
    /// finds exactly the links a lookup finds, whatever a link holds; and a target with a
    /// hole, or a link column that is not of INTEGER affinity, is looked up.
    func testARangeOfContiguousKeysFindsWhatTheLookupFinds() throws {
        let folder = try TemporaryFolder()
        let db = try Database(path: folder.path("links.sqlite"), mode: .create)
        try db.execute("""
            CREATE TABLE Book (id INTEGER PRIMARY KEY);
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000) INSERT INTO Book SELECT i FROM n;
            CREATE TABLE Link (number INTEGER, other INTEGER, texty TEXT);
            INSERT INTO Link VALUES (1, 5, '7'), (1000, 'x', '1000'), (500.0, X'01', NULL), ('7', 6, '12'),
                (NULL, NULL, NULL), (0, 7, '8'), (1001, 8, '9'), (2.5, 9, '10');
            """)
        let checks = ["number", "other", "texty"].map {
            LinkCheck(entity: "Link", relationship: $0, table: "Link", column: $0, target: "Book", targetKey: "id")
        }
        let expected = [
            "Link.number links to rows that do not exist (keys 0, 2.5, 1001)",
            "Link.other links to rows that do not exist (keys 'x', X'01')",
        ]
        XCTAssertEqual(try db.contiguousKeys(ofTable: "Book", key: "id"), 1...1000)
        XCTAssertEqual(try checks.map { try $0.rangeTestable(on: db) }, [true, true, false], "a TEXT column is looked up")
        XCTAssertTrue(checks[0].sql(targetKeys: 1...1000).contains("BETWEEN 1 AND 1000"))
        for rangeTests in [true, false] {
            let queue = LinkCheckQueue(checks, rangeTests: rangeTests)
            try queue.drain(on: db)
            XCTAssertEqual(queue.problems, expected, rangeTests ? "by range" : "by lookup")
        }

        // A hole: no range, the lookups find the link to it.
        try db.execute("DELETE FROM Book WHERE id = 500")
        XCTAssertNil(try db.contiguousKeys(ofTable: "Book", key: "id"))
        let queue = LinkCheckQueue(checks, rangeTests: true)
        try queue.drain(on: db)
        XCTAssertEqual(queue.problems, ["Link.number links to rows that do not exist (keys 0, 2.5, 500, 1001)", expected[1]])
    }
}
