import Foundation
import XCTest

/// A fresh folder for one test, removed when the last reference goes (a test case sets it
/// up in `setUp` and drops it in `tearDown`).
public final class TemporaryFolder {
    public let url: URL

    public init(prefix: String = "etl-test") throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    /// A folder removed when `test` ends, for helpers that have no test case property to keep it in.
    public static func forTest(_ test: XCTestCase, prefix: String = "etl-test") throws -> URL {
        let folder = try TemporaryFolder(prefix: prefix)
        // Removed in the block itself: XCTest keeps a test case (and so its teardown
        // blocks) until the whole run ends, so waiting for `deinit` left every folder behind.
        test.addTeardownBlock { folder.remove() }
        return folder.url
    }

    deinit { remove() }

    public func remove() { try? FileManager.default.removeItem(at: url) }

    public var path: String { url.path }

    public func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Files in the folder, sorted.
    public func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// Writes a pipeline whose `MODELS/` paths lead to the repository's books models.
    public func pipeline(_ name: String, _ json: String) throws -> String {
        let text = json.replacingOccurrences(of: "MODELS/", with: repositoryPath("pipelines/models") + "/")
        let path = self.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// A file's bytes.
public func bytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}
