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
            throw PushdownPlan.NotPushable.policyWithRelateHook(mapping: "Books")
        }
        XCTAssertEqual(asked, [.policyIrregular(detail: "row 12")], "the planner is told why policies run row by row")
        guard case .rowByRow(let reason?) = strategy else { return XCTFail("row by row") }
        XCTAssertEqual(reason, .untranslatable(mapping: "Books", detail: "has a policy with a relate hook"))
        XCTAssertEqual(reason.description, "mapping Books has a policy with a relate hook")
        XCTAssertEqual(PushdownPlan.NotPushable.noExactSQLForm(what: "the filter of mapping Books", expression: "…").mapping, nil)
    }

    func testEachRefusalOfThePlannerSaysItsSentence() {
        typealias Refusal = PushdownPlan.NotPushable
        XCTAssertEqual(Refusal.sharesUniqueByKeys(mapping: "Authors", with: "Writers").reason,
                       "mapping Authors shares its uniqueBy keys with mapping Writers")
        XCTAssertEqual(Refusal.unregisteredPolicy(mapping: "Books", policy: "Tidy").reason, "mapping Books names the unregistered policy Tidy")
        XCTAssertEqual(Refusal.attributeWithoutExactSQLForm(entity: "Book", attribute: "title", mapping: "Books", expression: "f($source.t)").reason,
                       "the expression of Book.title in mapping Books, 'f($source.t)', has no exact SQL form")
        XCTAssertEqual(Refusal.notDestinationOfSource(what: "relationship author", pairOwner: true).reason,
                       "relationship author is not destination(s)('Mapping', $source) or ($item)")
        XCTAssertEqual(Refusal.notDestinationOfSource(what: "relationship author", pairOwner: false).reason,
                       "relationship author is not destination(s)('Mapping', $source) or ($source.relationship)")
        XCTAssertEqual(Refusal.toOneToRowsMadeBy(what: "relationship author", mapping: "Authors", maker: "a policy").reason,
                       "relationship author is a to-one to the rows of mapping Authors, which a policy makes")
        XCTAssertEqual(Refusal.policyReadsNoColumn(entity: "Book", attribute: "tags").reason,
                       "its policy reads Book.tags, which is not a column of its table")
        XCTAssertEqual(RowByRowReason.untranslatable(mapping: Refusal.forEachWithPolicy(mapping: "Tags").mapping,
                                                     detail: Refusal.forEachWithPolicy(mapping: "Tags").detail).description,
                       "mapping Tags has a forEach and a policy")
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
