import XCTest
import ETLStore
import ETL
import ETLExpression
@testable import ETLEngine

/// What validation compares the new store with (`SourceCounts`): each entity's rows,
/// counted in SQL in the step's source, beside the step, and equal to what the step makes.
final class SourceCountsTests: XCTestCase {
    var folder: TemporaryFolder!
    var source: String!

    override func setUpWithError() throws {
        (folder, source, _) = try givenBooksStore(rows: 400, seed: 11)
    }

    override func tearDown() { folder = nil }

    /// Given the fused books step, the counts from its source equal the rows of the store the
    /// run makes, entity by entity; counted beside the run (a second connection and thread)
    /// or at once on this thread (a small source), the same.
    func testTheCountsFromTheSourceEqualTheStoreTheRunMakes() throws {
        let destination = folder.path("v3.sqlite")
        try migrateBooks(source: source, destination: destination)
        let step = try XCTUnwrap(try booksMigration(source: source, destination: destination).plan().fusedSteps?.first)
        let made = try Database(path: destination, mode: .readOnly)
        defer { made.close() }
        var expected: SourceCounts.Rows = [:]
        for entity in ["User", "Book", "Author", "File"] {
            expected[entity] = Int(try made.scalarInt("SELECT count(*) FROM \(Database.quote(entity))"))
        }
        XCTAssertGreaterThan(expected["File"] ?? 0, expected["Book"] ?? 0, "books with several users make several files")
        for smallStoreBytes: Int64 in [0, .max] {
            let counts = try SourceCounts.start(step, sourcePath: source, functions: [:], busyTimeout: 1000,
                                                smallStoreBytes: smallStoreBytes, stop: { false })
            XCTAssertEqual(counts.ranInline, smallStoreBytes == .max)
            XCTAssertEqual(try counts.wait(), expected, "small store threshold \(smallStoreBytes)")
        }
    }

    /// A step run from its start counts its own rows: no counts from the source (their CPU
    /// competed with the creates, 10 % of the books benchmark). A step resumed inside itself
    /// took its counters from a checkpoint anyone can write: it is compared with the source's
    /// counts, and ends with the store of a run never stopped.
    func testOnlyAStepResumedFromACheckpointIsComparedWithCountsFromItsSource() throws {
        let reference = folder.path("reference.sqlite")
        let counted = Recorded<EngineEvent>()
        var fresh = booksMigration(source: source, destination: reference)
        fresh.options.tuning.observe = { event in if case .sourceCounted = event { counted.list.append(event) } }
        _ = try fresh.run()
        XCTAssertEqual(counted.list, [], "a fresh run counts its own rows")

        let destination = folder.path("v3.sqlite")
        var migration = booksMigration(source: source, destination: destination, chunkSize: 1, workers: 1)
        migration.options.tuning.observe = { event in if case .sourceCounted = event { counted.list.append(event) } }
        let cancellation = Cancellation()
        migration.cancellation = cancellation
        XCTAssertThrowsError(try migration.run { event in
            if event.kind == .advanced, event.stage == .create, event.mapping == "Books", event.done * 2 >= event.total { cancellation.cancel() }
        })
        XCTAssertEqual(counted.list, [], "stopped before validation")
        migration.cancellation = nil
        XCTAssertNotNil(try migration.run().resumed)
        XCTAssertEqual(counted.list, [.sourceCounted(step: "v1 to v2 + v2 to v3")], "the resumed step is counted in its source")
        try assertSameStore(destination, reference)
    }

    /// A forEach pair is a row whether its item row is there or not: the item's table is
    /// joined only when the filter reads `$item` (a join that cannot change the count costs a
    /// lookup per pair: seconds at a million books).
    func testAForEachJoinsItsItemsTableOnlyForAFilterThatReadsTheItem() throws {
        let step = try XCTUnwrap(try booksMigration(source: source, destination: folder.path("unused.sqlite")).plan().fusedSteps?.first)
        let files = try XCTUnwrap(step.mappings.first { $0.name == "Files" })
        guard case .rows(let count)? = SourceCounts(step: step).statements(files.ownTarget) else { return XCTFail("Files is counted") }
        XCTAssertEqual(count.joins.map(\.table.name), ["Book_users"], count.sql)
        XCTAssertEqual(count.sql, #"SELECT count(*) FROM main."Book" s CROSS JOIN main."Book_users" j ON j."source_id" = s."id" WHERE (s."fileURL" IS NOT NULL)"#)

        let pipeline = folder.path("item-filter.json")
        var text = try String(contentsOfFile: repositoryPath("pipelines/books.json"), encoding: .utf8)
        text = text.replacingOccurrences(of: #""filter": "$source.fileURL != null""#, with: #""filter": "$source.fileURL != null && $item.name != null""#)
        text = text.replacingOccurrences(of: "\"../data/", with: "\"\(repositoryPath("data"))/")
            .replacingOccurrences(of: "\"models/", with: "\"\(repositoryPath("pipelines/models"))/")
        try text.write(toFile: pipeline, atomically: true, encoding: .utf8)
        let readsItem = try XCTUnwrap(try booksMigration(source: source, destination: folder.path("unused.sqlite"), pipeline: pipeline).plan().fusedSteps?.first)
        let itemFiles = try XCTUnwrap(readsItem.mappings.first { $0.name == "Files" })
        guard case .rows(let itemCount)? = SourceCounts(step: readsItem).statements(itemFiles.ownTarget) else { return XCTFail("Files is counted") }
        XCTAssertEqual(itemCount.joins.map(\.kind), [.cross, .left], itemCount.sql)
        XCTAssertEqual(itemCount.joins.map(\.table.name), ["Book_users", "User"])
    }

    /// A uniqueBy mapping counts its distinct non-null keys and its null-key rows apart.
    func testAUniqueByMappingCountsDistinctKeysAndNullKeyRows() throws {
        let step = try XCTUnwrap(try booksMigration(source: source, destination: folder.path("unused.sqlite")).plan().fusedSteps?.first)
        let authors = try XCTUnwrap(step.mappings.first { $0.name == "Authors" })
        guard case .keys(let distinct, let nullRows)? = SourceCounts(step: step).statements(authors.ownTarget) else {
            return XCTFail("Authors is counted by its keys")
        }
        XCTAssertTrue(distinct.distinct)
        XCTAssertTrue(distinct.sql.hasSuffix(#"IS NOT NULL"#), distinct.sql)
        XCTAssertTrue(nullRows.sql.hasPrefix("SELECT count(*) FROM"), nullRows.sql)
        XCTAssertTrue(nullRows.sql.hasSuffix(#"IS NULL"#), nullRows.sql)
    }
}
