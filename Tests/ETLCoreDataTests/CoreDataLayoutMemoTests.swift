import Foundation
import XCTest
import ETLStore
import ETLModel
@testable import ETLCoreData
import ETLTestSupport

/// `CoreDataLayout.schemaSQL()` is worked out once per layout (`CoreDataLayoutMemo`), and
/// again for a copy whose kept indexes or names changed.
final class CoreDataLayoutMemoTests: XCTestCase {
    func testACopyWithOtherKeptIndexesHasItsOwnSchemaAndTheOriginalKeepsItsOwn() throws {
        let layout = CoreDataLayout(model: try booksModel(2))
        let schema = layout.schemaSQL()
        XCTAssertEqual(layout.schemaSQL(), schema)
        var copy = layout
        let index = "CREATE INDEX \"KEPT_TITLE\" ON \"ZBOOK\" (\"ZTITLE\")"
        copy.keptIndexSQL = [index]
        XCTAssertTrue(copy.schemaSQL().contains(index), "the copy's schema was worked out again")
        XCTAssertEqual(copy.schemaSQL().filter { $0 != index }, schema)
        XCTAssertEqual(layout.schemaSQL(), schema, "the original's schema is its own")
        // Asked first after the change (nothing worked out before it in this copy's memo).
        var fresh = CoreDataLayout(model: try booksModel(2))
        fresh.keptIndexSQL = [index]
        XCTAssertEqual(fresh.schemaSQL(), copy.schemaSQL())
        // And the schema is what SQLite takes.
        _ = try emptyStore(copy)
    }

    func testHashesAreKeptOnlyForTheRecordedHashesTheyWereWorkedOutWith() throws {
        // An entity whose hash cannot be computed (a derived attribute): the recorded one decides.
        var count = Attribute(name: "bookCount", type: .integer64)
        count.derivation = "books.@count"
        let model = Model(version: "v1", entities: [Entity(name: "Author", attributes: [count])])
        var recorded = CoreDataLayout(model: model)
        let hash = Data(repeating: 7, count: 32)
        recorded.recordedHashes = ["Author": hash]
        XCTAssertEqual(try recorded.versionHashes().entities["Author"], hash)
        var without = recorded
        without.recordedHashes = [:]
        XCTAssertThrowsError(try without.versionHashes(), "a copy without the recorded hash is not given the hashes kept for it")
        XCTAssertEqual(try recorded.versionHashes().entities["Author"], hash)
    }
}
