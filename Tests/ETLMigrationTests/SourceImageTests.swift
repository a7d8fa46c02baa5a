import XCTest
import Foundation
import ETLStore
import ETLEngine
import ETL
import ETLTestSupport

/// Given a small store whose `-wal` holds transactions, `SourceStore` reads it from an
/// image in memory (`SourceImage`): the very rows SQLite reads through the files, and no
/// file made beside the store. Given a `-shm` beside it (SQLite's index, perhaps a
/// writer's), it is read by SQLite from its files, as before.
final class SourceImageTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// A store in WAL mode at `path` whose `-wal` holds its later transactions: rows
    /// written, changed, removed, and a `VACUUM` that shrinks it (its last commit gives
    /// fewer pages than its file has). Copied while the writer is open: closing it would
    /// write the WAL back into the file.
    func writeStoreWithWAL(at path: String) throws {
        let scratch = folder.path("writer")
        try FileManager.default.createDirectory(atPath: scratch, withIntermediateDirectories: true)
        let written = scratch + "/store.sqlite"
        let writer = try Database(path: written, mode: .create)
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        try writer.execute("CREATE TABLE Book (id INTEGER PRIMARY KEY, title TEXT, cover BLOB)")
        try writer.execute("INSERT INTO Book (title, cover) WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 400) SELECT printf('early %d', value), zeroblob(value * 40) FROM n")
        _ = try writer.rows("PRAGMA wal_checkpoint(TRUNCATE)")
        try writer.execute("INSERT INTO Book (title, cover) WITH RECURSIVE n(value) AS (SELECT 1 UNION ALL SELECT value + 1 FROM n WHERE value < 300) SELECT printf('late %d', value), randomblob(value * 7) FROM n")
        try writer.execute("UPDATE Book SET title = upper(title) WHERE id % 7 = 0")
        try writer.execute("DELETE FROM Book WHERE id BETWEEN 50 AND 380")
        try writer.execute("VACUUM")
        try writer.execute("INSERT INTO Book (title) VALUES ('last')")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: written + suffix, toPath: path + suffix)
        }
        writer.close()
        XCTAssertGreaterThan(FileStatus.size(of: path + "-wal"), 0)
    }

    /// The rows SQLite reads through the files: a copy in a folder of its own, read by a
    /// plain connection (which never reads an image).
    func rowsThroughTheFiles(of path: String) throws -> [[SQLValue]] {
        let copies = folder.path("copies-\(UUID().uuidString)")
        try FileManager.default.createDirectory(atPath: copies, withIntermediateDirectories: true)
        for suffix in ["", "-wal"] { try FileManager.default.copyItem(atPath: path + suffix, toPath: copies + "/store.sqlite" + suffix) }
        let db = try Database(path: copies + "/store.sqlite", mode: .readOnly)
        defer { db.close() }
        return try Self.rows(db)
    }

    static func rows(_ db: Database) throws -> [[SQLValue]] {
        try db.rows("SELECT id, title, cover FROM Book ORDER BY id") + db.rows("PRAGMA page_count")
    }

    func testASmallStoreWithAWALIsReadFromItsImageAsSQLiteReadsItsFiles() throws {
        let store = folder.path("books.sqlite")
        try writeStoreWithWAL(at: store)
        let expected = try rowsThroughTheFiles(of: store)
        XCTAssertEqual(expected.count, 700 - 331 + 1 + 1, "the WAL's transactions are in what SQLite reads")
        var source: SourceStore? = try SourceStore(path: store)
        XCTAssertNotNil(SourceImage.registered(for: store), "read from an image")
        XCTAssertEqual(try Self.rows(source!.database), expected)
        // Every connection the run opens on the source reads the image too.
        let attached = try Database(path: ":memory:", mode: .create)
        try attached.attach(source: store, uri: "file:/nowhere?mode=ro", as: "src")
        XCTAssertEqual(try attached.rows("SELECT id, title, cover FROM src.Book ORDER BY id") + attached.rows("PRAGMA src.page_count"), expected)
        XCTAssertThrowsError(try attached.execute("DELETE FROM src.Book"), "the image is read-only")
        attached.close()
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-shm"), "nothing made beside the store")
        source = nil
        XCTAssertNil(SourceImage.registered(for: store), "the image goes with its SourceStore")
        XCTAssertEqual(try rowsThroughTheFiles(of: store), expected, "the store and its WAL unchanged")
    }

    func testFramesAfterTheLastCommitAreLeftOutAsSQLiteLeavesThem() throws {
        let store = folder.path("books.sqlite")
        try writeStoreWithWAL(at: store)
        let expected = try rowsThroughTheFiles(of: store)
        // The last frame again, changed and without a commit: a transaction never finished.
        var wal = [UInt8](try bytes(store + "-wal"))
        let frameSize = 24 + WALFrames.pageSize(of: wal)
        var frame = Array(wal[(wal.count - frameSize)...])
        for i in 4..<8 { frame[i] = 0 }
        for i in 24..<frameSize { frame[i] = 0x5A }
        wal += frame
        WALFrames.resum(&wal)
        try Data(wal).write(to: URL(fileURLWithPath: store + "-wal"))
        XCTAssertEqual(try rowsThroughTheFiles(of: store), expected, "SQLite leaves it out")
        let source = try SourceStore(path: store)
        XCTAssertNotNil(SourceImage.registered(for: store))
        XCTAssertEqual(try Self.rows(source.database), expected)
    }

    func testAStoreWithAShmBesideItIsReadFromItsFiles() throws {
        let store = folder.path("books.sqlite")
        try writeStoreWithWAL(at: store)
        let expected = try rowsThroughTheFiles(of: store)
        // Another program's connection: its -shm is SQLite's index of the WAL, which SQLite follows.
        let other = try Database(path: store, mode: .readOnly)
        XCTAssertEqual(try Self.rows(other), expected)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store + "-shm"))
        let source = try SourceStore(path: store)
        XCTAssertNil(SourceImage.registered(for: store), "read from its files")
        XCTAssertEqual(try Self.rows(source.database), expected)
        other.close()
    }

    func testAMigrationOfAStoreWithAWALMakesNoFileBesideIt() throws {
        let bookmarks = folder.url.appendingPathComponent("bookmarks")
        for name in ["Bookmarks_V1.sqlite", "Bookmarks_V1.sqlite-wal", "BookmarksModel.xcdatamodeld"] {
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/\(name)", into: bookmarks)
        }
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path
        let found = try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).sorted()
        let pipeline = try folder.pipeline("bookmarks.json", """
            { "format": 1, "models": "\(bookmarks.path)/BookmarksModel.xcdatamodeld", "drop": ["BookmarkEntity.isFavorite"],
              "source": { "store": "\(store)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata" } }
            """)
        var migration = Migration(pipeline: pipeline)
        migration.options.beforeValidation = { _ in
            // Mid-run, with every connection to the source open.
            XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).sorted(), found)
        }
        _ = try migration.run()
        XCTAssertEqual(try Database(path: folder.path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10,
                       "the 10 bookmarks only the WAL holds")
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).sorted(), found)
    }
}
