import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// The store Core Data would have written: version hashes computed from the model, the
/// store's identity and metadata kept, keys kept, Core Data's indexes — checked against real
/// stores of ../shared/fixtures/coredata-corpus (copied to a temporary folder).
final class CoreDataStoreFidelityTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    // MARK: Version hashes

    /// Given the books Core Data pipeline and no template, when run, then the new store
    /// carries books-v3's hashes and digest, and the summary has no warning about them.
    func testTheBooksCoreDataPipelineNeedsNoTemplate() throws {
        let source = folder.path("v1.sqlite"), destination = folder.path("v3.sqlite")
        try BooksSample.write(rows: 200, seed: 2, to: source, layout: .coredata)
        let summary = try migrateBooks(source: source, destination: destination, pipeline: repositoryPath("pipelines/books-coredata.json"))
        XCTAssertFalse(summary.notes.contains { $0.contains("version hashes") }, "\(summary.notes)")
        let bundle = try ModelBundle.load(path: repositoryPath("pipelines/models/Books.xcdatamodeld"))
        let expected = try VersionHashes(model: try XCTUnwrap(bundle.version(named: "books-v3")))
        let metadata = try CoreDataMetadata.read(try Database(path: destination, mode: .readOnly))
        XCTAssertEqual(metadata.versionHashes, expected.entities)
        XCTAssertEqual(metadata.versionHashesDigest, expected.digest)
    }

    /// Bookmarks V1 and V2 have the same schema but not the same hashes: a V1 store as the
    /// template of version 2 is refused, naming the entity.
    func testATemplateOfAnotherVersionIsRefusedNamingTheEntity() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let out = folder.path("out.sqlite")
        let path = try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                               source: bookmarks.appendingPathComponent("Bookmarks_V1.sqlite"), destination: out,
                                               version: "BookmarksModel 2", template: bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path)
        assertRefusedAlike(Migration(pipeline: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("not created at model version BookmarksModel 2"), text)
            XCTAssertTrue(text.contains("entity BookmarkEntity"), text)
            XCTAssertTrue(text.contains(path), "names the pipeline: \(text)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: out))
    }

    /// Notes (with lines) in version n1, and n2 adding `extra` to Note.
    func writeNotesBundle(_ extra: String) throws -> URL {
        let bundle = folder.url.appendingPathComponent("Notes.xcdatamodeld")
        let lines = #"<relationship name="lines" optional="YES" toMany="YES" deletionRule="Cascade" destinationEntity="Line" inverseName="note" inverseEntity="Note"/>"#
            + #"</entity><entity name="Line"><relationship name="note" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Note" inverseName="lines" inverseEntity="Note"/>"#
        try ModelBundleFiles.write(bundle, versions: [("n1", ""), ("n2", extra)].map { version, extra in
            (version, #"<model><entity name="Note"><attribute name="body" optional="YES" attributeType="String"/>\#(extra)\#(lines)</entity></model>"#)
        })
        return bundle
    }

    /// A target version with a derived attribute (a count, whose triggers etl writes): its
    /// hash is not known with certainty, so the run refuses before any work, naming the
    /// entity and asking for a template.
    func testADerivedAttributeWithoutATemplateIsRefused() throws {
        let bundle = try writeNotesBundle("<attribute name=\"lineCount\" optional=\"YES\" attributeType=\"Integer 64\" derived=\"YES\" derivationExpression=\"lines.@count\"/>")
        let n1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "n1"))
        try writeEmptyCoreDataStore(of: n1, to: folder.path("notes.sqlite"))
        let path = try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: folder.path("notes.sqlite")),
                                               destination: folder.path("n2.sqlite"), version: "n2")
        assertRefusedAlike(Migration(pipeline: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("entity Note"), text)
            XCTAssertTrue(text.contains("derived"), text)
            XCTAssertTrue(text.contains("template"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("n2.sqlite")))
    }

    /// A derived attribute whose triggers etl does not know (facts §5 verifies only counts) is
    /// refused before any row is read, naming it: without its triggers the app's next save
    /// would leave the values stale.
    func testADerivationOfAnUnknownKindIsRefusedNamingIt() throws {
        let bundle = try writeNotesBundle("<attribute name=\"length\" optional=\"YES\" attributeType=\"Integer 64\" derived=\"YES\" derivationExpression=\"body.length\"/>")
        let n1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "n1"))
        try writeEmptyCoreDataStore(of: n1, to: folder.path("notes.sqlite"))
        for template in [nil, folder.path("notes.sqlite")] {
            let path = try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: folder.path("notes.sqlite")),
                                                   destination: folder.path("n2.sqlite"), version: "n2", template: template)
            assertRefusedAlike(Migration(pipeline: path)) { error in
                let text = "\(error)"
                XCTAssertTrue(text.contains("Note.length (derivationExpression 'body.length')"), text)
                XCTAssertTrue(text.contains("nothing is read"), text)
            }
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("n2.sqlite")))
        }
    }

    // MARK: Keys

    /// SampleModel V1 → SampleModel2 by an explicit step whose first mapping makes one new
    /// Car per maker (uniqueBy) in ZCAR, the table every car entity shares.
    func sampleStepPipeline(source: URL, bundle: URL, destination: String) throws -> String {
        try folder.coreDataPipeline(bundle: bundle, source: source, destination: destination, version: "SampleModel2", extra: """
            , "steps": [ { "from": "SampleModel", "to": "SampleModel2", "drop": ["Person.id"], "mappings": [
                { "name": "Makers", "source": "Car", "destination": "Car", "uniqueBy": "$source.maker",
                  "filter": "$source.maker != null",
                  "attributes": { "maker": "$source.maker", "numberPlate": "concat('maker ', $source.maker)" } },
                { "name": "Cars", "source": "Car", "destination": "Car",
                  "attributes": { "maker": "$source.maker", "model": "$source.model", "numberPlate": "$source.numberPlate" },
                  "relationships": { "owner": "destination('Persons', $source.owner)" } },
                { "name": "SportCars", "source": "SportCar", "destination": "SportCar",
                  "attributes": { "maker": "$source.maker", "model": "$source.model", "numberPlate": "$source.numberPlate" },
                  "relationships": { "owner": "destination('Persons', $source.owner)" } },
                { "name": "LuxuryCars", "source": "ExpensiveSportCar", "destination": "LuxuryCar",
                  "attributes": { "maker": "$source.maker", "model": "$source.model", "numberPlate": "$source.numberPlate",
                                  "isLimitedEdition": "$source.isLimitedEdition" },
                  "relationships": { "owner": "destination('Persons', $source.owner)" } },
                { "name": "Persons", "source": "Person", "destination": "Person",
                  "attributes": { "firstName": "$source.firstName", "lastName": "$source.lastName", "updatedAt": "$source.updatedAt" } }
            ] } ]
            """)
    }

    /// Given SampleModel V1 (cars of three entities sharing ZCAR, keys up to 125), when a
    /// step keeps every car and adds one per maker, then each car keeps its key and entity,
    /// the new cars get keys above 125, Z_MAX covers them, and row by row and pushed down
    /// write the same store.
    func testKeysSurviveInASharedTableAndNewRowsGoAboveThem() throws {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        let bundle = sample.appendingPathComponent("SampleModel.xcdatamodeld")
        var outputs: [String] = []
        for pushdown in [true, false] {
            let out = folder.path("out-\(pushdown).sqlite")
            var migration = Migration(pipeline: try sampleStepPipeline(source: source, bundle: bundle, destination: out))
            migration.pushdown = pushdown
            migration.chunkSize = 10
            _ = try migration.run()
            outputs.append(out)
            let db = try Database(path: out, mode: .readOnly)
            try db.execute("ATTACH DATABASE \(SQLValue.text(source.path).sqlLiteral) AS v1")
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM v1.ZCAR"), 125)
            XCTAssertEqual(try db.scalarInt("""
                SELECT count(*) FROM v1.ZCAR o JOIN main.ZCAR n ON n.Z_PK = o.Z_PK AND n.Z_ENT = o.Z_ENT AND n.ZNUMBERPLATE = o.ZNUMBERPLATE
                  AND n.ZOWNER IS o.ZOWNER
                """), 125, "every car keeps its key, entity and owner (pushdown \(pushdown))")
            // One new car per maker of entity Car (five makers), numbered from 126 on.
            XCTAssertEqual(try db.rows("SELECT count(*), min(Z_PK), max(Z_PK) FROM main.ZCAR WHERE ZNUMBERPLATE LIKE 'maker %'"),
                           [[.integer(5), .integer(126), .integer(130)]])
            XCTAssertEqual(try db.scalarInt("SELECT Z_MAX FROM main.Z_PRIMARYKEY WHERE Z_NAME = 'Car'"), try db.scalarInt("SELECT max(Z_PK) FROM main.ZCAR"))
        }
        try assertSameStore(outputs[0], outputs[1])
    }

    /// Gives every row of `tables` in `store` (a copy) a Z_OPT from 1 to 7 by its key, as
    /// rows an app saved several times have; returns (table, Z_PK, Z_OPT) of every row.
    func varyZOPT(_ store: URL, tables: [String]) throws -> [[SQLValue]] {
        let db = try Database(path: store.path, mode: .readWrite)
        defer { db.close() }
        var rows: [[SQLValue]] = []
        for table in tables {
            try db.execute("UPDATE \(table) SET Z_OPT = 1 + (Z_PK * 5) % 7")
            rows += try db.rows("SELECT '\(table)', Z_PK, Z_OPT FROM \(table) ORDER BY Z_PK")
        }
        XCTAssertTrue(rows.contains { $0[2] != .integer(1) })
        return rows
    }

    /// Rows that keep their key keep their Z_OPT (Core Data's migration does: facts §3), new
    /// rows have 1: SampleModel_V1 with varied Z_OPT values through SampleModel2, inferred
    /// and by the explicit step that adds a car per maker; and Bookmarks V1 through five hops,
    /// fused and apart; each pushed down and row by row.
    func testRowsKeepTheirZOPT() throws {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        let bundle = sample.appendingPathComponent("SampleModel.xcdatamodeld")
        let before = try varyZOPT(source, tables: ["ZCAR", "ZPERSON"])
        for pushdown in [true, false] {
            for explicit in [false, true] {
                let out = folder.path("sample-\(pushdown)-\(explicit).sqlite")
                var migration = Migration(pipeline: explicit ? try sampleStepPipeline(source: source, bundle: bundle, destination: out)
                                          : try folder.coreDataPipeline(bundle: bundle, source: source, destination: out, version: "SampleModel2",
                                                                        extra: #", "drop": ["Person.id"]"#))
                migration.options.pushdown = pushdown
                _ = try migration.run()
                let db = try Database(path: out, mode: .readOnly)
                var after: [[SQLValue]] = []
                for table in ["ZCAR", "ZPERSON"] {
                    after += try db.rows("SELECT '\(table)', Z_PK, Z_OPT FROM \(table) WHERE Z_PK <= 125 ORDER BY Z_PK")
                }
                XCTAssertEqual(after, before, "pushdown \(pushdown), explicit \(explicit)")
                if explicit {
                    XCTAssertEqual(try db.rows("SELECT DISTINCT Z_OPT FROM ZCAR WHERE ZNUMBERPLATE LIKE 'maker %'"), [[.integer(1)]], "the new cars")
                }
                db.close()
            }
        }

        let bookmarks = try folder.corpus("ddg-bookmarks")
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite")
        let saved = try varyZOPT(store, tables: ["ZBOOKMARKENTITY"])
        for (pushdown, fuse) in [(true, true), (true, false), (false, true), (false, false)] {
            let out = folder.path("bookmarks-\(pushdown)-\(fuse).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                                                            source: store, destination: out, extra: Self.dropIsFavorite))
            migration.options.pushdown = pushdown
            migration.options.fuseSteps = fuse
            _ = try migration.run()
            let db = try Database(path: out, mode: .readOnly)
            XCTAssertEqual(try db.rows("SELECT 'ZBOOKMARKENTITY', Z_PK, Z_OPT FROM ZBOOKMARKENTITY ORDER BY Z_PK"), saved,
                           "pushdown \(pushdown), fused \(fuse)")
            db.close()
        }
    }

    /// Stopped inside the create stage of a kept-key mapping of the shared table, then run
    /// again: the same store as a run never stopped.
    func testAStoppedRunResumesToTheSameKeys() throws {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        let bundle = sample.appendingPathComponent("SampleModel.xcdatamodeld")
        for pushdown in [true, false] {
            let reference = folder.path("reference-\(pushdown).sqlite"), out = folder.path("resumed-\(pushdown).sqlite")
            var whole = Migration(pipeline: try sampleStepPipeline(source: source, bundle: bundle, destination: reference))
            whole.chunkSize = 10
            whole.pushdown = pushdown
            _ = try whole.run()
            let cancellation = Cancellation()
            var stopped = Migration(pipeline: try sampleStepPipeline(source: source, bundle: bundle, destination: out))
            stopped.chunkSize = 10
            stopped.pushdown = pushdown
            stopped.cancellation = cancellation
            XCTAssertThrowsError(try stopped.run { event in
                if event.stage == .create, event.mapping == "Cars", event.done >= 50 { cancellation.cancel() }
            }) { error in
                guard case MigrationError.interrupted = error else { return XCTFail("\(error)") }
            }
            stopped.cancellation = nil
            let summary = try stopped.run()
            XCTAssertNotNil(summary.resumed, "pushdown \(pushdown)")
            try assertSameStore(reference, out)
        }
    }

    // MARK: Core Data as the oracle

    /// Every row of a table, by its columns in name order (column order may differ).
    func rows(_ db: Database, _ table: String, except: Set<String> = []) throws -> [[SQLValue]] {
        let columns = try XCTUnwrap(try db.table(named: table), table).columns.map(\.name).filter { !except.contains($0) }.sorted()
        return try db.rows("SELECT " + columns.map(Database.quote).joined(separator: ", ") + " FROM \(Database.quote(table)) ORDER BY "
                           + (1...columns.count).map(String.init).joined(separator: ", "))
    }

    /// Name → SQL of every index (SQLite's automatic ones have no SQL).
    func indexes(_ db: Database) throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try db.rows("SELECT name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { result[name] = sql }
        }
        return result
    }

    /// SampleModel_V1 migrated to SampleModel2 is SampleModel_V2, the store Core Data's own
    /// lightweight migration wrote: the same rows under the same Z_PK and Z_ENT in every
    /// table, the same indexes, hashes, digest and UUID. (Z_PRIMARYKEY.Z_NAME may keep Core
    /// Data's stale name; Z_MODELCACHE is Core Data's cache of its compiled model, which it
    /// rebuilds when absent.) Pushed down and row by row: dates keep every bit either way.
    func testSampleModelV1MigratedIsWhatCoreDataWrote() throws {
        let sample = try folder.corpus("coredataplus-samplemodel")
        for pushdown in [true, false] {
            try assertSampleModelV1Migrated(sample, pushdown: pushdown)
        }
    }

    func assertSampleModelV1Migrated(_ sample: URL, pushdown: Bool) throws {
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        let before = try bytes(source.path)
        let out = folder.path("V2-\(pushdown).sqlite")
        var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: sample.appendingPathComponent("SampleModel.xcdatamodeld"),
                                                                        source: source, destination: out, version: "SampleModel2",
                                                                        extra: #", "drop": ["Person.id"]"#))
        migration.pushdown = pushdown
        let summary = try migration.run()
        XCTAssertEqual(summary.drops.map { "\($0.name)=\($0.count)" }, ["Person.id=20"], "SampleModel2 has no Person.id: Core Data drops it too")
        XCTAssertFalse(summary.notes.contains { $0.contains("version hashes") }, "\(summary.notes)")
        XCTAssertEqual(try bytes(source.path), before)
        let ours = try Database(path: out, mode: .readOnly)
        let oracle = try Database(path: sample.appendingPathComponent("SampleModel_V2.sqlite").path, mode: .readOnly)
        let tables = try oracle.tables().map(\.name).filter { $0 != "Z_MODELCACHE" && $0 != "Z_METADATA" }.sorted()
        XCTAssertEqual(tables, ["ZCAR", "ZPERSON", "Z_PRIMARYKEY"])
        XCTAssertEqual(try ours.tables().map(\.name).filter { $0 != "Z_MODELCACHE" && $0 != "Z_METADATA" }.sorted(), tables)
        for table in tables {
            let except: Set<String> = table == "Z_PRIMARYKEY" ? ["Z_NAME"] : []
            XCTAssertEqual(try rows(ours, table, except: except), try rows(oracle, table, except: except), "\(table), pushdown \(pushdown)")
        }
        XCTAssertEqual(try indexes(ours), try indexes(oracle))
        let (mine, theirs) = (try CoreDataMetadata.read(ours), try CoreDataMetadata.read(oracle))
        XCTAssertEqual(mine.versionHashes, theirs.versionHashes)
        XCTAssertEqual(mine.versionHashesDigest, theirs.versionHashesDigest)
        XCTAssertEqual(mine.versionIdentifiers, theirs.versionIdentifiers)
        XCTAssertEqual(mine.storeUUID, theirs.storeUUID)
        XCTAssertEqual(try ours.rows("SELECT Z_UUID FROM Z_METADATA"), try oracle.rows("SELECT Z_UUID FROM Z_METADATA"))
    }

    /// BookmarksModel 3 removes `isFavorite` and adds `isPendingDeletion` (both Boolean):
    /// not a rename, though it looks like one to the guard on inferred steps. Favorites are
    /// already the `favoriteFolder`/`favorites` relationships in version 2 (in the V1 and V2
    /// stores `isFavorite` is 1 exactly where `favoriteFolder` is set), and
    /// `isPendingDeletion` is a new soft-delete flag: carried as a rename it would mark every
    /// favorite for deletion. So the pipelines say the removal is intended.
    static let dropIsFavorite = #", "drop": ["BookmarkEntity.isFavorite"]"#

    /// Every Bookmarks store, V1 to V5 (each with its -wal), upgrades to BookmarksModel 6:
    /// version found by its hashes, every row under its key, 6's hashes and indexes, and
    /// the source files byte for byte as they were.
    func testEveryBookmarksStoreUpgradesToTheCurrentVersion() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let bundle = bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld")
        let target = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "BookmarksModel 6"))
        let expected = try VersionHashes(model: target)
        let wanted = ["ZBOOKMARKENTITY_ZPARENT_INDEX", "Z_1FAVORITES_Z_1FAVORITES_INDEX", "Z_BookmarkEntity_isPendingDeletion",
                      "Z_BookmarkEntity_byUUID", "Z_BookmarkEntity_byURL", "Z_BookmarkEntity_byIsPendingDeletion"]
        for n in 1...5 {
            let store = bookmarks.appendingPathComponent("Bookmarks_V\(n).sqlite")
            // (The -shm is SQLite's shared-memory index of the -wal, which every reader writes.)
            let files = [store.path, store.path + "-wal"]
            let before = try files.map { try bytes($0) }
            let out = folder.path("bookmarks-\(n).sqlite")
            // Only the stores before 3 hold isFavorite (a "drop" naming nothing a hop removes is an error).
            let drop = n <= 2 ? Self.dropIsFavorite : ""
            let migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: store, destination: out, extra: drop))
            XCTAssertEqual(try migration.plan().sourceVersion, n == 1 ? "BookmarksModel" : "BookmarksModel \(n)")
            let summary = try migration.run()
            XCTAssertEqual(summary.mappings.map(\.dropped).reduce(0, +), n <= 2 ? 10 : 0,
                           "V\(n): the 10 isFavorite values of the 10 bookmarks, counted as dropped")
            XCTAssertEqual(try files.map { try bytes($0) }, before, "Bookmarks_V\(n) and its -wal are untouched")

            let db = try Database(path: out, mode: .readOnly)
            try db.execute("ATTACH DATABASE \(SQLValue.text(store.path).sqlLiteral) AS old")
            let metadata = try CoreDataMetadata.read(db)
            XCTAssertEqual(metadata.versionHashes, expected.entities, "V\(n)")
            XCTAssertEqual(metadata.versionHashesDigest, expected.digest, "V\(n)")
            XCTAssertEqual(metadata.storeUUID, try CoreDataMetadata.read(try Database(path: store.path, mode: .readOnly)).storeUUID)
            // The model's indexes, and those of the source Core Data keeps (facts §4.1): V2's
            // twins of its one-element fetch indexes, Z_BookmarkEntity_uuid and _url; not the
            // index of the to-one favoriteFolder of V1-V3, whose column goes (now a many-to-many).
            let kept = Set(try indexes(try Database(path: store.path, mode: .readOnly)).keys).subtracting(["ZBOOKMARKENTITY_ZFAVORITEFOLDER_INDEX"])
            XCTAssertEqual(Set(try indexes(db).keys), Set(wanted).union(kept), "V\(n)")
            XCTAssertEqual(kept.subtracting(wanted), n == 2 ? ["Z_BookmarkEntity_uuid", "Z_BookmarkEntity_url"] : [], "V\(n)")
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM old.ZBOOKMARKENTITY"), try db.scalarInt("SELECT count(*) FROM main.ZBOOKMARKENTITY"))
            XCTAssertEqual(try db.scalarInt("""
                SELECT count(*) FROM old.ZBOOKMARKENTITY o JOIN main.ZBOOKMARKENTITY m
                  ON m.Z_PK = o.Z_PK AND m.ZUUID = o.ZUUID AND m.ZTITLE IS o.ZTITLE AND m.ZPARENT IS o.ZPARENT
                """), try db.scalarInt("SELECT count(*) FROM old.ZBOOKMARKENTITY"), "every bookmark keeps its key, title and parent (V\(n))")
            XCTAssertEqual(try db.scalarInt("SELECT Z_MAX FROM main.Z_PRIMARYKEY"), try db.scalarInt("SELECT max(Z_PK) FROM main.ZBOOKMARKENTITY"))
            db.close()
        }
    }

    // MARK: Order

    /// Each list of an ordered to-many of a Bookmarks store: (owner, member, Z_FOK_) of every
    /// folder's children, and of every favourites list, stored by the favourite's
    /// ZFAVORITEFOLDER (V1–V3, a to-one inverse) or in the join table Z_1FAVORITES (from V4).
    func orderedLists(_ db: Database, schema: String) throws -> (children: [[SQLValue]], favorites: [[SQLValue]]) {
        let children = try db.rows("SELECT ZPARENT, Z_PK, Z_FOK_PARENT FROM \(schema).ZBOOKMARKENTITY WHERE ZPARENT IS NOT NULL ORDER BY 1, 3")
        let favorites = try db.scalarInt("SELECT count(*) FROM \(schema).sqlite_schema WHERE name = 'Z_1FAVORITES'") == 1
            ? try db.rows("SELECT Z_1FAVORITEFOLDERS, Z_1FAVORITES, Z_FOK_1FAVORITES FROM \(schema).Z_1FAVORITES ORDER BY 1, 3")
            : try db.rows("SELECT ZFAVORITEFOLDER, Z_PK, Z_FOK_FAVORITEFOLDER FROM \(schema).ZBOOKMARKENTITY WHERE ZFAVORITEFOLDER IS NOT NULL ORDER BY 1, 3")
        return (children, favorites)
    }

    /// Every Bookmarks store upgraded to the current version (and V1 to V2, the same schema)
    /// keeps each folder's children and each favourites list in the source's order, under the
    /// source's Z_FOK_ values (Core Data's migration copies them: facts §2), pushed down and
    /// row by row, the hops fused and apart. (They were renumbered 1, 2, … in key order: V4's
    /// folder 5 listed 2, 9, 4, 1, 8 came out 1, 2, 4, 8, 9.)
    func testOrderedRelationshipsKeepTheSourcesOrderAndValues() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let bundle = bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld")
        let runs = (1...5).map { ($0, "BookmarksModel 6") } + [(1, "BookmarksModel 2")]
        for (n, version) in runs {
            let store = bookmarks.appendingPathComponent("Bookmarks_V\(n).sqlite")
            let drop = n <= 2 && version != "BookmarksModel 2" ? Self.dropIsFavorite : ""
            for (pushdown, fuse) in [(true, true), (true, false), (false, true), (false, false)] {
                let what = "V\(n) → \(version), pushdown \(pushdown), fused \(fuse)"
                let out = folder.path("bookmarks-\(n)-\(version.suffix(1))-\(pushdown)-\(fuse).sqlite")
                var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: store, destination: out,
                                                                                version: version, extra: drop))
                migration.options.pushdown = pushdown
                migration.options.fuseSteps = fuse
                let summary = try migration.run()
                XCTAssertFalse(summary.notes.contains { $0.contains("order of") }, "\(what): \(summary.notes)")
                let db = try Database(path: out, mode: .readOnly)
                try db.execute("ATTACH DATABASE \(SQLValue.text(store.path).sqlLiteral) AS old")
                let source = try orderedLists(db, schema: "old"), written = try orderedLists(db, schema: "main")
                XCTAssertFalse(source.children.isEmpty || source.favorites.isEmpty)
                XCTAssertEqual(written.children, source.children, what)
                XCTAssertEqual(written.favorites, source.favorites, what)
                db.close()
            }
        }
    }

    /// Bookmarks' hops run two by two as one step (`StepFusion`) though BookmarksModel 5 has
    /// ordered to-manys (children, favorites) and a to-one of `maxCount` 1 (parent), and adds
    /// an attribute no hop writes (`lastChildrenPayloadReceivedFromSync`, null): every store,
    /// V1 to V5, comes out the same fused as with the hops apart, rows, positions, schema
    /// and metadata. (They were refused: "relationship … children is required, counted or
    /// ordered, which its store checks".)
    func testTheBookmarksHopsFusedGiveTheStoreOfTheHopsApart() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let bundle = bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld")
        for n in 1...5 {
            let store = bookmarks.appendingPathComponent("Bookmarks_V\(n).sqlite")
            let drop = n <= 2 ? Self.dropIsFavorite : ""
            var outputs: [String] = []
            for fuse in [true, false] {
                let out = folder.path("bookmarks-\(n)-\(fuse).sqlite")
                var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: store, destination: out, extra: drop))
                migration.options.fuseSteps = fuse
                let plan = try migration.plan()
                let summary = try migration.run()
                if n == 4 {
                    // 4 → 5 → 6: both hops inferred, as one.
                    XCTAssertEqual(Set(summary.mappings.map(\.step)).count, fuse ? 1 : 2, "V4, fused \(fuse): \(plan.fusionRefusals)")
                }
                outputs.append(out)
            }
            try assertSameStore(outputs[0], outputs[1])
            let schemas = try outputs.map { try Database(path: $0, mode: .readOnly).rows("SELECT type, name, sql FROM sqlite_schema ORDER BY name") }
            XCTAssertEqual(schemas[0], schemas[1], "V\(n)")
        }
    }

    // MARK: Join tables

    /// A self-referencing many-to-many whose table the source store names by the other
    /// relationship than etl's convention would (Core Data's choice cannot be told from the
    /// model: facts §1.2 b) is found there by its columns, and the migrated store keeps that
    /// table's name and column order, with every link; pushed down and row by row.
    func testASelfReferencingJoinTableKeepsTheSourcesLayout() throws {
        let client = """
            <entity name="Client">
                <attribute name="label" optional="YES" attributeType="String"/>%@
                <relationship name="ignoredByClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredClients" inverseEntity="Client"/>
                <relationship name="ignoredClients" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Client" inverseName="ignoredByClients" inverseEntity="Client"/>
            </entity>
            """
        let bundle = folder.url.appendingPathComponent("Clients.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("c1", ModelBundleFiles.model(client.replacingOccurrences(of: "%@", with: ""))),
            ("c2", ModelBundleFiles.model(client.replacingOccurrences(of: "%@", with: #"<attribute name="seen" optional="YES" attributeType="Date"/>"#))),
        ], current: "c2")
        let c1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "c1"))
        let source = folder.path("clients.sqlite")
        try writeEmptyCoreDataStore(of: c1, to: source)
        let layout = "CREATE TABLE Z_1IGNOREDBYCLIENTS ( Z_1IGNOREDCLIENTS INTEGER, Z_1IGNOREDBYCLIENTS INTEGER, PRIMARY KEY (Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS) )"
        let db = try Database(path: source, mode: .readWrite)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'Z_1IGNOREDCLIENTS'"), 1, "etl's convention names it so")
        try db.execute("DROP TABLE Z_1IGNOREDCLIENTS")
        try db.execute(layout)
        try db.execute("INSERT INTO ZCLIENT (Z_PK, Z_ENT, Z_OPT, ZLABEL) VALUES (1, 1, 1, 'self'), (2, 1, 1, 'b'), (3, 1, 1, 'c')")
        // The self client (1) ignores 2 and 3; 3 ignores 2.
        try db.execute("INSERT INTO Z_1IGNOREDBYCLIENTS (Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS) VALUES (2, 1), (3, 1), (2, 3)")
        try db.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 3")
        db.close()
        for pushdown in [true, false] {
            let out = folder.path("clients-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: source), destination: out))
            migration.options.pushdown = pushdown
            _ = try migration.run()
            let written = try Database(path: out, mode: .readOnly)
            XCTAssertEqual(try written.rows("SELECT sql FROM sqlite_schema WHERE name LIKE 'Z_1IGNORED%' AND type = 'table'"), [[.text(layout)]], "pushdown \(pushdown)")
            XCTAssertEqual(try written.rows("SELECT sql FROM sqlite_schema WHERE tbl_name = 'Z_1IGNOREDBYCLIENTS' AND type = 'index' AND sql IS NOT NULL"),
                           [[.text("CREATE INDEX Z_1IGNOREDBYCLIENTS_Z_1IGNOREDBYCLIENTS_INDEX ON Z_1IGNOREDBYCLIENTS (Z_1IGNOREDBYCLIENTS, Z_1IGNOREDCLIENTS)")]])
            XCTAssertEqual(try written.rows("SELECT Z_1IGNOREDCLIENTS, Z_1IGNOREDBYCLIENTS FROM Z_1IGNOREDBYCLIENTS ORDER BY 1, 2"),
                           [[.integer(2), .integer(1)], [.integer(2), .integer(3)], [.integer(3), .integer(1)]])
            written.close()
        }
    }

    /// A source's indexes are read but never required: Bookmarks V4 without any of its
    /// indexes is still found at version 4, migrated, validated, and the new store has every
    /// index of BookmarksModel 6.
    func testASourceWithoutItsIndexesIsStillRecognisedAndMigrated() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let store = bookmarks.appendingPathComponent("Bookmarks_V4.sqlite")
        let db = try Database(path: store.path, mode: .readWrite)
        let names = try db.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL").compactMap { row -> String? in
            if case .text(let name) = row[0] { return name } else { return nil }
        }
        XCTAssertFalse(names.isEmpty)
        for name in names { try db.execute("DROP INDEX \(Database.quote(name))") }
        db.close()
        let out = folder.path("out.sqlite")
        let migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                                                        source: store, destination: out))
        XCTAssertEqual(try migration.plan().sourceVersion, "BookmarksModel 4")
        _ = try migration.run()
        XCTAssertEqual(Set(try indexes(try Database(path: out, mode: .readOnly)).keys),
                       ["ZBOOKMARKENTITY_ZPARENT_INDEX", "Z_1FAVORITES_Z_1FAVORITES_INDEX", "Z_BookmarkEntity_isPendingDeletion",
                        "Z_BookmarkEntity_byUUID", "Z_BookmarkEntity_byURL", "Z_BookmarkEntity_byIsPendingDeletion"])
    }

    // MARK: Metadata

    /// A store whose metadata carries an app's own key keeps it, and its UUID, through a
    /// progressive migration (Bookmarks V1 → 6, five hops); only the model keys change.
    func testAnAppMetadataKeySurvivesAProgressiveMigration() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite")
        let writer = try Database(path: store.path, mode: .readWrite)
        let original = try CoreDataMetadata.read(writer)
        guard case .blob(let bytes)? = try writer.rows("SELECT Z_PLIST FROM Z_METADATA").first?[0],
              var plist = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: Any] else {
            return XCTFail("no metadata plist")
        }
        plist["com.example.lastSyncToken"] = "token-42"
        try writer.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(Array(try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)))])
        writer.close()

        let out = folder.path("out.sqlite")
        let summary = try Migration(pipeline: try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                                                          source: store, destination: out, version: "BookmarksModel 6",
                                                                          extra: Self.dropIsFavorite)).run()
        // One inferred hop per version; 3 → 4 and 4 → 5 run as one (`StepFusion`), the hops
        // around 2 → 3 apart (it drops, counted in its own source).
        XCTAssertEqual(summary.mappings.map(\.step), ["BookmarksModel to BookmarksModel 2 (inferred)",
                                                       "BookmarksModel 2 to BookmarksModel 3 (inferred)",
                                                       "BookmarksModel 3 to BookmarksModel 4 (inferred) + BookmarksModel 4 to BookmarksModel 5 (inferred)",
                                                       "BookmarksModel 5 to BookmarksModel 6 (inferred)"])
        XCTAssertEqual(summary.mappings.map(\.dropped), [0, 10, 0, 0], "2 → 3 drops the 10 isFavorite values")
        XCTAssertEqual(summary.drops.map(\.described),
                       [#"step BookmarksModel 2 to BookmarksModel 3 (inferred) dropped BookmarkEntity.isFavorite: 10 non-null values (as the pipeline's "drop" says)"#])
        let db = try Database(path: out, mode: .readOnly)
        guard case .blob(let written)? = try db.rows("SELECT Z_PLIST FROM Z_METADATA").first?[0],
              let result = try PropertyListSerialization.propertyList(from: Data(written), options: [], format: nil) as? [String: Any] else {
            return XCTFail("no metadata plist")
        }
        XCTAssertEqual(result["com.example.lastSyncToken"] as? String, "token-42")
        let metadata = try CoreDataMetadata.read(db)
        XCTAssertEqual(metadata.storeUUID, original.storeUUID)
        XCTAssertNotEqual(metadata.versionHashes, original.versionHashes, "the model keys are 6's")
    }

    /// Z_METADATA as Core Data writes it (facts §7): no NSStoreUUID key in the plist (the
    /// UUID, the source's, is in Z_UUID), NSPersistenceFrameworkVersion of the framework the
    /// layout claims (not the source's 1251), and the app's keys with their types: a real 1.0
    /// stays a real, an integer an integer, a boolean a boolean.
    func testMetadataIsWrittenAsCoreDataWritesIt() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite")
        let writer = try Database(path: store.path, mode: .readWrite)
        guard case .blob(let bytes)? = try writer.rows("SELECT Z_PLIST FROM Z_METADATA").first?[0],
              var plist = try PropertyListSerialization.propertyList(from: Data(bytes), options: [], format: nil) as? [String: Any] else {
            return XCTFail("no metadata plist")
        }
        plist["com.example.schemaVersion"] = 1.0
        plist["com.example.count"] = 1
        plist["com.example.enabled"] = true
        plist["com.example.nested"] = ["ratio": 2.0, "name": "x"] as [String: Any]
        try writer.run("UPDATE Z_METADATA SET Z_PLIST = ?", [.blob(Array(try PropertyListSerialization.data(fromPropertyList: plist, format: .binary, options: 0)))])
        let uuid = try writer.rows("SELECT Z_UUID FROM Z_METADATA")
        writer.close()
        func keys(_ path: String) throws -> [String: PropertyListValue] {
            let db = try Database(path: path, mode: .readOnly)
            defer { db.close() }
            guard case .blob(let bytes)? = try db.rows("SELECT Z_PLIST FROM Z_METADATA").first?[0],
                  case .dictionary(let keys) = try BinaryPropertyList.read(bytes) else { XCTFail("no plist in \(path)"); return [:] }
            return keys
        }
        let app = try keys(store.path).filter { $0.key.hasPrefix("com.example.") }
        XCTAssertEqual(app["com.example.schemaVersion"], .real(1.0), "the source holds a real")
        XCTAssertEqual(app["com.example.count"], .integer(1))
        XCTAssertEqual(try keys(store.path)["NSPersistenceFrameworkVersion"], .integer(1251))

        for pushdown in [true, false] {
            let out = folder.path("out-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                                                            source: store, destination: out, extra: Self.dropIsFavorite))
            migration.options.pushdown = pushdown
            _ = try migration.run()
            let written = try keys(out)
            XCTAssertNil(written["NSStoreUUID"], "pushdown \(pushdown)")
            XCTAssertEqual(written["NSPersistenceFrameworkVersion"], .integer(Int64(CoreDataMetadata.defaultFrameworkVersion)))
            XCTAssertEqual(written.filter { $0.key.hasPrefix("com.example.") }, app, "pushdown \(pushdown)")
            XCTAssertNotNil(written["NSStoreModelVersionHashesDigest"], "written by every framework from 977 on")
            XCTAssertEqual(try Database(path: out, mode: .readOnly).rows("SELECT Z_UUID FROM Z_METADATA"), uuid)
        }
    }

    /// `"newStoreUUID": true` gives the destination a UUID of its own; without it the
    /// source's is kept. On a plain destination the key is refused by name.
    func testANewStoreUUIDWhenThePipelineSaysSo() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let store = bookmarks.appendingPathComponent("Bookmarks_V5.sqlite")
        let sourceUUID = try CoreDataMetadata.read(try Database(path: store.path, mode: .readOnly)).storeUUID
        for (fresh, layout) in [(true, "coredata"), (false, "coredata"), (true, "plain")] {
            let out = folder.path("out-\(fresh)-\(layout).sqlite")
            let path = try folder.pipeline("uuid-\(fresh)-\(layout).json", """
                { "format": 1, "models": "\(bookmarks.path)/BookmarksModel.xcdatamodeld",
                  "source": { "store": "\(store.path)", "layout": "coredata" },
                  "destination": { "store": "\(out)", "layout": "\(layout)", "newStoreUUID": \(fresh) } }
                """)
            if layout == "plain" {
                assertRefusedAlike(Migration(pipeline: path)) { error in
                    XCTAssertTrue("\(error)".contains("$.destination.newStoreUUID"), "\(error)")
                }
                continue
            }
            _ = try Migration(pipeline: path).run()
            let uuid = try CoreDataMetadata.read(try Database(path: out, mode: .readOnly)).storeUUID
            XCTAssertNotNil(uuid)
            fresh ? XCTAssertNotEqual(uuid, sourceUUID) : XCTAssertEqual(uuid, sourceUUID)
        }
    }

    // MARK: Uniqueness constraints

    /// Car.numberPlate is unique in SampleModel2: a step that gives every car its maker as
    /// number plate fails validation naming the entity, the values and keys, and the old
    /// destination stays as it was.
    func testAViolatedUniquenessConstraintFailsNamingTheDuplicates() throws {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let out = folder.path("out.sqlite")
        try Data("the old destination".utf8).write(to: URL(fileURLWithPath: out))
        let path = try folder.coreDataPipeline(bundle: sample.appendingPathComponent("SampleModel.xcdatamodeld"),
                                               source: sample.appendingPathComponent("SampleModel_V1.sqlite"), destination: out, version: "SampleModel2",
                                               extra: """
            , "steps": [ { "from": "SampleModel", "to": "SampleModel2",
                "drop": ["Car.model", "Car.numberPlate", "Car.owner", "ExpensiveSportCar", "Person.id", "SportCar"], "mappings": [
                { "name": "Cars", "source": "Car", "destination": "Car", "attributes": { "numberPlate": "$source.maker" } },
                { "name": "Persons", "source": "Person", "destination": "Person",
                  "attributes": { "firstName": "$source.firstName", "lastName": "$source.lastName", "updatedAt": "$source.updatedAt" } }
            ] } ]
            """)
        for pushdown in [true, false] {
            var migration = Migration(pipeline: path)
            migration.replace = .force
            migration.pushdown = pushdown
            assertMigrationError(try migration.run(), contains: [
                "entity Car", "numberPlate = 'FIAT' (keys 1, 2, 3, 4, 5, …)", "103 rows have numberPlate = 'FIAT'",
                "the model makes numberPlate unique"])
            XCTAssertEqual(try bytes(out), Data("the old destination".utf8), "pushdown \(pushdown)")
        }
    }

    // MARK: Merged models

    /// A store an app opens with BookmarksModel 2 merged with SyncMetadata 3 (a model built
    /// from two modules, NSManagedObjectModel(byMerging:)): detected as that combination by
    /// its hashes, upgraded one version of one bundle at a time to both current versions,
    /// with the merged model's hashes and every row under its key.
    func testAStoreOfAMergedModelUpgradesOverTheMergedModel() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks").appendingPathComponent("BookmarksModel.xcdatamodeld")
        let sync = try folder.corpus("ddg-syncmetadata").appendingPathComponent("SyncMetadata.xcdatamodeld")
        let (b, s) = (try ModelBundle.load(path: bookmarks.path), try ModelBundle.load(path: sync.path))
        let start = try MergedModel.merge([try XCTUnwrap(b.version(named: "BookmarksModel 2")), try XCTUnwrap(s.version(named: "SyncMetadata 3"))])
        let layout = CoreDataLayout(model: start)
        let app = folder.path("app.sqlite")
        let db = try Database(path: app, mode: .create)
        for sql in layout.schemaSQL() { try db.execute(sql) }
        let bookmark = layout.entityNumber(of: "BookmarkEntity")!, feature = layout.entityNumber(of: "SyncFeatureEntity")!
        try db.execute("""
            INSERT INTO ZBOOKMARKENTITY (Z_PK, Z_ENT, Z_OPT, ZISFAVORITE, ZISFOLDER, ZUUID, ZTITLE)
              VALUES (3, \(bookmark), 1, 0, 1, 'root', 'Root'), (7, \(bookmark), 1, 1, 0, 'b7', 'Swift');
            UPDATE ZBOOKMARKENTITY SET ZPARENT = 3 WHERE Z_PK = 7;
            INSERT INTO ZSYNCFEATUREENTITY (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSTATE) VALUES (5, \(feature), 1, 'bookmarks', 'enabled');
            """)
        try layout.finish(db)
        db.close()

        let inspection = try StoreInspection.inspect(path: app, bundle: bookmarks.path, mergedWith: [sync.path])
        guard case .success(let detected)? = inspection.version else { return XCTFail("\(String(describing: inspection.version))") }
        XCTAssertEqual(detected.version, "BookmarksModel 2 + SyncMetadata 3")
        XCTAssertEqual(detected.hashMatches, ["BookmarksModel 2 + SyncMetadata 3"], "BookmarksModel + SyncMetadata 3 has the same schema")

        let out = folder.path("app-current.sqlite")
        let path = try folder.pipeline("merged.json", """
            { "format": 1, "models": ["\(bookmarks.path)", "\(sync.path)"],
              "source": { "store": "\(app)", "layout": "coredata" },
              "destination": { "store": "\(out)", "layout": "coredata" }\(Self.dropIsFavorite) }
            """)
        let migration = Migration(pipeline: path)
        let plan = try migration.plan()
        XCTAssertEqual(plan.sourceVersion, "BookmarksModel 2 + SyncMetadata 3")
        XCTAssertEqual(plan.targetVersion, "BookmarksModel 6 + SyncMetadata 4")
        XCTAssertEqual(plan.steps.count, 5, "BookmarksModel 2 → 6, then SyncMetadata 3 → 4")
        let summary = try migration.run()
        XCTAssertEqual(summary.mappings.filter { $0.source == "BookmarkEntity" }.map(\.dropped), [2, 0, 0, 0, 0],
                       "2 → 3 drops the isFavorite values of both bookmarks")

        let result = try Database(path: out, mode: .readOnly)
        let target = try MergedModel.merge([try XCTUnwrap(b.version(named: "BookmarksModel 6")), try XCTUnwrap(s.version(named: "SyncMetadata 4"))])
        let metadata = try CoreDataMetadata.read(result)
        XCTAssertEqual(metadata.versionHashes, try VersionHashes(model: target).entities)
        XCTAssertEqual(metadata.versionHashesDigest, try VersionHashes(model: target).digest)
        XCTAssertEqual(try result.rows("SELECT Z_PK, ZTITLE, ZPARENT FROM ZBOOKMARKENTITY ORDER BY Z_PK"),
                       [[.integer(3), .text("Root"), .null], [.integer(7), .text("Swift"), .integer(3)]])
        XCTAssertEqual(try result.rows("SELECT Z_PK, ZNAME, ZSTATE FROM ZSYNCFEATUREENTITY"), [[.integer(5), .text("bookmarks"), .text("enabled")]])
    }

    /// Steps cannot be given with several bundles, and two bundles with an entity of one
    /// name cannot be merged: both said before any row is read.
    func testMergedBundlesRefuseStepsAndClashingEntities() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let bundle = bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld").path
        let store = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path
        let withSteps = try folder.pipeline("steps.json", """
            { "format": 1, "models": ["\(bundle)", "\(bundle)"],
              "source": { "store": "\(store)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("x.sqlite"))", "layout": "coredata" },
              "steps": [ { "from": "a", "to": "b", "mappings": [ { "name": "M", "source": "BookmarkEntity", "destination": "BookmarkEntity" } ] } ] }
            """)
        XCTAssertThrowsError(try Migration(pipeline: withSteps).plan()) { error in
            XCTAssertTrue("\(error)".contains("explicit steps are not supported with several merged bundles"), "\(error)")
        }
        let twice = try folder.pipeline("twice.json", """
            { "format": 1, "models": ["\(bundle)", "\(bundle)"],
              "source": { "store": "\(store)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("x.sqlite"))", "layout": "coredata" } }
            """)
        XCTAssertThrowsError(try Migration(pipeline: twice).plan()) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("$.models"), text)
            XCTAssertTrue(text.contains("entity BookmarkEntity is in both BookmarksModel and BookmarksModel"), text)
        }
    }
}
