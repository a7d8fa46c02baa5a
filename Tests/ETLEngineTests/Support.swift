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

/// Given a v1 books store and its uninterrupted migration to v3 (`reference`): a migration
/// of the same store into `destination`, for a test to stop, break and resume.
struct BooksResumeFixture {
    let folder: TemporaryFolder
    let source: String
    let reference: String
    let destination: String
    var migration: Migration

    init(rows: Int, seed: UInt64) throws {
        folder = try TemporaryFolder()
        source = folder.path("v1.sqlite")
        try BooksSample.write(rows: rows, seed: seed, to: source)
        reference = folder.path("reference.sqlite")
        try migrateBooks(source: source, destination: reference)
        destination = folder.path("v3.sqlite")
        migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = destination
    }
}
