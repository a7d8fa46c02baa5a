import Foundation
import XCTest
import ETLStore
import ETLTestSupport

/// `Platform.subfolders(of:)` lists what `FileManager.fileExists(atPath:isDirectory:)` called
/// a folder (a link to one too) from the entry types alone, without a stat of each file.
final class SubfoldersTests: XCTestCase {
    func testFoldersAndLinksToFoldersAreListedAndNothingElse() throws {
        let folder = try TemporaryFolder(prefix: "etl-subfolders")
        let fm = FileManager.default
        for name in ["a.xcmappingmodel", "archive", "archive/deeper"] {
            try fm.createDirectory(atPath: folder.path(name), withIntermediateDirectories: true)
        }
        for name in ["store.sqlite", "store.sqlite-wal", "pipeline.json"] {
            XCTAssertTrue(fm.createFile(atPath: folder.path(name), contents: Data("x".utf8)))
        }
        try fm.createSymbolicLink(atPath: folder.path("linked-folder"), withDestinationPath: folder.path("archive"))
        try fm.createSymbolicLink(atPath: folder.path("linked-file"), withDestinationPath: folder.path("store.sqlite"))
        try fm.createSymbolicLink(atPath: folder.path("dangling"), withDestinationPath: folder.path("nothing"))

        XCTAssertEqual(Platform.subfolders(of: folder.url.path)?.sorted(), ["a.xcmappingmodel", "archive", "linked-folder"])
        XCTAssertEqual(Platform.subfolders(of: folder.path("archive")), ["deeper"])
        XCTAssertNil(Platform.subfolders(of: folder.path("missing")))
        XCTAssertNil(Platform.subfolders(of: folder.path("store.sqlite")))
    }
}
