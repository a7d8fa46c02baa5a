import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression
import ETLTestSupport

/// Real Core Data stores (../shared/fixtures), upgraded progressively through their model
/// bundle; WAL stores; stores of another app.
final class CoreDataMigrationTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Copies the rename-chain fixture folder; skips (or fails under ETL_REQUIRE_FIXTURES=1)
    /// when ../shared is missing.
    func copyFixtures() throws -> URL {
        try FixtureSet.copy("coredata-rename-chain", into: folder.url.appendingPathComponent("fixtures"))
    }

    func bundlePipeline(in chain: URL, source: String, version: String?, template: String? = nil) throws -> String {
        try folder.coreDataPipeline(bundle: chain.appendingPathComponent("Model.xcdatamodeld"), source: chain.appendingPathComponent(source),
                                    destination: folder.path("out.sqlite"), version: version, template: template)
    }

    func testEveryFixtureStoreUpgradesToTheCurrentVersion() throws {
        let chain = try copyFixtures()
        for (index, version) in ["v1.0.0", "v1.1.0", "v1.1.2", "v1.2.0"].enumerated() {
            let store = chain.appendingPathComponent("Example_\(version).sqlite").path
            let before = try bytes(store)
            // Half name the target version, half rely on the bundle's current version.
            var migration = Migration(pipeline: try bundlePipeline(in: chain, source: "Example_\(version).sqlite",
                                                                   version: index % 2 == 0 ? "v2.0.0" : nil))
            migration.replace = .force
            let summary = try migration.run()
            // One inferred hop per version from it (one mapping each), two that ran as one step
            // (`StepFusion`) one mapping.
            let fused = summary.notes.filter { $0.contains("ran as one step") }.count
            XCTAssertEqual(summary.mappings.count + fused, 4 - index, "the inferred hops from \(version): \(summary.notes)")

            let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
            XCTAssertEqual(try out.rows("SELECT ZV2_0_0_NAME FROM ZBASICENTITY"), [[.text("A Known Value")]], "from \(version)")
            XCTAssertEqual(try out.rows("SELECT Z_ENT, Z_NAME, Z_SUPER FROM Z_PRIMARYKEY"), [[.integer(1), .text("BasicEntity"), .integer(0)]])
            XCTAssertGreaterThanOrEqual(try out.scalarInt("SELECT Z_MAX FROM Z_PRIMARYKEY"), try out.scalarInt("SELECT max(Z_PK) FROM ZBASICENTITY"))
            XCTAssertEqual(try out.scalarInt("SELECT Z_OPT FROM ZBASICENTITY"), 1)
            let metadata = try CoreDataMetadata.read(out)
            XCTAssertEqual(metadata.storeType, "SQLite")
            XCTAssertEqual(try bytes(store), before, "the source \(version) must not change")
            XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-wal"), "no -wal left beside the source")
            XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-shm"), "no -shm left beside the source")
        }
    }

    func testAStoreAtTheTargetIsUpToDate() throws {
        let chain = try copyFixtures()
        let summary = try Migration(pipeline: try bundlePipeline(in: chain, source: "Example_v2.0.0.sqlite", version: "v2.0.0")).run()
        XCTAssertTrue(summary.upToDate)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testATemplateGivesTheAppsOwnSchemaAndVersionHashes() throws {
        let chain = try copyFixtures()
        let template = chain.appendingPathComponent("Example_v2.0.0.sqlite").path
        _ = try Migration(pipeline: try bundlePipeline(in: chain, source: "Example_v1.1.2.sqlite", version: "v2.0.0", template: template)).run()
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        let reference = try Database(path: template, mode: .readOnly)
        let schema = "SELECT type, name, sql FROM sqlite_schema ORDER BY name"
        XCTAssertEqual(try out.rows(schema), try reference.rows(schema))
        let hashes = try CoreDataMetadata.read(reference).versionHashes
        XCTAssertFalse(hashes.isEmpty)
        XCTAssertEqual(try CoreDataMetadata.read(out).versionHashes, hashes)
        XCTAssertEqual(try out.rows("SELECT ZV2_0_0_NAME FROM ZBASICENTITY"), [[.text("A Known Value")]])
    }

    func testAStoreOfAnotherAppIsRefusedNamingWhatDiffers() throws {
        let chain = try copyFixtures()
        let books = folder.path("books.sqlite")
        try BooksSample.write(rows: 50, seed: 1, to: books, layout: .coredata)
        let pipeline = try folder.pipeline("other.json", """
            { "format": 1, "models": "\(chain.path)/Model.xcdatamodeld",
              "source": { "store": "\(books)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata" } }
            """)
        assertRefusedAlike(Migration(pipeline: pipeline)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains(books), text)
            XCTAssertTrue(text.contains("ZBASICENTITY") || text.contains("BasicEntity"), text)
        }
        // The same app's store in the plain layout is named as such.
        try BooksSample.write(rows: 50, seed: 1, to: books)
        assertRefusedAlike(Migration(pipeline: pipeline)) { error in
            XCTAssertTrue("\(error)".contains("\(books): is a plain SQLite store (it has no Z_PRIMARYKEY and Z_METADATA)"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testABrokenModelFileIsNamed() throws {
        let chain = try copyFixtures()
        let contents = chain.appendingPathComponent("Model.xcdatamodeld/v1.2.0.xcdatamodel/contents").path
        try Data("<model><entity name=\"BasicEntity\"><attribute".utf8).write(to: URL(fileURLWithPath: contents))
        assertRefusedAlike(Migration(pipeline: try bundlePipeline(in: chain, source: "Example_v1.0.0.sqlite", version: "v2.0.0"))) { error in
            XCTAssertTrue("\(error)".contains("v1.2.0.xcdatamodel/contents"), "\(error)")
        }
    }

    func testAnUnknownTargetVersionSuggestsTheClosest() throws {
        let chain = try copyFixtures()
        assertRefusedAlike(Migration(pipeline: try bundlePipeline(in: chain, source: "Example_v1.0.0.sqlite", version: "V2.0.0"))) { error in
            XCTAssertTrue("\(error)".contains("unknown version 'V2.0.0'"), "\(error)")
            XCTAssertTrue("\(error)".contains("did you mean 'v2.0.0'?"), "\(error)")
        }
    }

    /// A store whose newest rows live only in its -wal file: all of them are migrated,
    /// and neither file changes by a byte.
    func testRowsOnlyInTheWALAreMigratedAndTheWALIsUntouched() throws {
        let live = folder.path("live.sqlite")
        try BooksSample.write(rows: 200, seed: 3, to: live)
        let writer = try Database(path: live, mode: .readWrite)
        try writer.execute("PRAGMA journal_mode = WAL; PRAGMA wal_autocheckpoint = 0")
        try writer.execute("INSERT INTO Book (id, title) SELECT id + 1000, 'wal book ' || id FROM Book WHERE id <= 50")
        // Copy while the writer holds the WAL open: the copy has 50 books only in its -wal.
        let store = folder.path("walstore.sqlite")
        try FileManager.default.copyItem(atPath: live, toPath: store)
        try FileManager.default.copyItem(atPath: live + "-wal", toPath: store + "-wal")
        writer.close()
        let main = try bytes(store), wal = try bytes(store + "-wal")
        XCTAssertGreaterThan(wal.count, 0)

        try migrateBooks(source: store, destination: folder.path("v3.sqlite"))
        let out = try Database(path: folder.path("v3.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM Book"), 250)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM Book WHERE title LIKE 'wal book %'"), 50)
        XCTAssertEqual(try bytes(store), main)
        XCTAssertEqual(try bytes(store + "-wal"), wal)
        XCTAssertFalse(FileManager.default.fileExists(atPath: store + "-shm"), "the -shm this run needed is removed")
    }
}
