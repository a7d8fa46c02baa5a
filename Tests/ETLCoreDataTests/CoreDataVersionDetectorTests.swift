import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData
import ETLTestSupport

final class CoreDataVersionDetectorTests: XCTestCase {
    func testEachFixtureStoreIsDetectedByItsHashesAndSchema() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        for version in SharedFixtures.chainVersions {
            let db = try Database(path: SharedFixtures.store(version, for: self).path, mode: .readOnly)
            let found = try VersionDetector.detect(store: db, versions: bundle.versions, layout: .coredata)
            XCTAssertEqual(found.version, version)
            XCTAssertEqual(found.evidence, .schemaAndVersionHashes, "hashes computed from the models")
            XCTAssertEqual(found.hashMatches, [version])
            XCTAssertEqual(found.schemaMatches, [version])
        }
    }

    func testReferenceHashesConfirmTheVersion() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        var references: [String: [String: Data]] = [:]
        for version in SharedFixtures.chainVersions {
            let db = try Database(path: SharedFixtures.store(version, for: self).path, mode: .readOnly)
            references[version] = try CoreDataMetadata.read(db).versionHashes
        }
        XCTAssertEqual(Set(references.values.map { $0["BasicEntity"]! }).count, 5, "each version has its own hash")
        for version in SharedFixtures.chainVersions {
            let db = try Database(path: SharedFixtures.store(version, for: self).path, mode: .readOnly)
            let found = try VersionDetector.detect(store: db, versions: bundle.versions, layout: .coredata, referenceHashes: references)
            XCTAssertEqual(found.version, version)
            XCTAssertEqual(found.evidence, .schemaAndVersionHashes)
            XCTAssertEqual(found.hashMatches, [version])
        }
    }

    func testHashesBreakATieBetweenVersionsWithTheSameSchema() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let db = try Database(path: SharedFixtures.store("v1.0.0", for: self).path, mode: .readOnly)
        // A version that differs only in what tables do not show (the attribute is required).
        var required = try XCTUnwrap(bundle.version(named: "v1.0.0"))
        required.version = "v1.0.0-required"
        required.entities[0].attributes[0].isOptional = false
        let versions = bundle.versions + [required]

        // Hashes computed from the models tell them apart.
        let computed = try VersionDetector.detect(store: db, versions: versions, layout: .coredata)
        XCTAssertEqual(computed.version, "v1.0.0")
        XCTAssertEqual(computed.hashMatches, ["v1.0.0"])
        // A version that differs only in a default value has the same schema and the same hashes.
        var defaulted = try XCTUnwrap(bundle.version(named: "v1.0.0"))
        defaulted.version = "v1.0.0-default"
        defaulted.entities[0].attributes[0].defaultValue = .text("x")
        XCTAssertThrowsError(try VersionDetector.detect(store: db, versions: bundle.versions + [defaulted], layout: .coredata)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("matches several versions (v1.0.0, v1.0.0-default)"), text)
            XCTAssertTrue(text.contains("the same for several"), text)
        }
        let hashes = try CoreDataMetadata.read(db).versionHashes
        let found = try VersionDetector.detect(store: db, versions: versions, layout: .coredata,
                                               referenceHashes: ["v1.0.0": hashes, "v1.0.0-required": ["BasicEntity": Data([1])]])
        XCTAssertEqual(found.version, "v1.0.0")
        XCTAssertEqual(found.evidence, .schemaAndVersionHashes)
        XCTAssertEqual(found.schemaMatches, ["v1.0.0", "v1.0.0-required"])
    }

    func testHashesThatContradictTheSchemaAreRefused() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let db = try Database(path: SharedFixtures.store("v1.1.0", for: self).path, mode: .readOnly)
        let hashes = try CoreDataMetadata.read(db).versionHashes
        XCTAssertThrowsError(try VersionDetector.detect(store: db, versions: bundle.versions, layout: .coredata,
                                                        referenceHashes: ["v1.2.0": hashes, "v1.1.0": ["BasicEntity": Data([9])]])) { error in
            XCTAssertTrue("\(error)".contains("the schema is that of version v1.1.0, but the store's version hashes are those of v1.2.0"), "\(error)")
        }
    }

    func testAnExtraColumnMatchesNoVersionAndNamesTheClosest() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let path = try SharedFixtures.store("v1.1.2", for: self).path
        let writer = try Database(path: path, mode: .readWrite)
        try writer.execute("ALTER TABLE ZBASICENTITY ADD COLUMN ZNOTES VARCHAR")
        let db = try Database(path: path, mode: .readOnly)
        XCTAssertThrowsError(try VersionDetector.detect(store: db, versions: bundle.versions, layout: .coredata)) { error in
            guard let error = error as? VersionDetectionError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.store, path)
            XCTAssertEqual(error.closestVersion, "v1.1.2")
            XCTAssertEqual(error.differences?.extraColumns, ["ZBASICENTITY.ZNOTES"])
            XCTAssertTrue(error.description.contains("closest: v1.1.2, which differs: extra columns: ZBASICENTITY.ZNOTES"), error.description)
        }
    }

    func testAStoreOfAnotherAppSaysWhatDiffers() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let folder = try SharedFixtures.temporaryFolder(for: self)
        let copy = folder.appendingPathComponent("books-v1.sqlite")
        try FileManager.default.copyItem(at: URL(fileURLWithPath: repositoryPath("data/books-v1.sqlite")), to: copy)
        let db = try Database(path: copy.path, mode: .readOnly)
        XCTAssertThrowsError(try VersionDetector.detect(store: db, versions: bundle.versions, layout: .coredata)) { error in
            guard let error = error as? VersionDetectionError else { return XCTFail("\(error)") }
            let text = error.description
            XCTAssertTrue(text.hasPrefix(copy.path + ": matches no version of the model (v1.0.0, v1.1.0, v1.1.2, v1.2.0, v2.0.0)"), text)
            XCTAssertEqual(error.differences?.missingTables.sorted(), ["ZBASICENTITY", "Z_METADATA", "Z_PRIMARYKEY"])
            XCTAssertTrue(text.contains("missing tables: ZBASICENTITY"), text)
        }
        // The same store with the plain layout and the books models: version 1.
        let books = try (1...3).map { try booksModel($0) }
        XCTAssertEqual(try VersionDetector.detect(store: db, versions: books, layout: .plain).version, "books-v1")
        // And the fixture store is no books store.
        let fixture = try Database(path: SharedFixtures.store("v1.0.0", for: self).path, mode: .readOnly)
        XCTAssertThrowsError(try VersionDetector.detect(store: fixture, versions: books, layout: .plain)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("missing tables: "), text)
            XCTAssertTrue(text.contains("extra tables: ZBASICENTITY"), text)
        }
    }

    func testPlainLayoutStoresOfEachBooksVersion() throws {
        let books = try (1...3).map { try booksModel($0) }
        for model in books {
            let db = try emptyStore(PlainLayout(model: model))
            XCTAssertEqual(try VersionDetector.detect(store: db, versions: books, layout: .plain).version, model.version)
        }
    }

    func testJoinTablesCompareWithoutEntityNumbers() throws {
        let model = try LibraryModelXML.model(for: self)
        let db = try emptyStore(CoreDataLayout(model: model))
        // The same join table under other entity numbers, as another store would have it.
        try db.execute("ALTER TABLE Z_3ITEMS RENAME TO Z_9ITEMS; ALTER TABLE Z_9ITEMS RENAME COLUMN Z_3COLLECTIONS TO Z_9COLLECTIONS")
        XCTAssertEqual(try VersionDetector.detect(store: db, versions: [model], layout: .coredata).version, "Library 2")
        try db.execute("DROP TABLE Z_9ITEMS")
        XCTAssertThrowsError(try VersionDetector.detect(store: db, versions: [model], layout: .coredata)) { error in
            XCTAssertEqual((error as? VersionDetectionError)?.differences?.missingTables, ["Z_3ITEMS"])
        }
    }

    func testDigitsCoreDataAppendedStillMatch() throws {
        // Core Data named the colliding columns ZTITLE1 and ZTITLE2 (the conventions alone would say ZTITLE, ZTITLE1).
        let model = try decodeModel("""
            { "version": "notes", "entities": [
              { "name": "Object", "abstract": true },
              { "name": "Note", "parent": "Object", "attributes": [ { "name": "title", "type": "string" } ] },
              { "name": "Folder", "parent": "Object", "attributes": [ { "name": "title", "type": "string" } ] } ] }
            """)
        let db = try Database(path: ":memory:", mode: .create)
        try db.execute("""
            CREATE TABLE ZOBJECT ( Z_PK INTEGER PRIMARY KEY, Z_ENT INTEGER, Z_OPT INTEGER, ZTITLE1 VARCHAR, ZTITLE2 VARCHAR );
            CREATE TABLE Z_PRIMARYKEY (Z_ENT INTEGER PRIMARY KEY, Z_NAME VARCHAR, Z_SUPER INTEGER, Z_MAX INTEGER);
            CREATE TABLE Z_METADATA (Z_VERSION INTEGER PRIMARY KEY, Z_UUID VARCHAR(255), Z_PLIST BLOB);
            INSERT INTO Z_PRIMARYKEY VALUES (1, 'Folder', 3, 0), (2, 'Note', 3, 0), (3, 'Object', 0, 0);
            """)
        XCTAssertEqual(try VersionDetector.detect(store: db, versions: [model], layout: .coredata).version, "notes")
        try db.execute("ALTER TABLE ZOBJECT ADD COLUMN ZTITLE3 VARCHAR")
        XCTAssertThrowsError(try VersionDetector.detect(store: db, versions: [model], layout: .coredata)) { error in
            XCTAssertEqual((error as? VersionDetectionError)?.differences?.extraColumns, ["ZOBJECT.ZTITLE3"])
        }
    }
}
