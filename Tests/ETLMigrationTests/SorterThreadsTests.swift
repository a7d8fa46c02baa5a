import XCTest
import Foundation
import ETLStore
@testable import ETLEngine
import ETLExpression
import ETL

/// The run's connection lets SQLite's sorter use the other cores (`SorterThreads`): the
/// index builds, groupings and ordered inserts that sort are shared with helper threads.
final class SorterThreadsTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func testTheRunsConnectionSortsOnTheOtherCores() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 300, seed: 11, to: source)
        var migration = Migration(pipeline: repositoryPath("pipelines/books.json"))
        migration.source = source
        migration.destination = folder.path("v3.sqlite")
        var options = RunOptions()
        let threads = Recorded<Int64>()
        options.beforeValidation = { db in threads.list.append(try db.scalarInt("PRAGMA threads")) }
        _ = try Engine(plan: try migration.plan(), options: options).run()

        let cores = ProcessInfo.processInfo.activeProcessorCount
        XCTAssertEqual(threads.list, [Int64(SorterThreads.count)], "the connection of the one step run (the two steps run as one)")
        if cores > 1 { XCTAssertGreaterThan(SorterThreads.count, 0, "\(cores) cores: the sorter gets helpers") }
    }
}
