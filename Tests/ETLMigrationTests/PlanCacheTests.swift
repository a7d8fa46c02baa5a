import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// A batch plans once per kind of store: given v1 stores and a store already at v3, the
/// v1 stores share one plan (and its memo) and give the stores separate runs give; the v3
/// store gets its own plan (up to date).
final class PlanCacheTests: XCTestCase {
    func testStoresOfOneSchemaShareAPlanAndGiveTheStoresOfSeparateRuns() throws {
        let folder = try TemporaryFolder()
        let pipeline = repositoryPath("pipelines/books.json")
        // Given two v1 stores of different content, and a store already at v3…
        for seed in [1, 2] as [UInt64] { try BooksSample.write(rows: 40 * Int(seed), seed: seed, to: folder.path("v1-\(seed).sqlite")) }
        var upgrade = Migration(pipeline: pipeline)
        upgrade.source = folder.path("v1-1.sqlite")
        upgrade.destination = folder.path("v3.sqlite")
        _ = try upgrade.run()

        // …when each goes through one pipeline with a shared cache, and again on its own…
        let plans = PlanCache()
        var planned: [String: Plan] = [:]
        for name in ["v1-1", "v1-2", "v3"] {
            for shared in [true, false] {
                var migration = Migration(pipeline: pipeline)
                migration.plans = shared ? plans : nil
                migration.source = folder.path("\(name).sqlite")
                migration.destination = folder.path((shared ? "shared-" : "alone-") + name + ".sqlite")
                let source = try migration.openSource()
                let plan = try migration.plan(readingSource: source)
                if shared { planned[name] = plan }
                if !plan.steps.isEmpty { _ = try migration.run(plan, source: source) }
            }
        }
        // …the v1 stores were planned once, the v3 store on its own, each with its own paths…
        XCTAssertEqual(plans.count, 2)
        XCTAssertEqual(planned["v1-2"]?.sourcePath, folder.path("v1-2.sqlite"))
        XCTAssertEqual(planned["v1-2"]?.destinationPath, folder.path("shared-v1-2.sqlite"))
        XCTAssertEqual(planned["v1-2"]?.steps.count, 2)
        XCTAssertEqual(planned["v3"]?.sourceVersion, "books-v3")
        XCTAssertEqual(planned["v3"]?.steps.count, 0)
        // …and a shared plan gives the store a plan of its own gives…
        for name in ["v1-1", "v1-2"] {
            try assertSameStore(folder.path("shared-\(name).sqlite"), folder.path("alone-\(name).sqlite"))
        }
        // …with what the runs work out from the plan alone worked out once (`PlanMemo`): the
        // pipeline's fingerprint, and of the step run (the two steps run as one, `StepFusion`)
        // its push-down statements, the names it leaves unread and its link checks; kept for
        // the v1 stores only; the v3 store's plan (another schema) has a memo of its own.
        let memo = try XCTUnwrap(planned["v1-1"]?.memo)
        XCTAssertTrue(planned["v1-2"]?.memo === memo)
        XCTAssertEqual(memo.count, 4)
        XCTAssertNotNil(planned["v3"]?.memo)
        XCTAssertFalse(planned["v3"]?.memo === memo)
    }
}
