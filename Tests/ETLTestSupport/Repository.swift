import Foundation

/// The repository's root, found from this file's path
/// (`<repository>/Tests/ETLTestSupport/Repository.swift`).
public let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

/// A path below the repository's root, e.g. `repositoryPath("pipelines/books.json")`.
public func repositoryPath(_ relative: String) -> String {
    repositoryRoot.appendingPathComponent(relative).path
}
