import XCTest
import Foundation
@testable import ETLEngine
import ETLExpression

/// The one decision of how a step runs (`StrategyDecider`): the options first, then what
/// earlier tries learned, then the planner; its reasons are values that survive a checkpoint.
final class StrategyDeciderTests: XCTestCase {
    struct NotAsked: Error {}

    func testPushdownOffAndLessonsDecideWithoutThePlanner() throws {
        let never: (RowByRowReason?) throws -> PushdownPlan = { _ in throw NotAsked() }
        guard case .rowByRow(nil) = try StrategyDecider(pushdown: false).strategy(plan: never) else {
            return XCTFail("--no-pushdown: row by row, with nothing to explain")
        }
        let rejected = RowByRowReason.valuesRejected(mapping: "Notes", detail: "date('yesterday'): not a date")
        let decider = StrategyDecider(pushdown: true, lessons: StepLessons(rowByRow: rejected))
        guard case .rowByRow(rejected?) = try decider.strategy(plan: never) else {
            return XCTFail("a step that started over row by row goes on row by row")
        }
    }

    func testThePlannersRefusalBecomesTheReasonNamingItsMapping() throws {
        let decider = StrategyDecider(pushdown: true, lessons: StepLessons(policiesRowByRow: .policyIrregular(detail: "row 12")))
        var asked: [RowByRowReason?] = []
        let strategy = try decider.strategy { policies in
            asked.append(policies)
            throw PushdownPlan.NotPushable(mapping: "Books", "has a policy with a relate hook")
        }
        XCTAssertEqual(asked, [.policyIrregular(detail: "row 12")], "the planner is told why policies run row by row")
        guard case .rowByRow(let reason?) = strategy else { return XCTFail("row by row") }
        XCTAssertEqual(reason, .untranslatable(mapping: "Books", detail: "has a policy with a relate hook"))
        XCTAssertEqual(reason.description, "mapping Books has a policy with a relate hook")
        XCTAssertEqual(PushdownPlan.NotPushable(reason: "the filter of mapping Books '…' has no exact SQL form").mapping, nil)
    }

    func testLessonsSurviveTheCheckpointsJSON() throws {
        let lessons = StepLessons(rowByRow: .valuesRejected(mapping: "Notes", detail: "blob: not UTF-8"),
                                  policiesRowByRow: .policyIrregular(detail: "policy tidy of mapping Books made no row of Book row 12"))
        let data = try JSONEncoder().encode(lessons)
        XCTAssertEqual(try JSONDecoder().decode(StepLessons.self, from: data), lessons)
        XCTAssertEqual(lessons.learning(.rowByRow(.nullUniqueKey(mapping: "Authors"))).rowByRow, .nullUniqueKey(mapping: "Authors"))
        XCTAssertEqual(RowByRowReason.nullUniqueKey(mapping: "Authors").description, "mapping Authors has rows whose uniqueBy key is null")
    }
}
