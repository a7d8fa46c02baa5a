import Foundation
import XCTest
import ETLStore
import ETLEngine
import ETLExpression
import ETL

/// Keys are any Int64: −2⁶³ and 2⁶³−1, all negative, or scattered over the whole range.
/// Given the books sample with its keys rewritten so, when it is migrated pushed down and
/// row by row, then both give the same store, with every row and link of the sample's
/// own migration — nothing dropped at the ends of the range, no overflow — and a resume
/// from an older checkpoint rolls back rows of negative keys too.
final class ExtremeKeyTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static let min = Int64.min, max = Int64.max

    /// The books sample (`rows` books, seed 3) with the keys of Book and User rewritten by
    /// SQL expressions of `id`, links following.
    func store(_ name: String, rows: Int = 1000, books: String, users: String) throws -> String {
        let path = folder.path(name)
        try BooksSample.write(rows: rows, seed: 3, to: path)
        let db = try Database(path: path, mode: .readWrite)
        try db.transaction {
            // Through a map table: an UPDATE of keys in place could collide midway.
            try db.execute("""
                CREATE TEMP TABLE book_key AS SELECT id AS old, \(books) AS new FROM Book;
                CREATE TEMP TABLE user_key AS SELECT id AS old, \(users) AS new FROM User;
                UPDATE Book SET id = -id - 1000000; UPDATE User SET id = -id - 1000000;
                UPDATE Book SET id = (SELECT new FROM book_key WHERE old = -Book.id - 1000000);
                UPDATE User SET id = (SELECT new FROM user_key WHERE old = -User.id - 1000000);
                UPDATE Book_users SET source_id = (SELECT new FROM book_key WHERE old = source_id),
                                      target_id = (SELECT new FROM user_key WHERE old = target_id);
                """)
        }
        return path
    }

    /// read, filtered, written and related of every mapping: what a run did, keys aside.
    func counts(_ summary: RunSummary) -> [String] {
        summary.mappings.map { "\($0.step)/\($0.mapping): \($0.read) \($0.filtered) \($0.written) \($0.related)" }
    }

    func migrate(_ source: String, to name: String, pushdown: Bool, chunkSize: Int = 100) throws -> (String, RunSummary) {
        var migration = booksMigration(source: source, destination: folder.path(name), chunkSize: chunkSize, workers: 2)
        migration.pushdown = pushdown
        return (folder.path(name), try migration.run())
    }

    /// Migrates `source` both ways; both must equal each other and do what the plain sample does.
    func assertMigratedWhole(_ source: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let (_, reference) = try migrate(try store("plain.sqlite", books: "id", users: "id"), to: "plain-v3.sqlite", pushdown: true)
        let (pushed, pushedSummary) = try migrate(source, to: "pushed.sqlite", pushdown: true)
        let (rowByRow, rowByRowSummary) = try migrate(source, to: "row-by-row.sqlite", pushdown: false)
        XCTAssertEqual(counts(pushedSummary), counts(reference), "pushed down", file: file, line: line)
        XCTAssertEqual(counts(rowByRowSummary), counts(reference), "row by row", file: file, line: line)
        try assertSameStore(pushed, rowByRow, file: file, line: line)
        // Every book keeps its key, whatever it is.
        let keys = { (path: String) in try Database(path: path, mode: .readOnly).rows("SELECT id FROM Book ORDER BY id").map(\.[0]) }
        let sourceKeys = try Database(path: source, mode: .readOnly).rows("SELECT id FROM Book ORDER BY id").map(\.[0])
        XCTAssertEqual(try keys(pushed), sourceKeys, file: file, line: line)
    }

    func testKeysAtBothEndsOfTheRangeAreMigratedWhole() throws {
        let source = try store("ends.sqlite", books: "CASE id WHEN 1 THEN \(Self.min) WHEN 1000 THEN \(Self.max) ELSE id END",
                               users: "CASE id WHEN 1 THEN \(Self.min) WHEN 50 THEN \(Self.max) ELSE id END")
        try assertMigratedWhole(source)
        let db = try Database(path: folder.path("pushed.sqlite"), mode: .readOnly)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Book WHERE id IN (\(Self.min), \(Self.max))"), 2)
        // The books at the ends keep their files and their users' links.
        let booksFiles = try db.scalarInt("SELECT count(*) FROM File WHERE book_id IN (\(Self.min), \(Self.max))")
        let sourceLinks = try Database(path: folder.path("ends.sqlite"), mode: .readOnly)
            .scalarInt("SELECT count(*) FROM Book_users u JOIN Book b ON b.id = u.source_id WHERE b.id IN (\(Self.min), \(Self.max)) AND b.fileURL IS NOT NULL")
        XCTAssertEqual(booksFiles, sourceLinks)
    }

    func testAllNegativeKeysAreMigratedWhole() throws {
        try assertMigratedWhole(try store("negative.sqlite", books: "-id", users: "-id"))
    }

    func testKeysScatteredOverTheWholeRangeAreMigratedWhole() throws {
        // Odd keys far below zero, even ones far above, in an order unlike the original.
        try assertMigratedWhole(try store("mixed.sqlite", books: "CASE id % 2 WHEN 0 THEN id * 4611686018427387 ELSE -id * 9223372036854775 END",
                                          users: "CASE id % 3 WHEN 0 THEN -id ELSE \(Self.max) - id END"))
    }

    /// A checkpoint older than the rows (the process was killed between a chunk's commit and
    /// its checkpoint) makes the resume roll back the rows after it: with negative keys, too.
    func testAResumeFromAnOlderCheckpointRollsBackRowsOfNegativeKeys() throws {
        for pushdown in [false, true] {
            let source = try store("negative-\(pushdown).sqlite", rows: 300, books: "-id", users: "-id")
            let (reference, _) = try migrate(source, to: "reference-\(pushdown).sqlite", pushdown: pushdown, chunkSize: 1)
            let destination = folder.path("v3-\(pushdown).sqlite")
            let checkpoint = destination + ".etl-checkpoint"
            let older = folder.path("older-\(pushdown).checkpoint")
            // Pushed down, a chunk size of 1 makes 100 source rows per transaction.
            let (keep, stop) = pushdown ? (100, 200) : (50, 150)
            var migration = booksMigration(source: source, destination: destination, chunkSize: 1, workers: 1)
            migration.pushdown = pushdown
            let cancellation = Cancellation()
            migration.cancellation = cancellation
            var kept = false
            XCTAssertThrowsError(try migration.run { event in
                guard event.kind == .advanced, event.stage == .create, event.mapping == "Books", event.step == 1 else { return }
                if event.done >= keep, !kept {
                    kept = (try? FileManager.default.copyItem(atPath: checkpoint, toPath: older)) != nil
                }
                if event.done >= stop { cancellation.cancel() }
            }) { error in
                guard case MigrationError.interrupted = error else { return XCTFail("\(error)") }
            }
            XCTAssertTrue(kept)
            try FileManager.default.removeItem(atPath: checkpoint)
            try FileManager.default.copyItem(atPath: older, toPath: checkpoint)
            migration.cancellation = nil
            let summary = try migration.run()
            XCTAssertNotNil(summary.resumed)
            if !pushdown {
                // (Pushed down, rows that keep their keys have no associations to count.)
                XCTAssertGreaterThanOrEqual(summary.redoneRows, stop - keep, "the rows after the older checkpoint are loaded again")
            }
            try assertSameStore(destination, reference)
        }
    }
}
