import XCTest
import ETLTestSupport
import ETLPipeline
import ETLExpression

/// A plan's memo keeps a value per key: asked again, the kept one; another key is worked
/// out; a value whose work failed is not kept.
final class PlanMemoTests: XCTestCase {
    struct Failed: Error {}
    struct Number: PlanMemoKey { typealias Value = Int; let name: String }
    struct Text: PlanMemoKey { typealias Value = String; let name: String }

    func testAValueIsWorkedOutOncePerKey() throws {
        let memo = PlanMemo()
        var worked = 0
        XCTAssertEqual(memo.value(Number(name: "a")) { worked += 1; return 1 }, 1)
        XCTAssertEqual(memo.value(Number(name: "a")) { worked += 1; return 2 }, 1)
        XCTAssertEqual(memo.value(Text(name: "a")) { worked += 1; return "a" }, "a", "another kind of key is another key")
        XCTAssertThrowsError(try memo.value(Number(name: "c")) { worked += 1; throw Failed() })
        XCTAssertEqual(memo.value(Number(name: "c")) { worked += 1; return 3 }, 3)
        XCTAssertEqual(worked, 4)
        XCTAssertEqual(memo.count, 3)
    }
}
