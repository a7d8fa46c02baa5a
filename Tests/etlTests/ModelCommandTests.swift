import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

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
        XCTAssertTrue(without.stderr.contains("is a Core Data store that keeps no model of its own (Z_MODELCACHE missing, as before about 2017, or empty), "
                                             + "and its tables do not say its attribute types: give the app's model bundle with --models"), without.stderr)

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

    /// A store Core Data wrote keeps its model: read without a bundle, written as Xcode's XML
    /// that reads back as the bundle's version, and `inspect` says the cache agrees.
    func testModelFromACoreDataStoreComesFromTheModelItKeeps() throws {
        let store = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V5.sqlite", into: folder)
        _ = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/Bookmarks_V5.sqlite-wal", into: folder)
        let bundle = try FixtureSet.copy("coredata-corpus/ddg-bookmarks/BookmarksModel.xcdatamodeld", into: folder)
        var v5 = try XCTUnwrap(try ModelBundle.load(path: bundle.path).version(named: "BookmarksModel 5"))

        let json = try etl("model", "from-store", store.path, "--version", "BookmarksModel 5")
        XCTAssertEqual(json.status, 0, json.stderr)
        XCTAssertEqual(json.stdout, ModelFileWriter.json(v5))

        let out = folder.appendingPathComponent("Bookmarks 5.xcdatamodel")
        let xml = try etl("model", "from-store", store.path, "--xcdatamodel", out.path)
        XCTAssertEqual(xml.status, 0, xml.stderr)
        XCTAssertTrue(FileManager.default.fileExists(atPath: out.appendingPathComponent("contents").path))
        v5.version = "Bookmarks 5"
        XCTAssertEqual(try ModelBundle.loadVersion(path: out.path), v5)

        let inspect = try etl("inspect", store.path)
        XCTAssertEqual(inspect.status, 0, inspect.stderr)
        XCTAssertTrue(inspect.stdout.contains("model    kept in the store (Z_MODELCACHE): agrees with the metadata's version hashes (1 entity)"), inspect.stdout)
        let plain = try etl("inspect", Self.root.appendingPathComponent("data/books-v1-coredata.sqlite").path)
        XCTAssertTrue(plain.stdout.contains("model    none kept in the store"), plain.stdout)
    }
}
