import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// Links planted in or at a store's external storage, or at the destination's support
/// folder: never followed. A canary file outside the test's folder is neither read into
/// the destination nor linked there (its link count and inode are compared).
extension ExternalStorageTests {
    /// A canary outside the test's folder, kept alive by the test.
    func canary() throws -> (folder: TemporaryFolder, path: String, inode: UInt64) {
        let outside = try TemporaryFolder(prefix: "etl-canary")
        let path = outside.path("canary")
        try Data("CANARY: nothing outside the store may be read".utf8).write(to: URL(fileURLWithPath: path))
        return (outside, path, try inode(path))
    }

    func inode(_ path: String) throws -> UInt64 {
        var info = stat()
        guard lstat(path, &info) == 0 else { throw CocoaError(.fileNoSuchFile) }
        return UInt64(info.st_ino)
    }

    func linkCount(_ path: String) -> Int {
        var info = stat()
        return lstat(path, &info) == 0 ? Int(info.st_nlink) : -1
    }

    /// No file under the test's folder is the canary or holds its bytes; the canary has its one link.
    func assertCanaryUntouched(_ canary: (folder: TemporaryFolder, path: String, inode: UInt64), line: UInt = #line) throws {
        XCTAssertEqual(linkCount(canary.path), 1, "the canary was hard-linked", line: line)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: canary.path))
        for case let name as String in FileManager.default.enumerator(atPath: folder.path)! {
            let path = folder.path(name)
            var info = stat()
            guard lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { continue }
            XCTAssertNotEqual(UInt64(info.st_ino), canary.inode, "\(name) is the canary", line: line)
            let contents = try Data(contentsOf: URL(fileURLWithPath: path))
            XCTAssertNil(contents.range(of: bytes), "\(name) holds the canary's bytes", line: line)
        }
    }

    func tolerantPipeline() throws -> String {
        try folder.pipeline("photos-tolerant.json", """
            { "format": 1, "models": "Photos.xcdatamodeld", "options": { "maxRejects": 10 },
              "source": { "store": "photos.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" } }
            """)
    }

    func testASymlinkInsideExternalDataIsRejectedNotFollowed() throws {
        _ = try writeStore()
        let canary = try canary()
        let planted = ExternalBinaryStorage.folder(ofStore: folder.path("photos.sqlite")) + "/" + external1
        try FileManager.default.removeItem(atPath: planted)
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: canary.path)
        let summary = try Migration(pipeline: try tolerantPipeline()).run()
        let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
        XCTAssertEqual(rejects.map(\.key), [2], "row 4's marker, whose file is missing, is carried as it is")
        XCTAssertTrue(rejects[0].error.contains("\(planted) is a symbolic link; etl never follows one"), rejects[0].error)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: ExternalBinaryStorage.folder(ofStore: folder.path("out.sqlite")) + "/" + external2)),
                       Data(photos[3]!), "the other file arrives")
        XCTAssertFalse(FileManager.default.fileExists(atPath: ExternalBinaryStorage.folder(ofStore: folder.path("out.sqlite")) + "/" + external1))
        try assertCanaryUntouched(canary)
        // inspect reports it, and counts only the regular file.
        let report = try StoreInspection.inspect(path: folder.path("photos.sqlite"), bundle: folder.path("Photos.xcdatamodeld"))
        XCTAssertEqual(report.externalFiles, 1)
        XCTAssertTrue(report.missingExternalFiles.contains { $0.hasPrefix("Photo row 2:") && $0.contains("symbolic link") }, "\(report.missingExternalFiles)")
    }

    func testExternalDataItselfASymlinkIsRefusedNotFollowed() throws {
        _ = try writeStore()
        let canary = try canary()
        // The outside folder holds files named as the store's markers name them.
        try FileManager.default.copyItem(atPath: canary.path, toPath: canary.folder.path(external1))
        let outsideCopy = canary.folder.path(external1)
        let copyInode = try inode(outsideCopy)
        let planted = ExternalBinaryStorage.folder(ofStore: folder.path("photos.sqlite"))
        try FileManager.default.removeItem(atPath: planted)
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: canary.folder.path)
        let summary = try Migration(pipeline: try tolerantPipeline()).run()
        let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile))
        XCTAssertEqual(rejects.map(\.key), [2, 3, 4])
        XCTAssertTrue(rejects[0].error.contains("\(planted) is a symbolic link"), rejects[0].error)
        XCTAssertEqual(linkCount(outsideCopy), 1, "the outside file was hard-linked")
        XCTAssertEqual(try inode(outsideCopy), copyInode)
        try assertCanaryUntouched(canary)
    }

    func testASymlinkPlantedAtTheDestinationsSupportFolderIsRefused() throws {
        _ = try writeStore()
        let canary = try canary()
        let planted = ExternalBinaryStorage.supportFolder(ofStore: folder.path("out.sqlite"))
        try FileManager.default.createSymbolicLink(atPath: planted, withDestinationPath: canary.folder.path)
        XCTAssertThrowsError(try Migration(pipeline: try tolerantPipeline()).run()) { error in
            XCTAssertTrue("\(error)".contains("\(planted) is a symbolic link"), "\(error)")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: canary.folder.path), ["canary"], "nothing written through the link")
        try assertCanaryUntouched(canary)
    }

    /// A file larger than a value may hold (sparse: no disk used) is never read: passed
    /// through unchanged, its marker is copied and the file linked; read by an expression,
    /// the row is rejected naming the file and its size.
    func testAnExternalFileBeyondTheValueLimitIsPassedThroughUnreadOrRejectedByNameAndSize() throws {
        _ = try writeStore()
        let big = ExternalBinaryStorage.folder(ofStore: folder.path("photos.sqlite")) + "/" + external1
        let size = ExternalBinaryStorage.maximumBytes + 1
        XCTAssertEqual(truncate(big, off_t(size)), 0)
        let copied = try Migration(pipeline: try tolerantPipeline()).run()
        XCTAssertNil(copied.rejectFile, "passed through: the big file is linked, and row 4's marker without its file carried")
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT ZDATA FROM ZPHOTO WHERE Z_PK = 2"), [[.blob([0x02] + Array(external1.utf8))]])
        let arrived = ExternalBinaryStorage.folder(ofStore: folder.path("out.sqlite")) + "/" + external1
        XCTAssertEqual(try inode(arrived), try inode(big), "linked, not copied")
        out.close()

        try FileManager.default.removeItem(atPath: folder.path("out.sqlite"))
        try FileManager.default.removeItem(atPath: ExternalBinaryStorage.supportFolder(ofStore: folder.path("out.sqlite")))
        let measured = try Migration(pipeline: try folder.pipeline("photos-measured.json", """
            { "format": 1, "models": "Photos.xcdatamodeld", "options": { "maxRejects": 10 },
              "source": { "store": "photos.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" },
              "steps": [ { "from": "v1", "to": "v2", "mappings": [ { "source": "Photo", "destination": "Photo",
                "attributes": { "name": "$source.name", "data": "$source.data", "size": "length($source.data)" } } ] } ] }
            """)).run()
        let rejects = try RejectFile.read(XCTUnwrap(measured.rejectFile))
        XCTAssertEqual(rejects.map(\.key), [2, 4])
        XCTAssertEqual(rejects.first?.expression, "$source.data")
        XCTAssertTrue(rejects[0].error.contains("\(big) is \(size) bytes, more than the \(ExternalBinaryStorage.maximumBytes) a value may hold"), rejects[0].error)
    }
}
