import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import ETLTestSupport

/// A pipeline that leaves `"layout"` out reads the source as what it is: a Core Data store
/// as one (and its destination follows); a `"version"` written for the source that the store
/// does not hold is refused naming the version etl finds there.
final class SourceLayoutDetectionTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// A bundle pipeline over the rename-chain fixture, no `"layout"` anywhere; `source` is
    /// the store's file name, and what follows it in the source object.
    func pipeline(source: String) throws -> String {
        let chain = try FixtureSet.copy("coredata-rename-chain", into: folder.url.appendingPathComponent("fixtures"))
        let path = folder.path("pipeline.json")
        try """
            { "format": 1, "models": "\(chain.appendingPathComponent("Model.xcdatamodeld").path)",
              "source": { "store": "\(chain.path)/\(source)" },
              "destination": { "store": "\(folder.path("out.sqlite"))" } }
            """.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    func testACoreDataSourceWithoutALayoutIsReadAsOneAndTheDestinationFollows() throws {
        let summary = try Migration(pipeline: try pipeline(source: "Example_v1.1.2.sqlite\", \"version\": \"v1.1.2")).run()
        XCTAssertFalse(summary.mappings.isEmpty)
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT ZV2_0_0_NAME FROM ZBASICENTITY"), [[.text("A Known Value")]])
        XCTAssertEqual(try out.rows("SELECT Z_ENT, Z_NAME FROM Z_PRIMARYKEY"), [[.integer(1), .text("BasicEntity")]])
        XCTAssertEqual(try CoreDataMetadata.read(out).storeType, "SQLite", "Core Data's metadata, as with \"layout\": \"coredata\"")
    }

    func testTheVersionIsDetectedTooWhenNeitherIsWritten() throws {
        let summary = try Migration(pipeline: try pipeline(source: "Example_v1.0.0.sqlite")).run()
        XCTAssertFalse(summary.upToDate)
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT ZV2_0_0_NAME FROM ZBASICENTITY"), [[.text("A Known Value")]])
    }

    func testAWrongSourceVersionNamesTheDetectedOne() throws {
        let migration = Migration(pipeline: try pipeline(source: "Example_v1.1.0.sqlite\", \"version\": \"v1.0.0"))
        let error = thrownError(CoreDataStoreError.self) { try migration.run() }
        let message = error.map { "\($0)" } ?? ""
        XCTAssertTrue(message.contains("does not hold model v1.0.0"), message)
        XCTAssertTrue(message.contains("the store is version v1.1.0") && message.contains("write \"version\": \"v1.1.0\""), message)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }
}
