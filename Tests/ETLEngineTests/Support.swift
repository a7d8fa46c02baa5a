import Foundation
import XCTest
import ETLStore
import ETL

/// The repository's root, found from this file's path.
let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

func repositoryPath(_ relative: String) -> String {
    repositoryRoot.appendingPathComponent(relative).path
}

/// A fresh folder, removed when the test ends.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("etl-test-" + UUID().uuidString)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Files in the folder, sorted.
    func files() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }

    /// Writes a pipeline whose models are the repository's books models.
    func pipeline(_ name: String, _ json: String) throws -> String {
        let text = json.replacingOccurrences(of: "MODELS/", with: repositoryPath("pipelines/models") + "/")
        let path = self.path(name)
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

func bytes(_ path: String) throws -> Data {
    try Data(contentsOf: URL(fileURLWithPath: path))
}

/// Every table of a store, each ordered by all its columns: equal dumps, equal stores.
func storeDump(_ path: String) throws -> String {
    let db = try Database(path: path, mode: .readOnly)
    var out = ""
    for table in try db.tables() {
        let columns = table.columns.map { Database.quote($0.name) }
        out += "## \(table.name)(\(columns.joined(separator: ",")))\n"
        for row in try db.rows("SELECT * FROM \(Database.quote(table.name)) ORDER BY " + (1...columns.count).map(String.init).joined(separator: ",")) {
            out += row.map(\.sqlLiteral).joined(separator: "|") + "\n"
        }
    }
    return out
}

/// Asserts two stores hold the same rows, naming the first line that differs (not the whole dump).
func assertSameStore(_ a: String, _ b: String, file: StaticString = #filePath, line: UInt = #line) throws {
    let left = try storeDump(a).split(separator: "\n", omittingEmptySubsequences: false)
    let right = try storeDump(b).split(separator: "\n", omittingEmptySubsequences: false)
    XCTAssertGreaterThan(left.count, 10, "an empty store proves nothing", file: file, line: line)
    if let index = left.indices.first(where: { $0 < right.count && left[$0] != right[$0] }) {
        XCTFail("stores differ at dump line \(index + 1): \(left[index]) ≠ \(right[index])", file: file, line: line)
    } else if left.count != right.count {
        XCTFail("stores differ in length: \(left.count) vs \(right.count) dump lines", file: file, line: line)
    }
}

/// Runs the repository's books pipeline from `source` into `destination`.
@discardableResult
func migrateBooks(source: String, destination: String, chunkSize: Int? = nil, workers: Int? = nil,
                  replace: ReplacePolicy = .refuse, pipeline: String = repositoryPath("pipelines/books.json")) throws -> RunSummary {
    var migration = Migration(pipeline: pipeline)
    migration.source = source
    migration.destination = destination
    migration.chunkSize = chunkSize
    migration.workers = workers
    migration.replace = replace
    return try migration.run()
}

/// Asserts that `body` throws a `MigrationError` whose description contains every string.
func assertMigrationError(_ body: @autoclosure () throws -> Any, contains parts: [String],
                          file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected a migration error containing \(parts)", file: file, line: line)
    } catch let error as MigrationError {
        for part in parts {
            XCTAssertTrue(error.description.contains(part), "\(error.description)\n  does not contain: \(part)", file: file, line: line)
        }
    } catch {
        XCTFail("expected a MigrationError, got \(type(of: error)): \(error)", file: file, line: line)
    }
}
