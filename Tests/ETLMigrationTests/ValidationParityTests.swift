import XCTest
import Foundation
import ETLStore
import ETLEngine
import ETLExpression
import ETL

/// Validation does not depend on how a step ran: a link damaged after the step was built
/// fails the run inside SQLite exactly as row by row, and nothing replaces the destination.
final class ValidationParityTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Runs the books v1 → v2 step with a link of `Book_users` pointed at a user that does
    /// not exist just before validation; returns the problems validation listed.
    func problemsWithADanglingLink(pushdown: Bool) throws -> [String] {
        try problems(pushdown: pushdown) { db in
            try db.execute("UPDATE Book_users SET target_id = 987654 WHERE (source_id, target_id) = (SELECT source_id, target_id FROM Book_users ORDER BY 1, 2 LIMIT 1)")
        }
    }

    /// Runs the books v1 → v2 step with `damage` done to the destination just before
    /// validation; returns the problems validation listed.
    func problems(pushdown: Bool, damage: @escaping @Sendable (Database) throws -> Void) throws -> [String] {
        let source = folder.path("v1.sqlite")
        if !FileManager.default.fileExists(atPath: source) { try BooksSample.write(rows: 300, seed: 4, to: source) }
        let destination = folder.path(pushdown ? "pushed.sqlite" : "rows.sqlite")
        var migration = Migration(pipeline: repositoryPath("Benchmarks/pipelines/books-v1-v2.json"))
        migration.source = source
        migration.destination = destination
        let plan = try migration.plan()
        var options = RunOptions(chunkSize: 50, workers: 2)
        options.pushdown = pushdown
        options.beforeValidation = damage
        var notes: [String] = []
        do {
            notes = try Engine(plan: plan, options: options).run().notes
        } catch MigrationError.validationFailed(_, let problems) {
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "nothing was installed")
            return problems
        }
        XCTFail("the damaged store was installed (notes: \(notes))")
        return []
    }

    func testADanglingLinkFailsValidationInsideSQLiteAsRowByRow() throws {
        let pushed = try problemsWithADanglingLink(pushdown: true)
        let rows = try problemsWithADanglingLink(pushdown: false)
        XCTAssertTrue(pushed.contains { $0.contains("links to rows that do not exist (keys 987654)") }, "\(pushed)")
        XCTAssertEqual(pushed, rows, "the same checks, the same findings")
    }

    /// The link checks prove the foreign keys of relationship columns, so SQLite's own check
    /// is skipped for those; a foreign key no relationship declares is still checked.
    func testADeclaredForeignKeyNoLinkCheckCoversIsChecked() throws {
        for pushdown in [true, false] {
            let found = try problems(pushdown: pushdown) { db in
                try db.execute("CREATE TABLE Shelf (id INTEGER PRIMARY KEY, book INTEGER REFERENCES Book(id)); INSERT INTO Shelf VALUES (7, 987654)")
            }
            XCTAssertEqual(found, ["a row of 'Shelf' (rowid 7) points at a missing row of 'Book'"], "pushdown: \(pushdown)")
        }
    }
}
