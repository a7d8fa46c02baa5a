import Foundation
import XCTest
import ETLStore
import ETLEngine
import ETLExpression
import ETL

/// Given a program that commits to the source while a run reads it (in rollback-journal
/// and in WAL mode, pushed down and row by row), when the run goes on, then it stops with
/// an error naming the source and what happened — never a store that mixes the rows read
/// before the write with those read after, which no one ever wrote.
final class ConcurrentWriterTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func testAWriterCommittingDuringTheRunStopsIt() throws {
        for journal in ["DELETE", "WAL"] {
            for pushdown in [false, true] {
                let source = folder.path("v1-\(journal)-\(pushdown).sqlite")
                try BooksSample.write(rows: 3000, seed: 8, to: source)
                try Database(path: source, mode: .readWrite).execute("PRAGMA journal_mode = \(journal)")
                let destination = folder.path("v3-\(journal)-\(pushdown).sqlite")
                var migration = booksMigration(source: source, destination: destination, chunkSize: 10)
                migration.pushdown = pushdown
                var wrote = false
                assertMigrationError(try migration.run { event in
                    // The app saves its last book while the first chunks are being loaded.
                    guard !wrote, event.kind == .advanced, event.stage == .create else { return }
                    wrote = true
                    let writer = try! Database(path: source, mode: .readWrite)
                    try! writer.execute("UPDATE Book SET title = 'written during the run' WHERE id = (SELECT max(id) FROM Book)")
                    writer.close()
                }, contains: [source, "changed while the run read it"])
                XCTAssertTrue(wrote)
                XCTAssertFalse(FileManager.default.fileExists(atPath: destination), "\(journal), pushdown \(pushdown): a store was installed")
                XCTAssertEqual(WorkArea.existingFiles(destination: destination, stepCount: 2), [], "work of a mixed run is kept")
            }
        }
    }

    /// The checks cost nothing to a run whose source nobody writes: it ends as always.
    func testAnUnwrittenSourcePassesTheChecks() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 500, seed: 8, to: source)
        try Database(path: source, mode: .readWrite).execute("PRAGMA journal_mode = WAL")
        XCTAssertNil(try migrateBooks(source: source, destination: folder.path("v3.sqlite"), chunkSize: 10).resumed)
    }
}
