import Foundation
import XCTest
import ETLStore
import ETLTestSupport

/// The files SQLite keeps beside a store, as a hardened reader meets them
/// (`StoreCompanions`): a store in WAL mode without `-wal` content is read and leaves
/// nothing beside it (killed or not); one with content is read whole; a FIFO or folder
/// named like a companion is refused before SQLite opens it.
final class StoreCompanionsTests: XCTestCase {
    private var temporary: TemporaryFolder!

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-companions") }
    override func tearDown() { temporary = nil }

    private func walStore(keepingWAL: Bool) throws -> String {
        let path = temporary.path("wal.sqlite")
        let db = try Database(path: path, mode: .create)
        try db.execute("PRAGMA journal_mode = WAL; CREATE TABLE t (x); INSERT INTO t VALUES (1), (2)")
        if keepingWAL {
            try db.execute("PRAGMA wal_autocheckpoint = 0; PRAGMA wal_checkpoint(TRUNCATE); INSERT INTO t VALUES (3)")
            // Copied while open: the -wal with its frame outlives the connection.
            try FileManager.default.copyItem(atPath: path + "-wal", toPath: path + "-kept")
        }
        db.close()
        for companion in ["-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + companion) }
        if keepingWAL { try FileManager.default.moveItem(atPath: path + "-kept", toPath: path + "-wal") }
        return path
    }

    private func beside() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: temporary.url.path).sorted() }

    func testAWALModeStoreWithoutItsWALIsReadAndLeavesNothingBeside() throws {
        let path = try walStore(keepingWAL: false)
        let before = try beside()
        XCTAssertTrue(StoreCompanions.readsImmutable(path))
        let db = try Database(path: path, mode: .readOnly, hardened: true)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 2)
        XCTAssertEqual(try beside(), before, "no -wal or -shm made while reading (a kill now leaves none)")
        db.close()
        XCTAssertEqual(try beside(), before)
    }

    func testAWALWithContentIsReadWhole() throws {
        let path = try walStore(keepingWAL: true)
        XCTAssertFalse(StoreCompanions.readsImmutable(path), "its transactions are in the -wal")
        let db = try Database(path: path, mode: .readOnly, hardened: true)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM t"), 3)
    }

    func testAFIFOOrFolderNamedLikeACompanionIsRefusedAtOnce() throws {
        let path = try walStore(keepingWAL: false)
        XCTAssertEqual(mkfifo(path + "-shm", 0o644), 0)
        let error = try XCTUnwrap(thrownError(StoreError.self) { try Database(path: path, mode: .readOnly, hardened: true) })
        XCTAssertTrue(error.message.contains("wal.sqlite-shm is a FIFO (named pipe), not SQLite's -shm file"), error.message)
        try FileManager.default.removeItem(atPath: path + "-shm")
        try FileManager.default.createDirectory(atPath: path + "-journal", withIntermediateDirectories: false)
        XCTAssertTrue(try XCTUnwrap(thrownError(StoreError.self) { try Database(path: path, mode: .readOnly) }).message.contains("is a folder"))
    }
}
