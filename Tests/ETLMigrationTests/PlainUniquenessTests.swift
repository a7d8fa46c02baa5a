import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL

/// A JSON model's `"unique"` in the plain layout: a UNIQUE index in the new store, and
/// duplicates fail validation by name, as a Core Data uniqueness constraint does.
final class PlainUniquenessTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// The books pipeline, its models copied beside it, with `unique` added to books-v3's `entity`.
    func booksPipeline(unique entity: String, _ properties: [String]) throws -> String {
        let here = folder.url.appendingPathComponent("\(entity)-\(properties.joined(separator: "-"))")
        let models = here.appendingPathComponent("models")
        try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
        for version in 1...3 {
            var text = try String(contentsOfFile: repositoryPath("pipelines/models/books-v\(version).json"), encoding: .utf8)
            if version == 3 {
                let marker = "\"name\": \"\(entity)\","
                text = text.replacingOccurrences(of: marker, with: marker + " \"unique\": [[" + properties.map { "\"\($0)\"" }.joined(separator: ", ") + "]],")
            }
            try text.write(to: models.appendingPathComponent("books-v\(version).json"), atomically: true, encoding: .utf8)
        }
        let pipeline = here.appendingPathComponent("books.json")
        try FileManager.default.copyItem(atPath: repositoryPath("pipelines/books.json"), toPath: pipeline.path)
        return pipeline.path
    }

    func testAUniqueAttributeIsAUniqueIndexAndDuplicatesFailByName() throws {
        let source = folder.path("v1.sqlite")
        try BooksSample.write(rows: 300, seed: 5, to: source)

        // Every user has its own userId: the index is made.
        let fine = folder.path("fine.sqlite")
        try migrateBooks(source: source, destination: fine, pipeline: try booksPipeline(unique: "User", ["userId"]))
        let db = try Database(path: fine, mode: .readOnly)
        XCTAssertEqual(try db.rows("SELECT sql FROM sqlite_schema WHERE name = 'User_unique_userId'"),
                       [[.text("CREATE UNIQUE INDEX \"User_unique_userId\" ON \"User\"(\"userId\")")]])

        // Two books of the sample share a price: refused, naming them.
        let titles = try booksPipeline(unique: "Book", ["price"])
        for pushdown in [true, false] {
            let out = folder.path("dup-\(pushdown).sqlite")
            var migration = Migration(pipeline: titles)
            migration.source = source
            migration.destination = out
            migration.pushdown = pushdown
            assertMigrationError(try migration.run(), contains: ["entity Book: 2 rows have price = ", "(keys ", "the model makes price unique"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: out))
        }
    }

    func testAUniqueConstraintNamingAnUnknownPropertyIsRefusedWithItsPath() throws {
        let pipeline = try booksPipeline(unique: "User", ["userID"])
        XCTAssertThrowsError(try Migration(pipeline: pipeline).plan()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("books-v3.json"), text)
            XCTAssertTrue(text.contains("$.entities[0].unique[0][0]"), text)
            XCTAssertTrue(text.contains("did you mean 'userId'?"), text)
        }
    }
}
