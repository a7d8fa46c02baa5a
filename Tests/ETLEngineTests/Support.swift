import Foundation
import XCTest
import ETLStore
import ETL
// Temporary folders, repository paths, store dumps, seeds: shared by every test target,
// and visible in every file of this one.
@_exported import ETLTestSupport

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
