import XCTest
import Foundation
import ETL

/// `etl model from-store`: a pipeline's first model from an existing store.
extension CommandLineTests {
    func testModelFromThePlainSampleStoreIsItsModelFile() throws {
        // Given the committed v1 store, when its model is read from its schema…
        let result = try etl("model", "from-store", Self.root.appendingPathComponent("data/books-v1.sqlite").path)
        XCTAssertEqual(result.status, 0, result.stderr)
        // …then it is books-v1.json: entities, types, required attributes, the many-to-many and its inverse.
        let written = try ModelFile.decode(JSONCursor.parse(Array(result.stdout.utf8), file: "stdout"))
        XCTAssertEqual(written, try ModelFile.load(path: Self.root.appendingPathComponent("pipelines/models/books-v1.json").path))
    }

    func testModelFromACoreDataStoreNeedsItsBundleAndIsCheckedByIt() throws {
        let store = Self.root.appendingPathComponent("data/books-v1-coredata.sqlite").path
        let bundle = Self.root.appendingPathComponent("pipelines/models/Books.xcdatamodeld").path
        let without = try etl("model", "from-store", store)
        XCTAssertEqual(without.status, 1)
        XCTAssertTrue(without.stderr.contains("is a Core Data store, whose tables do not say its attribute types: give the app's model bundle with --models"), without.stderr)

        let with = try etl("model", "from-store", store, "--models", bundle)
        XCTAssertEqual(with.status, 0, with.stderr)
        let written = try ModelFile.decode(JSONCursor.parse(Array(with.stdout.utf8), file: "stdout"))
        // (A JSON model file has no place for Core Data's version identifiers.)
        var v1 = try XCTUnwrap(try ModelBundle.load(path: bundle).versions.first { $0.version == "books-v1" })
        v1.versionIdentifiers = []
        XCTAssertEqual(written, v1)

        // A store no version of the bundle matches: the check fails, naming what differs.
        let renamed = folder.appendingPathComponent("renamed.sqlite").path
        try FileManager.default.copyItem(atPath: store, toPath: renamed)
        try Database(path: renamed, mode: .readWrite).execute("ALTER TABLE ZBOOK RENAME TO ZVOLUME")
        let other = try etl("model", "from-store", renamed, "--models", bundle)
        XCTAssertEqual(other.status, 1)
        XCTAssertTrue(other.stderr.contains("matches no version of the model"), other.stderr)
    }
}
