import XCTest
import Foundation
import ETLStore
import ETLEngine
import ETLExpression
import ETL

/// The stores a run builds keep SQLite's rollback journal, truncated at each commit
/// instead of deleted: the same atomicity (the kill tests), without a file created and
/// removed per commit, and no journal left once the run is done.
final class WorkJournalTests: XCTestCase {
    func testEveryStepCommitsThroughATruncatedJournalAndLeavesNoneBehind() throws {
        let folder = try TemporaryFolder()
        // Given a books v1 store and the two steps of pipelines/books.json…
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 120, seed: 7, to: source)
        var migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = folder.path("v3.sqlite")
        let plan = try migration.plan()
        XCTAssertEqual(plan.steps.count, 2)
        var options = RunOptions(chunkSize: 25, workers: 1)
        options.fuseSteps = false  // the store between the steps too
        let modes = Recorded<String>()
        options.beforeValidation = { db in
            for schema in ["main", "work"] {
                guard case .text(let mode)? = try db.rows("PRAGMA \(schema).journal_mode").first?.first else { return XCTFail(schema) }
                modes.list.append(mode)
            }
        }
        // …when it runs, each step's store and work file journal in truncate mode…
        _ = try Engine(plan: plan, options: options).run()
        XCTAssertEqual(modes.list, ["truncate", "truncate", "truncate", "truncate"])
        // …and once installed, only the source and the result are left.
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["v1.sqlite", "v3.sqlite"])
    }
}
