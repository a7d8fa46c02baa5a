import Foundation
import XCTest
import ETL
import ETLTestSupport
@testable import ETLBatch

/// The manifest's store lines, written by hand (`BatchManifestEntryJSON`), are the bytes
/// `JSONEncoder` wrote: older and newer etl read each other's manifests, and tests read them.
final class BatchManifestEntryJSONTests: XCTestCase {
    private func encoded(_ entry: BatchStoreResult) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return Array(try encoder.encode(BatchManifest.Line(batch: nil, store: entry)))
    }

    private func identity(_ seed: Int64, content: String?) -> BatchSourceIdentity {
        var identity = BatchSourceIdentity(device: UInt64.max - UInt64(seed), inode: 7, size: seed * 4096, modified: 1_765_000_000_123_456_789 + seed,
                                           firstPage: "00ff12ab", lastPage: "\(seed)", walSize: seed == 0 ? nil : 32, walModified: seed == 0 ? nil : -1)
        identity.content = content
        return identity
    }

    /// Every field set: a field added to the entry without the writer knowing it fails here.
    private func fullEntry() -> BatchStoreResult {
        var entry = BatchStoreResult(store: BatchStore(path: "/archive/a/b.sqlite", relativePath: "a/b.sqlite"), status: .done, output: "/out/a/b.sqlite")
        entry.fromVersion = "1"
        entry.toVersion = "BookmarksModel 6"
        entry.rows = ["Book": 50, "Author": 12, "author": 3, "Zeta": 0, "Äpfel": 1, "10": 2, "9": 3]
        entry.dropped = ["v1 → v2: Book.isbn": 4]
        entry.rejected = 2
        entry.nulled = 0
        entry.seconds = 0.012345678901234
        var cost = BatchStoreCost()
        cost.open = 0.001
        cost.plan = 1e-7
        cost.check = 3
        cost.copy = 0.1 + 0.2
        cost.validate = 123456789.125
        cost.rename = .leastNonzeroMagnitude
        entry.cost = cost
        entry.error = "it failed: \"quoted\" \\ back/slash\n\t\r\u{8}\u{c}\u{0}\u{1f}\u{7f} é 🙂"
        entry.backup = "/archive/a/b.sqlite.etl-backup"
        entry.notes = ["one", "", "tab\there", "a/b"]
        entry.time = 1_765_067_016.4832649
        entry.outputExisted = false
        entry.source = identity(1, content: "abc+def")
        entry.inputs = "0123456789abcdef"
        entry.result = identity(0, content: nil)
        entry.stale = ["the pipeline", "model \"6\""]
        return entry
    }

    func testAnEntryWithEveryFieldIsWrittenAsJSONEncoderWritesIt() throws {
        let entry = fullEntry()
        XCTAssertEqual(Mirror(reflecting: entry).children.count, 21, "a field was added: write it in BatchManifestEntryJSON, then count it here")
        XCTAssertEqual(Mirror(reflecting: entry.source!).children.count, 9, "a field was added: write it in BatchManifestEntryJSON, then count it here")
        XCTAssertEqual(Mirror(reflecting: entry.cost!).children.count, 6, "a field was added: write it in BatchManifestEntryJSON, then count it here")
        XCTAssertEqual(BatchManifestEntryJSON.line(entry), try encoded(entry))
    }

    func testEntriesOfEveryStatusAndFewFieldsAreWrittenAsJSONEncoderWritesThem() throws {
        for status in BatchStatus.allCases {
            var entry = BatchStoreResult(store: BatchStore(path: "/s/x.sqlite", relativePath: "x.sqlite"), status: status)
            XCTAssertEqual(BatchManifestEntryJSON.line(entry), try encoded(entry))
            entry.outputExisted = true
            entry.seconds = 2
            entry.time = 0
            XCTAssertEqual(BatchManifestEntryJSON.line(entry), try encoded(entry))
        }
    }

    /// Random texts of awkward characters and random numbers, as the encoder writes them.
    func testRandomTextsAndNumbersAreWrittenAsJSONEncoderWritesThem() throws {
        var generator = SplitMix64(seed: 44)
        let pieces = ["\"", "\\", "/", "\n", "\u{0}", "\u{1}", "\u{1b}", "\u{7f}", "a", "Z", "é", "\u{301}", "🙂", " ", "1", "10"]
        func text() -> String { (0..<generator.below(6)).map { _ in pieces[generator.below(pieces.count)] }.joined() }
        func number() -> Double {
            switch generator.below(4) {
            case 0: return Double(generator.below(1_000_000))
            case 1: return Double(bitPattern: generator.next() & 0x7FEF_FFFF_FFFF_FFFF)
            case 2: return Double(generator.next() % 10_000_000_000) / 1_000_000
            default: return Double(generator.below(1000)) * 1e-9
            }
        }
        for _ in 0..<300 {
            var entry = BatchStoreResult(store: BatchStore(path: text(), relativePath: text()), status: .failed, output: text())
            entry.rows = Dictionary((0..<generator.below(5)).map { _ in (text(), generator.below(1 << 40)) }, uniquingKeysWith: { a, _ in a })
            entry.notes = (0..<generator.below(3)).map { _ in text() }
            entry.error = text()
            entry.seconds = number()
            entry.time = number()
            var cost = BatchStoreCost()
            cost.copy = number()
            entry.cost = cost
            XCTAssertEqual(BatchManifestEntryJSON.line(entry), try encoded(entry), "\(entry)")
        }
    }

    func testANumberThatIsNotFiniteIsLeftToJSONEncoder() {
        var entry = BatchStoreResult(store: BatchStore(path: "/s/x.sqlite", relativePath: "x.sqlite"), status: .done)
        entry.seconds = .nan
        XCTAssertNil(BatchManifestEntryJSON.line(entry))
        XCTAssertThrowsError(try encoded(entry))
    }
}
