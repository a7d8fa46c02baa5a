import XCTest
import ETL
import ETLExpression
import PostSectionsPolicy

/// `etl plan`'s account of how a step runs is the push-down planner's own decision.
final class StepExecutionTests: XCTestCase {
    func testAPolicyMappingIsRowByRowAndTheRestInsideSQLite() throws {
        let pipeline = repositoryPath("Examples/PostSections/posts.json")
        // The example's policy has a relate hook: its whole step runs row by row.
        let example = try Migration(pipeline: pipeline, policies: PostSections.policies).plan()
        let withRelate = try StepExecution.of(example.steps[0], policies: PolicyRegistry(PostSections.policies))
        XCTAssertFalse(withRelate.insideSQLite)
        XCTAssertEqual(withRelate.reason, "mapping Posts has a policy with a relate hook")
        XCTAssertEqual(withRelate.mappings.map(\.why), ["it has a policy with a relate hook"])

        // The same policy with its create closure only: it creates Sections too, which SQLite
        // cannot call it for, so the mapping is made row by row, its links inside SQLite.
        let createOnly = ["addSection": Policy(creates: PostSections.addSection.creates, create: PostSections.addSection.create)]
        let plan = try Migration(pipeline: pipeline, policies: createOnly).plan()
        let execution = try StepExecution.of(plan.steps[0], policies: PolicyRegistry(createOnly))
        XCTAssertTrue(execution.insideSQLite)
        XCTAssertNil(execution.reason)
        XCTAssertEqual(execution.mappings.map(\.insideSQLite), [false])
        XCTAssertEqual(execution.mappings[0].why, "it has a policy, and its policy creates rows of Section too: created row by row, its closures on the workers; its links are set inside SQLite")

        // Without the Sections: one row per post, under its key, made by the INSERT calling the policy.
        let postsOnly = ["addSection": Policy(create: { _, _ in })]
        let called = try StepExecution.of(try Migration(pipeline: pipeline, policies: postsOnly).plan().steps[0], policies: PolicyRegistry(postsOnly))
        XCTAssertEqual(called.mappings.map(\.insideSQLite), [true])
        XCTAssertTrue(called.mappings[0].why.hasPrefix("INSERT … SELECT in ranges of source keys, calling its policy per source row"), called.mappings[0].why)

        let off = try StepExecution.of(plan.steps[0], policies: PolicyRegistry(createOnly), pushdown: false)
        XCTAssertFalse(off.insideSQLite)
        XCTAssertEqual(off.reason, "push-down is turned off (--no-pushdown)")
    }

    func testTheBooksStepsAreDecidedAsTheRunDecidesThem() throws {
        let plan = try Migration(pipeline: repositoryPath("pipelines/books.json")).plan()
        let first = try StepExecution.of(plan.steps[0], policies: PolicyRegistry())
        XCTAssertEqual(first.mappings.map(\.insideSQLite), [true, true, true])
        let second = try StepExecution.of(plan.steps[1], policies: PolicyRegistry())
        XCTAssertTrue(second.insideSQLite)
        XCTAssertNil(second.reason)
        XCTAssertEqual(second.mappings.map(\.insideSQLite), [true, true, true, true])
        XCTAssertEqual(second.mappings[3].why, "INSERT … SELECT of one row per (source row, item) pair in ranges of source keys; rows get the next free keys; book and user written with the rows, found by key")
        // The run notes only that they ran as one step (`StepFusion`): both inside SQLite.
        let folder = try TemporaryFolder()
        let summary = try migrateBooks(source: repositoryPath("data/books-v1.sqlite"), destination: folder.path("v3.sqlite"))
        XCTAssertEqual(summary.notes, ["steps v1 to v2 and v2 to v3 ran as one step: the books-v2 store between them was not written"])
    }
}
