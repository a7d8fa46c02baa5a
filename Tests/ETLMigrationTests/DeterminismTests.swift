import XCTest
import ETL
import ETLExpression

/// Destination keys come from load order, which is source order: the same input gives
/// the same store whatever the number of workers and the chunk size.
final class DeterminismTests: XCTestCase {
    func testSameStoreWithOneOrManyWorkersAndAnyChunkSize() throws {
        let folder = try TemporaryFolder()
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 1500, seed: 9, to: source)
        var dumps: [[String]] = []
        for (workers, chunk) in [(1, 1000), (4, 7), (3, 64), (2, 1)] {
            let destination = folder.path("v3-\(workers)-\(chunk).sqlite")
            try migrateBooks(source: source, destination: destination, chunkSize: chunk, workers: workers)
            dumps.append(try storeDump(destination))
        }
        XCTAssertGreaterThan(dumps[0].count, 5_000, "dump lines")
        for other in dumps.dropFirst() {
            XCTAssertEqual(other, dumps[0])
        }
    }

    func testTheSampleIsTheSameStoreForTheSameSeed() throws {
        let folder = try TemporaryFolder()
        try BooksSample.write(rows: 500, seed: 3, to: folder.path("a.sqlite"))
        try BooksSample.write(rows: 500, seed: 3, to: folder.path("b.sqlite"))
        try BooksSample.write(rows: 500, seed: 4, to: folder.path("c.sqlite"))
        XCTAssertEqual(try bytes(folder.path("a.sqlite")), try bytes(folder.path("b.sqlite")))
        XCTAssertNotEqual(try storeDump(folder.path("a.sqlite")), try storeDump(folder.path("c.sqlite")))
    }

    func testTheCommittedSampleIsTheGeneratorsOutput() throws {
        let folder = try TemporaryFolder()
        try BooksSample.write(rows: 2000, seed: 1, to: folder.path("books-v1.sqlite"))
        XCTAssertEqual(try bytes(folder.path("books-v1.sqlite")), try bytes(repositoryPath("data/books-v1.sqlite")),
                       "data/books-v1.sqlite must be `etl sample books --rows 2000 --seed 1`")
    }

    func testTheSampleModelIsTheModelFile() throws {
        XCTAssertEqual(try ModelFile.load(path: repositoryPath("pipelines/models/books-v1.json")), BooksSample.modelV1)
    }
}
