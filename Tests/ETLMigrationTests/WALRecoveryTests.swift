import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import ETLTestSupport

/// Given DuckDuckGo's Bookmarks V1 store, whose 10 bookmarks are in its `-wal` (4 frames,
/// commits in frames 1 and 4), when the `-wal` is rewritten so that every checksum still
/// holds but SQLite's recovery would stop short of what it holds (a page number of 0, a
/// page beyond the store's size, salts other than the header's), then the store is
/// refused, naming the frame, where SQLite alone reads fewer bookmarks without a word.
final class WALRecoveryTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static let pageSize = 4096

    /// Offset of frame `frame`'s header (frames count from 1).
    func frame(_ frame: Int) -> Int { 32 + (frame - 1) * (24 + Self.pageSize) }

    /// Runs the bookmarks migration after `change` (checksums recomputed); the refusal, if any.
    func run(_ change: (inout [UInt8]) -> Void) throws -> String? {
        let bookmarks = folder.url.appendingPathComponent("bookmarks")
        for name in ["Bookmarks_V1.sqlite", "Bookmarks_V1.sqlite-wal", "BookmarksModel.xcdatamodeld"] {
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/\(name)", into: bookmarks)
        }
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path
        var wal = [UInt8](try bytes(store + "-wal"))
        change(&wal)
        WALFrames.resum(&wal)
        try Data(wal).write(to: URL(fileURLWithPath: store + "-wal"))
        let before = try [bytes(store), bytes(store + "-wal")]
        let pipeline = try folder.pipeline("bookmarks.json", """
            { "format": 1, "models": "\(bookmarks.path)/BookmarksModel.xcdatamodeld", "drop": ["BookmarkEntity.isFavorite"],
              "source": { "store": "\(store)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata" } }
            """)
        var refusal: String?
        do { _ = try Migration(pipeline: pipeline).run() } catch { refusal = "\(error)" }
        XCTAssertEqual(try [bytes(store), bytes(store + "-wal")], before, "neither file changed")
        if refusal != nil { XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite"))) }
        return refusal
    }

    func put(_ value: UInt32, at offset: Int, in wal: inout [UInt8]) {
        for i in 0..<4 { wal[offset + i] = UInt8(truncatingIfNeeded: value >> (24 - 8 * i)) }
    }

    func testRecomputedChecksumsAloneChangeNothing() throws {
        XCTAssertNil(try run { _ in })
        XCTAssertEqual(try Database(path: folder.path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10)
    }

    func testAFrameOfPageZeroIsRefused() throws {
        let error = try XCTUnwrap(try run { put(0, at: frame(2), in: &$0) })
        for part in ["Bookmarks_V1.sqlite-wal", "frame 2", "page number 0", "after the commit in frame 1"] {
            XCTAssertTrue(error.contains(part), "\(error)\n  lacks: \(part)")
        }
    }

    func testAFrameOfAPageBeyondTheStoreIsRefused() throws {
        let error = try XCTUnwrap(try run { put(UInt32(1 << 31) - 1, at: frame(2), in: &$0) })
        for part in ["frame 2 gives page 2147483647", "beyond the store's", "the commit in frame 4"] {
            XCTAssertTrue(error.contains(part), "\(error)\n  lacks: \(part)")
        }
    }

    func testHeaderSaltsNoFrameHasAreRefused() throws {
        let error = try XCTUnwrap(try run { wal in wal[19] ^= 0x40 })
        XCTAssertTrue(error.contains("frame 1's salts are not the WAL header's, so SQLite would read no frame of it"), error)
    }

    func testALaterFrameOfNoEarlierGenerationIsRefused() throws {
        // Frame 3's first salt one above the header's: no generation before it ever had it.
        let error = try XCTUnwrap(try run { wal in
            let at = frame(3) + 8
            let salt = wal[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } &+ 1
            for i in 0..<4 { wal[at + i] = UInt8(truncatingIfNeeded: salt >> (24 - 8 * i)) }
        })
        XCTAssertTrue(error.contains("frame 3 (page"), error)
        XCTAssertTrue(error.contains("salts of no earlier generation"), error)
    }

    func testFramesOfAnEarlierGenerationAfterTheLastCommitAreWhereTheLogEnds() throws {
        // A frame after the last commit, left from the log's previous generation (first salt one less).
        XCTAssertNil(try run { wal in
            var old = Array(wal[frame(4)..<frame(5)])
            let salt = wal[16..<20].reduce(UInt32(0)) { $0 << 8 | UInt32($1) } &- 1
            for i in 0..<4 { old[8 + i] = UInt8(truncatingIfNeeded: salt >> (24 - 8 * i)) }
            old[4..<8] = [0, 0, 0, 0]
            wal += old
        })
        XCTAssertEqual(try Database(path: folder.path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10)
    }
}
