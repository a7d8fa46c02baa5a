import Foundation
import XCTest
import ETLStore
import ETLTestSupport

/// `FileStatus` gives what `FileManager.attributesOfItem` gave: the same size and the very
/// same modification time (a checkpoint compares the source's with `==`).
final class FileStatusTests: XCTestCase {
    func testSizeAndTimeAreFoundationsToTheBit() throws {
        let folder = try TemporaryFolder(prefix: "etl-file-status")
        let path = folder.url.appendingPathComponent("store").path
        var generator = SplitMix64(seed: 44)
        for round in 0..<200 {
            try Data(repeating: 7, count: generator.below(10_000)).write(to: URL(fileURLWithPath: path))
            let time = timespec(tv_sec: round == 0 ? 0 : 946_684_800 + generator.below(2_000_000_000), tv_nsec: generator.below(1_000_000_000))
            var times = [time, time]
            XCTAssertEqual(utimensat(AT_FDCWD, path, &times, 0), 0)
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let status = try XCTUnwrap(FileStatus.of(path))
            XCTAssertEqual(status.size, (attributes[.size] as? NSNumber)?.int64Value)
            let modified = try XCTUnwrap((attributes[.modificationDate] as? Date)?.timeIntervalSince1970)
            XCTAssertEqual(status.modified.bitPattern, modified.bitPattern, "\(times[1])")
        }
    }

    func testAMissingFileHasNoneAndALinkIsItself() throws {
        let folder = try TemporaryFolder(prefix: "etl-file-status")
        let missing = folder.url.appendingPathComponent("missing").path
        XCTAssertNil(FileStatus.of(missing))
        XCTAssertEqual(FileStatus.size(of: missing), 0)
        let target = folder.url.appendingPathComponent("target").path
        try Data(count: 5000).write(to: URL(fileURLWithPath: target))
        let link = folder.url.appendingPathComponent("link").path
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: target)
        XCTAssertEqual(FileStatus.size(of: target), 5000)
        XCTAssertEqual(FileStatus.size(of: link), (try FileManager.default.attributesOfItem(atPath: link)[.size] as? NSNumber)?.int64Value)
        XCTAssertNotEqual(FileStatus.size(of: link), 5000)
    }
}
