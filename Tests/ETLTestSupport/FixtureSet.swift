import Foundation
import XCTest

/// The real stores in `../shared/fixtures` beside the repository, for every test target.
///
/// Tests never open a file in shared/, not even read-only: `copy` puts a private, writable
/// copy in a folder of the test's. When the fixture set is missing (a user's clone has no
/// `../shared`) the test is skipped with a message naming the path, or fails when the
/// environment sets `ETL_REQUIRE_FIXTURES=1`, as `.ci/run` does.
public enum FixtureSet {
    /// `<repository>/../shared/fixtures`: this file is `<repository>/Tests/ETLTestSupport/FixtureSet.swift`.
    public static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("../shared/fixtures", isDirectory: true).standardizedFileURL

    public struct Missing: Error, CustomStringConvertible {
        public var path: String
        public var description: String { "missing \(path): these tests need the shared fixtures beside the repository" }
    }

    /// Copies `relativePath` (below `shared/fixtures`: a file or a folder) into `folder` and
    /// returns the writable copy.
    public static func copy(_ relativePath: String, into folder: URL, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        let set = relativePath.split(separator: "/").first.map(String.init) ?? relativePath
        let setFolder = root.appendingPathComponent(set, isDirectory: true)
        var isDirectory: ObjCBool = false
        if !FileManager.default.fileExists(atPath: setFolder.path, isDirectory: &isDirectory) || !isDirectory.boolValue {
            let missing = Missing(path: setFolder.path)
            if ProcessInfo.processInfo.environment["ETL_REQUIRE_FIXTURES"] == "1" {
                XCTFail("ETL_REQUIRE_FIXTURES=1 but \(missing)", file: file, line: line)
                throw missing
            }
            throw XCTSkip("\(missing)", file: file, line: line)
        }
        let source = root.appendingPathComponent(relativePath)
        let copy = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: source, to: copy)
        // The originals are read-only; the copy is ours, and writable (and removable).
        try makeWritable(copy)
        return copy
    }

    private static func makeWritable(_ url: URL) throws {
        let fm = FileManager.default
        var isDirectory: ObjCBool = false
        _ = fm.fileExists(atPath: url.path, isDirectory: &isDirectory)
        try fm.setAttributes([.posixPermissions: isDirectory.boolValue ? 0o755 : 0o644], ofItemAtPath: url.path)
        if isDirectory.boolValue {
            for name in try fm.contentsOfDirectory(atPath: url.path) {
                try makeWritable(url.appendingPathComponent(name))
            }
        }
    }
}
