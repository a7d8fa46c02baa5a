import XCTest
import ETLPipeline

/// A plan's memo keeps a value per key: asked again, the kept one; another key is worked
/// out; a value whose work failed is not kept.
final class PlanMemoTests: XCTestCase {
    struct Failed: Error {}

    func testAValueIsWorkedOutOncePerKey() throws {
        let memo = PlanMemo()
        var worked = 0
        XCTAssertEqual(memo.value("a") { worked += 1; return 1 }, 1)
        XCTAssertEqual(memo.value("a") { worked += 1; return 2 }, 1)
        XCTAssertEqual(memo.value("b") { worked += 1; return "b" }, "b")
        XCTAssertThrowsError(try memo.value("c") { () throws -> Int in worked += 1; throw Failed() })
        XCTAssertEqual(memo.value("c") { worked += 1; return 3 }, 3)
        XCTAssertEqual(worked, 4)
        XCTAssertEqual(memo.count, 3)
    }
}
