import XCTest
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression
import ETL

/// A store below `EngineTuning.smallStoreBytes` is validated, and its source quick-checked, on
/// the run's own connection instead of a second one: the same checks, the same findings,
/// nothing installed when they find a problem.
final class SmallStoreTests: XCTestCase {
    var folder: TemporaryFolder!
    /// The runs' threshold: the default, or 0 for "no store is small".
    var smallStoreBytes = EngineTuning().smallStoreBytes

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Given a v1 store of 50 books, when the v1 → v2 step's store gets a dangling link, a
    /// book without its required title and a foreign key to no row just before validation:
    /// the problems validation listed, and whether the store counted as small.
    func problemsOfADamagedStep(destination: String) throws -> (problems: [String], small: Bool) {
        let source = folder.path("v1.sqlite")
        if !FileManager.default.fileExists(atPath: source) { try BooksSample.write(rows: 50, seed: 7, to: source) }
        let destination = folder.path(destination)
        var migration = Migration(pipeline: repositoryPath("Benchmarks/pipelines/books-v1-v2.json"))
        migration.source = source
        migration.destination = destination
        var options = RunOptions()
        options.tuning.smallStoreBytes = smallStoreBytes
        let small = Flag()
        let smallStoreBytes = smallStoreBytes
        options.beforeValidation = { db in
            try db.execute("""
                UPDATE Book_users SET target_id = 987654 WHERE (source_id, target_id) = (SELECT source_id, target_id FROM Book_users ORDER BY 1, 2 LIMIT 1);
                UPDATE Book SET title = NULL WHERE id = (SELECT min(id) FROM Book);
                CREATE TABLE Shelf (id INTEGER PRIMARY KEY, book INTEGER REFERENCES Book(id)); INSERT INTO Shelf VALUES (7, 987654);
                """)
            small.value = try SmallStore.holds(db, below: smallStoreBytes)
        }
        do {
            _ = try Engine(plan: try migration.plan(), options: options).run()
        } catch MigrationError.validationFailed(_, let problems) {
            XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "nothing was installed")
            return (problems, small.value)
        }
        XCTFail("the damaged store was installed")
        return ([], small.value)
    }

    func testASmallStoreIsValidatedOnOneConnectionWithTheSameFindings() throws {
        let alone = try problemsOfADamagedStep(destination: "alone.sqlite")
        XCTAssertTrue(alone.small, "50 books are a small store")
        smallStoreBytes = 0
        let beside = try problemsOfADamagedStep(destination: "beside.sqlite")
        XCTAssertFalse(beside.small, "with no store small, the checks take a second connection")

        for expected in ["User.books links to rows that do not exist (keys 987654)",
                         "Book.title is required but missing in 1 rows",
                         "a row of 'Shelf' (rowid 7) points at a missing row of 'Book'"] {
            XCTAssertTrue(alone.problems.contains { $0.contains(expected) }, "one connection missed \(expected): \(alone.problems)")
        }
        XCTAssertEqual(alone.problems, beside.problems, "the same checks, the same findings, in the same order")
    }

    /// Given a v1 store of 2,000 books with a leaf page damaged (opening does not notice):
    /// the run fails naming quick_check's finding, the store checked on the run's own
    /// connection as on a second one, and the source is left as it was.
    func testADamagedSmallSourceIsRefusedAsOnASecondConnection() throws {
        let damaged = folder.path("damaged.sqlite")
        let bytes = try writeDamagedBooksStore(original: folder.path("v1.sqlite"), damaged: damaged)
        XCTAssertTrue(try SmallStore.holds(try Database(path: damaged, mode: .readOnly), below: smallStoreBytes), "\(bytes.count) bytes are a small store")

        func failure(_ name: String) -> String {
            do {
                var migration = booksMigration(source: damaged, destination: folder.path(name))
                migration.options.tuning.smallStoreBytes = smallStoreBytes
                _ = try migration.run()
                XCTFail("a damaged source was migrated")
            } catch {
                XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path(name)), "nothing was installed")
                return String(describing: error)
            }
            return ""
        }
        let alone = failure("alone.sqlite")
        smallStoreBytes = 0
        let beside = failure("beside.sqlite")
        for part in [damaged, "is damaged or truncated", "quick_check found"] {
            XCTAssertTrue(alone.contains(part), "\(alone)\n  lacks: \(part)")
        }
        XCTAssertEqual(alone, beside)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: damaged)), bytes, "the source is never modified")
    }
}

/// A value set inside a `@Sendable` closure and read after it ran.
private final class Flag: @unchecked Sendable {
    var value = false
}
