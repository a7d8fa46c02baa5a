import Foundation
import XCTest
import ETLStore
import ETLEngine
import ETLExpression
import ETL
import CSQLite

/// Given SQLite short of memory (its process-wide hard heap limit, as a memory limit
/// would leave it), when a run allocates past it, then the run ends in an error saying
/// memory ran out and how to resume — its work kept, not taken for a damaged store — and
/// the same command with fewer workers, given memory again, resumes to the same store.
final class OutOfMemoryTests: XCTestCase {
    func testSQLiteOutOfMemoryIsAClearErrorAndTheRunResumesWithFewerWorkers() throws {
        let fixture = try BooksResumeFixture(rows: 20_000, seed: 9)
        let (reference, destination) = (fixture.reference, fixture.destination)
        var migration = fixture.migration
        migration.workers = 2
        migration.checkSource = false

        // (The pragma only lowers the limit; the C call lifts it again.)
        sqlite3_hard_heap_limit64(Self.limit)
        do {
            defer { sqlite3_hard_heap_limit64(0) }
            assertMigrationError(try migration.run(), contains: ["ran out of memory in SQLite", "run the same command again to resume",
                                                               "--workers 1"])
        }
        XCTAssertEqual(sqlite3_hard_heap_limit64(-1), 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
        migration.workers = 1
        XCTAssertNotNil(try migration.run().resumed, "the work was kept")
        try assertSameStore(destination, reference)
    }

    static let limit: Int64 = 3_000_000
}
