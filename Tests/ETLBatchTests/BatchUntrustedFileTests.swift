import Foundation
import XCTest
import ETL
import ETLExpression
import ETLTestSupport
@testable import ETLBatch

/// Issue 45's batch cases: a manifest over its bounds is refused, not loaded (the
/// "manifest bomb"); a symlinked folder of the archive is followed, never skipped silently.
final class BatchUntrustedFileTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder(prefix: "etl-batch-untrusted") }
    override func tearDown() { folder = nil }

    private func frame(_ line: String) throws -> [UInt8] { try Zstd.compress(Array((line + "\n").utf8)) }

    private func doneEntry(_ name: String, note: String) throws -> String {
        var result = BatchStoreResult(store: BatchStore(path: "/archive/" + name, relativePath: name), status: .done)
        result.notes = [note]
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(result), as: UTF8.self)
        return "{\"store\":\(json)}"
    }

    /// The reproduction, scaled down: well-formed frames, each a "done" entry with a 15 MiB
    /// note (compressing to a few hundred bytes). Refused at the first, with a message;
    /// nothing of it kept in memory. Under the bounds, the same file reads.
    func testAManifestBombIsRefusedNotLoaded() throws {
        let path = folder.path("bomb.jsonl.zst")
        var bytes = try frame("{\"batch\":{\"created\":0,\"output\":\"out /out\",\"pipeline\":\"/p.json\",\"shard\":\"all\"}}")
        let note = String(repeating: "A", count: 15 << 20)
        for i in 0..<8 { bytes += try frame(try doneEntry("s\(i).sqlite", note: note)) }
        XCTAssertLessThan(bytes.count, 64 << 10, "the bomb is small on disk")
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try BatchManifest.read(path: path)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.contains("is refused, not loaded"), message)
            XCTAssertTrue(message.contains("larger than 256 KiB"), message)
            XCTAssertTrue(message.contains("--restart"), message)
        }
        // A batch over it stops before any store, saying so; --restart starts over.
        let header = BatchManifest.Header(pipeline: "/p.json", output: "out /out", shard: "all")
        XCTAssertThrowsError(try BatchManifest(path: path, header: header, restart: false)) { error in
            XCTAssertTrue(error is BatchUsageError, "\(error)")
        }
        XCTAssertTrue(try BatchManifest(path: path, header: header, restart: true).contents.entries.isEmpty)

        // Notes within a line's bound but over a note's (a planted 100 KiB note): refused too.
        var planted = try frame("{\"batch\":{\"created\":0,\"output\":\"out /out\",\"pipeline\":\"/p.json\",\"shard\":\"all\"}}")
        planted += try frame(try doneEntry("a.sqlite", note: String(repeating: "B", count: 100 << 10)))
        try Data(planted).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try BatchManifest.read(path: path)) { error in
            XCTAssertTrue("\(error)".contains("a note of 102400 bytes"), "\(error)")
        }
    }

    /// What a batch writes, it reads back: a store's long error and many notes are cut to
    /// the bounds when appended, saying so.
    func testEntriesAreWrittenWithinTheBounds() throws {
        let path = folder.path("m.jsonl.zst")
        let manifest = try BatchManifest(path: path, header: BatchManifest.Header(pipeline: "/p.json", output: "out /out", shard: "all"), restart: false)
        var result = BatchStoreResult(store: BatchStore(path: "/archive/a.sqlite", relativePath: "a.sqlite"), status: .failed)
        result.error = String(repeating: "é", count: 10_000)
        result.notes = (0..<200).map { "note \($0)" }
        try manifest.append(result)
        let read = try XCTUnwrap(try BatchManifest.read(path: path).latest["/archive/a.sqlite"])
        XCTAssertLessThanOrEqual(read.error?.utf8.count ?? 0, BatchManifest.Bounds.note)
        XCTAssertTrue(read.error?.hasSuffix("(cut)") ?? false)
        XCTAssertTrue(read.error?.hasPrefix("éé") ?? false)
        XCTAssertEqual(read.notes.count, BatchManifest.Bounds.notes)
        XCTAssertEqual(read.notes.last, "… and 137 more notes")
    }

    /// `archive/2019 → ../disk2/2019`: its stores are found under the link's path; a link
    /// back up (a loop) is not walked again, and said so.
    func testASymlinkedFolderIsFollowedAndALoopIsReported() throws {
        let fm = FileManager.default
        try fm.createDirectory(atPath: folder.path("archive/2020"), withIntermediateDirectories: true)
        try fm.createDirectory(atPath: folder.path("disk2/2019"), withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: folder.path("archive/2020/a.sqlite")))
        try Data("b".utf8).write(to: URL(fileURLWithPath: folder.path("disk2/2019/b.sqlite")))
        try fm.createSymbolicLink(atPath: folder.path("archive/2019"), withDestinationPath: "../disk2/2019")
        try fm.createSymbolicLink(atPath: folder.path("archive/2020/loop"), withDestinationPath: "..")

        let list = try BatchStoreList.find(folder.path("archive"))
        XCTAssertEqual(list.stores.map(\.relativePath), ["2019/b.sqlite", "2020/a.sqlite"])
        XCTAssertEqual(list.notWalked.count, 1, "\(list.notWalked)")
        XCTAssertTrue(list.notWalked.first?.hasPrefix("2020/loop: a link to the folder") ?? false, "\(list.notWalked)")
        let glob = try BatchStoreList.find(folder.path("archive") + "/**/*.sqlite")
        XCTAssertEqual(glob.stores.map(\.relativePath), ["2019/b.sqlite", "2020/a.sqlite"])
    }
}
