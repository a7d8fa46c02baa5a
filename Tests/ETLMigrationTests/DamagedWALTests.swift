import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// Given DuckDuckGo's Bookmarks V1 store, whose 10 bookmarks are in its `-wal` (4 frames,
/// commits in frames 1 and 4), when one byte of a frame is flipped, then the store is
/// refused before a row is read, naming the `-wal` and the frame (SQLite alone reads it as
/// less data: 0 bookmarks, no error), and neither file changes; intact, all 10 arrive.
final class DamagedWALTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func run(flippingByteAt offset: Int?) throws -> (error: String?, files: [Data], after: [Data]) {
        let bookmarks = folder.url.appendingPathComponent("bookmarks")
        for name in ["Bookmarks_V1.sqlite", "Bookmarks_V1.sqlite-wal", "BookmarksModel.xcdatamodeld"] {
            _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/\(name)", into: bookmarks)
        }
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path
        if let offset {
            var wal = try bytes(store + "-wal")
            wal[offset] ^= 0x01
            try wal.write(to: URL(fileURLWithPath: store + "-wal"))
        }
        let files = try [bytes(store), bytes(store + "-wal")]
        let pipeline = try folder.pipeline("bookmarks.json", """
            { "format": 1, "models": "\(bookmarks.path)/BookmarksModel.xcdatamodeld", "drop": ["BookmarkEntity.isFavorite"],
              "source": { "store": "\(store)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata" } }
            """)
        var refusal: String?
        do { _ = try Migration(pipeline: pipeline).run() } catch { refusal = "\(error)" }
        return (refusal, files, try [bytes(store), bytes(store + "-wal")])
    }

    /// The offset of byte `index` of frame `frame`'s page (frames count from 1).
    func page(_ frame: Int, byte index: Int) -> Int { 32 + (frame - 1) * (24 + 4096) + 24 + index }

    func testAnIntactWALGivesEveryBookmark() throws {
        let result = try run(flippingByteAt: nil)
        XCTAssertNil(result.error)
        XCTAssertEqual(try Database(path: folder.path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOKMARKENTITY"), 10)
    }

    func testAFlippedByteInTheFirstFrameIsRefused() throws {
        let result = try run(flippingByteAt: page(1, byte: 100))
        XCTAssertEqual(result.after, result.files, "neither file changed")
        let error = try XCTUnwrap(result.error)
        for part in ["Bookmarks_V1.sqlite-wal", "has a damaged -wal", "frame 1", "before any commit", "fails its checksum", "Nothing was read"] {
            XCTAssertTrue(error.contains(part), "\(error)\n  does not contain: \(part)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testAFlippedByteAfterTheFirstCommitIsRefused() throws {
        for frame in [2, 4] {
            try setUpWithError()
            let result = try run(flippingByteAt: page(frame, byte: 4000))
            let error = try XCTUnwrap(result.error, "frame \(frame)")
            XCTAssertTrue(error.contains("frame \(frame) (page"), error)
            XCTAssertTrue(error.contains("after the commit in frame 1"), error)
        }
    }

    func testAFlippedFrameHeaderByteIsRefused() throws {
        // The frame's page number: covered by the checksum.
        let result = try run(flippingByteAt: 32 + 3)
        XCTAssertTrue(result.error?.contains("frame 1") ?? false, result.error ?? "not refused")
    }
}
