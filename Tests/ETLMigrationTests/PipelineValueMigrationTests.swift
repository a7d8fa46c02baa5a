import XCTest
import Foundation
import ETLDocument
import ETL

/// A migration of a pipeline given as a value (`Migration(pipeline:file:)`): read as the file
/// it names would be, which is never written.
final class PipelineValueMigrationTests: XCTestCase {
    typealias Top = PipelineFormat.Top
    typealias Store = PipelineFormat.Store

    /// The books bundle from v1 to v2, inferred, its unread `Book.authorName` declared dropped.
    func booksPipeline(models: String = "models/Books.xcdatamodeld", source: String, destination: String, drop: [String]) -> PipelineValue {
        .members([Top.format: .integer(1), Top.models: .string(models),
                  Top.source: .members([Store.store: .string(source), Store.layout: .string("coredata")]),
                  Top.destination: .members([Store.store: .string(destination), Store.layout: .string("coredata"), Store.version: .string("books-v2")]),
                  Top.drop: .list(drop.map(PipelineValue.string), .inline)])
    }

    func testAPipelineValueRunsWithoutAFile() throws {
        let folder = try TemporaryFolder()
        let source = folder.path("v1.sqlite")
        try FileManager.default.copyItem(atPath: repositoryPath("data/books-v1-coredata.sqlite"), toPath: source)
        // Relative paths are the named file's folder's: the repository's models.
        let file = repositoryPath("pipelines/written-by-a-program.json")
        let summary = try Migration(pipeline: booksPipeline(source: source, destination: folder.path("v2.sqlite"), drop: ["Book.authorName"]),
                                    file: file).run()
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.path("v2.sqlite")))
        XCTAssertEqual(summary.drops.map(\.name), ["Book.authorName"])
        XCTAssertGreaterThan(summary.mappings.count, 0)
        XCTAssertFalse(FileManager.default.fileExists(atPath: file), "the pipeline is a value: no file is written for it")
    }

    func testErrorsNameTheFileAndThePlaceInTheWrittenPipeline() throws {
        let folder = try TemporaryFolder()
        let file = folder.path("value.json")
        let pipeline = booksPipeline(models: repositoryPath("pipelines/models/Books.xcdatamodeld"), source: repositoryPath("data/books-v1-coredata.sqlite"), destination: folder.path("v2.sqlite"), drop: ["Book.autorName"])
        XCTAssertThrowsError(try Migration(pipeline: pipeline, file: file).plan()) { error in
            guard let error = error as? DocumentError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.file, file)
            XCTAssertEqual(error.path, "$.drop[0]")
            XCTAssertTrue(error.message.contains("did you mean 'Book.authorName'?"), error.message)
            // The place is the written JSON's: `"drop": [` on the pipeline's one line.
            let written = PipelineWriter.json(pipeline)
            XCTAssertEqual(error.line, 1)
            let column = written.distance(from: written.startIndex, to: written.range(of: #""Book.autorName""#)!.lowerBound) + 1
            XCTAssertEqual(error.column, column)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: file))
    }
}
