import Foundation
import XCTest
import ETLStore
import ETLModel

/// The shared fixtures beside the repository (`../shared/fixtures` from the package root),
/// as in ETLStoreTests (test targets cannot share code).
///
/// Tests never open a file in shared/ itself: `copy` puts a private, writable copy (a file
/// or a whole folder) in a fresh temporary folder, removed when the test ends.
enum SharedFixtures {
    static var root: URL {
        PackageFiles.root.appendingPathComponent("../shared/fixtures", isDirectory: true).standardizedFileURL
    }

    static let chainVersions = ["v1.0.0", "v1.1.0", "v1.1.2", "v1.2.0", "v2.0.0"]

    struct Missing: Error, CustomStringConvertible {
        var path: String
        var description: String { "missing \(path): these tests need the shared fixtures beside the repository" }
    }

    /// Copies `relativePath` (below `shared/fixtures`) into a new temporary folder and returns
    /// the copy. When the fixture set is missing the test is skipped, or fails when the
    /// environment sets `ETL_REQUIRE_FIXTURES=1`.
    static func copy(_ relativePath: String, for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
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
        let folder = try temporaryFolder(for: test)
        let copy = folder.appendingPathComponent(source.lastPathComponent)
        try FileManager.default.copyItem(at: source, to: copy)
        // The originals are read-only; the copy is ours, and writable (and removable).
        try makeWritable(copy)
        return copy
    }

    /// A store of the rename chain ("v1.0.0" …), copied.
    static func store(_ version: String, for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try copy("coredata-rename-chain/Example_\(version).sqlite", for: test, file: file, line: line)
    }

    /// The rename chain's `Model.xcdatamodeld`, copied and imported.
    static func bundle(for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> ModelBundle {
        try ModelBundle.load(path: copy("coredata-rename-chain/Model.xcdatamodeld", for: test, file: file, line: line).path)
    }

    /// A fresh temporary folder, removed after the test.
    static func temporaryFolder(for test: XCTestCase) throws -> URL {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("etl-coredata-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        test.addTeardownBlock { try? FileManager.default.removeItem(at: folder) }
        return folder
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

extension SQLValue {
    var text: String? { if case .text(let s) = self { return s } else { return nil } }
    var int: Int64? { if case .integer(let n) = self { return n } else { return nil } }
}

extension Database {
    /// The column names of a table, upper-cased.
    func columnNames(_ table: String) throws -> [String] {
        try self.table(named: table)?.columns.map { $0.name.uppercased() } ?? []
    }

    func tableNames() throws -> [String] {
        try tables().map(\.name)
    }
}
