import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// The files beside a source (`-wal`, `-shm`, `-journal`) and a resumed run's source.
/// Given a FIFO named `STORE-wal` (or `-shm`, `-journal`), `run`, `inspect` and `batch`
/// refuse the store at once, naming the file (SQLite alone would wait forever for a writer).
/// Given a run killed in the middle and its source changed in place past its first 64 KiB
/// with its size and modification time kept, the rerun is refused, naming what SQLite
/// changed (the header's change counter), instead of mixing the two states.
final class SourceCompanionTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-companion") }
    override func tearDown() { temporary = nil }

    func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
    var pipeline: String { repositoryRoot.appendingPathComponent("pipelines/books.json").path }

    /// `etl` with `arguments`, stopped after 60 s (`timeout`, exit 124) should it hang.
    func limited(_ arguments: [String]) throws -> ToolRun {
        try ToolProcess.run(["-s", "KILL", "60", ToolProcess.executable("etl").path] + arguments, program: "/usr/bin/timeout", in: folder)
    }

    func testAFIFOBesideTheStoreIsRefusedWithoutWaiting() throws {
        for suffix in ["-wal", "-shm", "-journal"] {
            try setUpWithError()
            let stores = folder.appendingPathComponent("stores")
            try FileManager.default.createDirectory(at: stores, withIntermediateDirectories: true)
            let store = stores.appendingPathComponent("books.sqlite").path
            try BooksSample.write(rows: 50, seed: 4, to: store)
            XCTAssertEqual(mkfifo(store + suffix, 0o644), 0)
            let run = try limited(["run", pipeline, "--source", store, "--destination", path("out.sqlite")])
            let inspect = try limited(["inspect", store])
            let batch = try limited(["batch", pipeline, "--stores", stores.path, "--out", path("batch"), "--store-timeout", "30"])
            for (name, result) in [("run", run), ("inspect", inspect), ("batch", batch)] {
                XCTAssertNotEqual(result.status, 124, "\(name) with a FIFO \(suffix) hung")
                XCTAssertNotEqual(result.status, 0, "\(name) with a FIFO \(suffix)")
                XCTAssertTrue((result.stdout + result.stderr).contains("books.sqlite\(suffix) is a FIFO (named pipe), not SQLite's \(suffix) file"),
                              "\(name) \(suffix): \(result.stdout)\(result.stderr)")
            }
        }
    }

    func testAResumeOfASourceChangedInPlaceWithItsSizeAndTimeKeptIsRefused() throws {
        let source = path("v1.sqlite")
        try BooksSample.write(rows: 4000, seed: 21, to: source)
        let destination = path("v3.sqlite")
        let arguments = ["run", pipeline, "--source", source, "--destination", destination, "--chunk-size", "20", "--no-pushdown",
                         "--separate-steps", "--progress", "json"]
        let killed = try ToolProcess.run(arguments, killAt: KillTarget(step: 1, stage: "create", mapping: "Books", fraction: 0.3), pause: 0)
        XCTAssertTrue(killed.killed, killed.stderr)
        var before = stat()
        XCTAssertEqual(stat(source, &before), 0)
        // Two titles far past the first 64 KiB, each the same length, by SQLite.
        let db = try Database(path: source, mode: .readWrite)
        let last = try db.scalarInt("SELECT max(id) FROM Book")
        try db.execute("UPDATE Book SET title = upper(title) WHERE id IN (\(last), \(last - 1))")
        db.close()
        var times = [before.st_atim, before.st_mtim]
        XCTAssertEqual(utimensat(AT_FDCWD, source, &times, 0), 0)
        var after = stat()
        XCTAssertEqual(stat(source, &after), 0)
        XCTAssertEqual(after.st_size, before.st_size)
        XCTAssertEqual(after.st_mtim.tv_nsec, before.st_mtim.tv_nsec)
        let rerun = try ToolProcess.run(arguments)
        XCTAssertEqual(rerun.status, 1, rerun.stderr)
        XCTAssertTrue(rerun.stderr.contains("was modified or replaced since the run started: its header's change counter"), rerun.stderr)
        XCTAssertFalse(rerun.stderr.contains("its size"), rerun.stderr)
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    /// A store whose `-wal` has content and which is too big to be read from memory (a
    /// `SourceImage`) gets a `-shm` from SQLite while it is read: killed, the run leaves it;
    /// the next run (or `inspect`) knows it for its own and removes it, leaving the folder
    /// as it was found.
    func testTheShmOfAKilledRunIsRemovedByTheNextOne() throws {
        let bookmarks = folder.appendingPathComponent("bookmarks")
        for name in ["Bookmarks_V1.sqlite", "Bookmarks_V1.sqlite-wal", "BookmarksModel.xcdatamodeld"] {
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/\(name)", into: bookmarks)
        }
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path
        // The WAL's transactions committed 1,100 times over: the same 10 bookmarks, in 18 MB.
        let wal = WALFrames.repeated([UInt8](try bytes(store + "-wal")), times: 1_100)
        XCTAssertGreaterThan(wal.count, 16 << 20)
        try Data(wal).write(to: URL(fileURLWithPath: store + "-wal"))
        let found = try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).sorted()
        let files = try [bytes(store), bytes(store + "-wal")]
        let pipeline = path("bookmarks.json")
        try Data("""
            { "format": 1, "models": "\(bookmarks.path)/BookmarksModel.xcdatamodeld", "drop": ["BookmarkEntity.isFavorite"],
              "source": { "store": "\(store)", "layout": "coredata" },
              "destination": { "store": "\(path("out.sqlite"))", "layout": "coredata" } }
            """.utf8).write(to: URL(fileURLWithPath: pipeline))
        let killed = try ToolProcess.run(["run", pipeline, "--progress", "json"], killAt: KillTarget(step: 1, stage: "create"), pause: 0)
        XCTAssertTrue(killed.killed, killed.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: store + "-shm"), "SQLite's index of the -wal, left by the kill")
        let inspect = try ToolProcess.run(["inspect", store])
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).sorted(), found, "inspect removed what the killed run left")
        let rerun = try ToolProcess.run(["run", pipeline])
        XCTAssertEqual(rerun.status, 0, rerun.stderr)
        XCTAssertEqual(try Database(path: path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: bookmarks.path).sorted(), found)
        XCTAssertEqual(try [bytes(store), bytes(store + "-wal")], files, "the store and its -wal are byte-identical")
    }
}
