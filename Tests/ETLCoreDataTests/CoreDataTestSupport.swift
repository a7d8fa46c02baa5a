import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLTestSupport

/// The shared fixtures for this target's tests, through `FixtureSet` (ETLTestSupport):
/// copies in a fresh temporary folder, removed when the test ends.
enum SharedFixtures {
    static var root: URL { FixtureSet.root }

    static let chainVersions = ["v1.0.0", "v1.1.0", "v1.1.2", "v1.2.0", "v2.0.0"]

    /// Copies `relativePath` (below `shared/fixtures`) into a new temporary folder and returns
    /// the copy. When the fixture set is missing the test is skipped, or fails when the
    /// environment sets `ETL_REQUIRE_FIXTURES=1`.
    static func copy(_ relativePath: String, for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try FixtureSet.copy(relativePath, into: try temporaryFolder(for: test), file: file, line: line)
    }

    /// A store of the rename chain ("v1.0.0" …), copied.
    static func store(_ version: String, for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try copy("coredata-rename-chain/Example_\(version).sqlite", for: test, file: file, line: line)
    }

    /// The rename chain's `Model.xcdatamodeld`, copied and imported.
    static func bundle(for test: XCTestCase, file: StaticString = #filePath, line: UInt = #line) throws -> ModelBundle {
        try ModelBundle.load(path: copy("coredata-rename-chain/Model.xcdatamodeld", for: test, file: file, line: line).path)
    }

    /// A fresh temporary folder, removed after the test.
    static func temporaryFolder(for test: XCTestCase) throws -> URL {
        try TemporaryFolder.forTest(test, prefix: "etl-coredata")
    }
}

extension SQLValue {
    var text: String? { if case .text(let s) = self { return s } else { return nil } }
    var int: Int64? { if case .integer(let n) = self { return n } else { return nil } }
}

extension Database {
    /// The column names of a table, upper-cased.
    func columnNames(_ table: String) throws -> [String] {
        try self.table(named: table)?.columns.map { $0.name.uppercased() } ?? []
    }

    func tableNames() throws -> [String] {
        try tables().map(\.name)
    }
}

/// A model file's JSON decoded as the file `model.json` (the name its errors give); as
/// ETLModelTests' `ModelFileSupport`, which this target cannot import.
func decodeModel(_ json: String) throws -> Model {
    try ModelFile.decode(JSONCursor.parse(Array(json.utf8), file: "model.json"))
}

/// A fresh in-memory store holding `layout`'s schema.
func emptyStore(_ layout: some StoreLayout) throws -> Database {
    let db = try Database(path: ":memory:", mode: .create)
    for sql in layout.schemaSQL() { try db.execute(sql) }
    return db
}

/// The books model of `pipelines/models/books-v<version>.json`.
func booksModel(_ version: Int) throws -> Model {
    try ModelFile.load(path: repositoryPath("pipelines/models/books-v\(version).json"))
}
