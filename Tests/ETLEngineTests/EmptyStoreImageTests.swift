import XCTest
import ETLTestSupport
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression

/// A step's store and work database start as the image of their empty tables; the work
/// database of the step before is rewritten in place rather than removed and made again.
final class EmptyStoreImageTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    let tables = ["CREATE TABLE Book (id INTEGER PRIMARY KEY, title TEXT)", "CREATE TABLE Author (id INTEGER PRIMARY KEY, name TEXT)"]

    /// The names and SQL of a database's schema, and its rows per table.
    func contents(_ path: String, schema: String = "main") throws -> [[SQLValue]] {
        let db = try Database(path: path, mode: .readOnly)
        var found = try db.rows("SELECT type, name, sql FROM sqlite_schema ORDER BY name")
        for case .text(let table) in try db.rows("SELECT name FROM sqlite_schema WHERE type = 'table' ORDER BY name").map({ $0[0] }) {
            found.append([.text(table), .integer(try db.scalarInt("SELECT count(*) FROM \(Database.quote(table))"))])
        }
        return found
    }

    func testTheImageHoldsWhatTheStatementsMakeOnANewFile() throws {
        let (store, work) = (folder.path("built.sqlite"), folder.path("built.sqlite.etl-work"))
        try EmptyStoreImage.of(tableSQL: tables).write(store: store, work: work)

        let expected = try Database(path: folder.path("expected.sqlite"), mode: .create)
        try expected.execute("ATTACH DATABASE \(SQLValue.text(folder.path("expected.work")).sqlLiteral) AS work")
        try expected.transaction {
            for sql in tables { try expected.execute(sql) }
            try expected.execute(WorkDatabase.creation)
        }
        XCTAssertEqual(try contents(store), try contents(folder.path("expected.sqlite")))
        XCTAssertEqual(try contents(work), try contents(folder.path("expected.work")))
        XCTAssertEqual(try Database(path: store, mode: .readOnly).quickCheck(), [])
        XCTAssertEqual(try Database(path: store, mode: .readOnly).scalarInt("PRAGMA page_size"),
                       try expected.scalarInt("PRAGMA main.page_size"))
    }

    /// Given the work database of a step before, full of associations, beside a journal
    /// with content (as a kill mid-commit leaves it) and a WAL, when the next step starts:
    /// its work database is empty, and nothing of the old one can come back.
    func testTheWorkDatabaseOfTheStepBeforeIsRewrittenWithNothingOfItLeft() throws {
        let work = folder.path("out.sqlite.etl-work")
        let image = try EmptyStoreImage.of(tableSQL: tables)
        try image.write(store: folder.path("step1.sqlite"), work: work)
        let old = try Database(path: work, mode: .readWrite)
        try old.execute("""
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 500)
            INSERT INTO association SELECT 0, i, i, \(WorkDatabase.noItem) FROM n
            """)
        old.close()
        let inode = try FileManager.default.attributesOfItem(atPath: work)[.systemFileNumber] as? NSNumber
        XCTAssertTrue(FileManager.default.createFile(atPath: work + "-journal", contents: Data(repeating: 0xd9, count: 4096)))
        XCTAssertTrue(FileManager.default.createFile(atPath: work + "-wal", contents: Data(repeating: 1, count: 100)))

        WorkArea.prepareForReuse(store: work)
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "-journal"), "a journal with content would be rolled back into the new file")
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "-wal"))
        try image.write(store: folder.path("step2.sqlite"), work: work)
        XCTAssertEqual(try FileManager.default.attributesOfItem(atPath: work)[.systemFileNumber] as? NSNumber, inode, "the same file, rewritten")
        XCTAssertEqual(try Database(path: work, mode: .readOnly).scalarInt("SELECT count(*) FROM association"), 0)

        // An empty journal stays, and serves the next transaction.
        XCTAssertTrue(FileManager.default.createFile(atPath: work + "-journal", contents: Data()))
        WorkArea.prepareForReuse(store: work)
        XCTAssertTrue(FileManager.default.fileExists(atPath: work + "-journal"))
        try image.write(store: folder.path("step3.sqlite"), work: work)
        let db = try Database(path: work, mode: .readWrite)
        try db.execute("PRAGMA journal_mode = TRUNCATE; INSERT INTO unique_key VALUES (0, x'01', 1, 1, NULL)")
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM unique_key"), 1)
        XCTAssertEqual(try db.quickCheck(), [])
    }

    /// A link planted at the work database's name is removed, never written through.
    func testALinkPlantedAsTheWorkDatabaseIsReplacedNotFollowed() throws {
        let work = folder.path("out.sqlite.etl-work")
        let target = folder.path("precious.txt")
        try Data("keep me".utf8).write(to: URL(fileURLWithPath: target))
        try FileManager.default.createSymbolicLink(atPath: work, withDestinationPath: target)
        try FileManager.default.createSymbolicLink(atPath: work + "-journal", withDestinationPath: target)

        WorkArea.prepareForReuse(store: work)
        try EmptyStoreImage.of(tableSQL: tables).write(store: folder.path("step.sqlite"), work: work)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: target)), Data("keep me".utf8))
        XCTAssertNil(try? FileManager.default.destinationOfSymbolicLink(atPath: work))
        XCTAssertFalse(FileManager.default.fileExists(atPath: work + "-journal"))
        XCTAssertEqual(try Database(path: work, mode: .readOnly).scalarInt("SELECT count(*) FROM association"), 0)
    }
}
