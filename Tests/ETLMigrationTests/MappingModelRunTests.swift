import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport
import CarMakersPolicy

/// Xcode mapping models run as pipeline steps: `{ "from", "to", "mappingModel" }` in a
/// bundle pipeline, on the real stores and mapping models of the corpus.
final class MappingModelRunTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// A bundle pipeline from `source` to `version` with `steps` (JSON), into `out` in the folder.
    func pipeline(bundle: URL, source: URL, version: String, out: String, steps: String) throws -> String {
        try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path(out), version: version,
                                    extra: ", \"steps\": [ \(steps) ]")
    }

    /// The dump of every table but Z_METADATA, whose store UUID each run makes anew.
    func tablesButMetadata(_ name: String) throws -> [String] {
        try storeDump(folder.path(name), excluding: ["Z_METADATA"])
    }

    // MARK: ctdatastoremanager

    func testTestMigrationStoreUpgradesThroughBothMappingModelsLikeTheHandWrittenPipeline() throws {
        let set = try folder.corpus("ctdatastoremanager")
        let bundle = set.appendingPathComponent("TestMigrationStore.xcdatamodeld")
        let store = set.appendingPathComponent("TestMigrationStore_version_1.sqlite")
        let before = try bytes(store.path)
        let byMappingModels = try pipeline(bundle: bundle, source: store, version: "TestMigrationStore 3", out: "by-mapping-models.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_1_2.xcmappingmodel" },
            { "from": "TestMigrationStore 2", "to": "TestMigrationStore 3", "mappingModel": "\(set.path)/TestMigrationStore_2_3.xcmappingmodel" }
            """)
        let byHand = try pipeline(bundle: bundle, source: store, version: "TestMigrationStore 3", out: "by-hand.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappings": [
                { "source": "Entity", "destination": "Entity", "attributes": { "date": "$source.date" } } ] },
            { "from": "TestMigrationStore 2", "to": "TestMigrationStore 3", "mappings": [
                { "source": "Entity", "destination": "Entity", "attributes": { "date": "$source.date", "name": "$source.name" } } ] }
            """)
        // The two hops run as one (`StepFusion`: version 2's `name` is left null by the first,
        // read as null by the second), and give the store of the hops apart.
        let summary = try Migration(pipeline: byMappingModels).run()
        XCTAssertEqual(summary.mappings.map(\.step), ["TestMigrationStore to TestMigrationStore 2 + TestMigrationStore 2 to TestMigrationStore 3"])
        XCTAssertEqual(summary.mappings.map(\.written), [3])
        var apart = Migration(pipeline: try pipeline(bundle: bundle, source: store, version: "TestMigrationStore 3", out: "apart.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_1_2.xcmappingmodel" },
            { "from": "TestMigrationStore 2", "to": "TestMigrationStore 3", "mappingModel": "\(set.path)/TestMigrationStore_2_3.xcmappingmodel" }
            """))
        apart.options.fuseSteps = false
        XCTAssertEqual(try apart.run().mappings.map(\.written), [3, 3])
        XCTAssertEqual(try tablesButMetadata("apart.sqlite"), try tablesButMetadata("by-mapping-models.sqlite"))
        _ = try Migration(pipeline: byHand).run()

        let out = try Database(path: folder.path("by-mapping-models.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZENTITY WHERE ZDATE IS NOT NULL"), 3, "every date carried through both hops")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZENTITY WHERE ZNAME IS NULL AND ZATTRIBUTE IS NULL"), 3)
        let dumps = try ["by-mapping-models.sqlite", "by-hand.sqlite"].map(tablesButMetadata)
        let entityTable = dumps[0].drop { !$0.hasPrefix("## ZENTITY(") }.dropFirst().prefix { !$0.hasPrefix("## ") }
        XCTAssertEqual(entityTable.count, 3, "three rows")
        XCTAssertEqual(dumps[0], dumps[1])
        XCTAssertEqual(try bytes(store.path), before, "the source must not change")
    }

    // MARK: coredataplus-samplemodel and the ported V2to3MakerPolicy

    /// The example's pipeline `name` (Examples/CarMakers) beside a copy of the fixture set,
    /// as the example's instructions lay it out.
    func examplePipeline(_ name: String) throws -> String {
        _ = try folder.corpus("coredataplus-samplemodel")
        let path = folder.path(name)
        try FileManager.default.copyItem(atPath: repositoryPath("Examples/CarMakers/\(name)"), toPath: path)
        return path
    }

    /// What CoreDataPlus's own test expects of V2 → V3, on the store `path`.
    func assertMakersAndPreviousOwners(_ path: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let source = try Database(path: folder.path("fixtures/coredataplus-samplemodel/SampleModel_V2.sqlite"), mode: .readOnly)
        let out = try Database(path: path, mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZMAKER"), 10, file: file, line: line)
        XCTAssertEqual(try out.scalarInt("SELECT count(DISTINCT ZNAME) FROM ZMAKER"), 10, file: file, line: line)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR"), 125, file: file, line: line)
        // Every car is linked to the maker named in its V2 row (matched by number plate).
        let makers = try out.rows("SELECT c.ZNUMBERPLATE, m.ZNAME FROM ZCAR c LEFT JOIN ZMAKER m ON m.Z_PK = c.ZCREATEDBY ORDER BY 1")
        XCTAssertEqual(makers, try source.rows("SELECT ZNUMBERPLATE, ZMAKER FROM ZCAR ORDER BY 1"), file: file, line: line)
        // A car with an owner has exactly that owner among its previous owners (the join
        // table is both Car.previousOwners and Person.previousCars); one without has none.
        let table = try out.tables().map(\.name).first { $0.hasPrefix("Z_") && $0.hasSuffix("PREVIOUSOWNERS") || $0.hasSuffix("PREVIOUSCARS") }
        let join = try XCTUnwrap(table, "the many-to-many join table", file: file, line: line)
        let columns = try out.tables().first { $0.name == join }!.columns.map(\.name)
        let carColumn = try XCTUnwrap(columns.first { $0.contains("CARS") || $0.contains("PREVIOUSCARS") }, "\(columns)", file: file, line: line)
        let personColumn = try XCTUnwrap(columns.first { $0 != carColumn }, file: file, line: line)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR WHERE ZOWNER IS NOT NULL"), 118, file: file, line: line)
        XCTAssertEqual(try out.rows("SELECT \(carColumn), \(personColumn) FROM \(join) ORDER BY 1, 2"),
                       try out.rows("SELECT Z_PK, ZOWNER FROM ZCAR WHERE ZOWNER IS NOT NULL ORDER BY 1, 2"), file: file, line: line)
    }

    func testSampleModelV2UpgradesThroughTheMappingModelWithThePortedPolicy() throws {
        let path = try examplePipeline("v2-to-v3.json")
        let store = folder.path("fixtures/coredataplus-samplemodel/SampleModel_V2.sqlite")
        let before = try bytes(store)
        let summary = try Migration(pipeline: path, policies: CarMakers.policies).run()
        XCTAssertEqual(try bytes(store), before, "the source must not change")
        XCTAssertEqual(summary.mappings.map(\.mapping), ["CarToCar", "LuxuryCarToLuxuryCar", "PersonToPerson", "SportCarToSportCar",
                                                         "CarToCar/Maker", "LuxuryCarToLuxuryCar/Maker", "SportCarToSportCar/Maker"])
        // Makers shared by SportCar and LuxuryCar are made once (5 + 5 + 0 of 125 cars).
        XCTAssertEqual(summary.mappings.suffix(3).map(\.written), [5, 5, 0])
        try assertMakersAndPreviousOwners(folder.path("SampleModel_V3.sqlite"))
        // The policy's cars are the rows its mappings declare: each keeps its V2 key and entity.
        let out = try Database(path: folder.path("SampleModel_V3.sqlite"), mode: .readOnly)
        try out.execute("ATTACH DATABASE \(SQLValue.text(store).sqlLiteral) AS src")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR c JOIN src.ZCAR s ON s.Z_PK = c.Z_PK AND s.Z_ENT = c.Z_ENT AND s.ZNUMBERPLATE = c.ZNUMBERPLATE"), 125)
        XCTAssertEqual(try out.rows("SELECT ZMODEL FROM ZCAR WHERE Z_PK = 14"), [[.text("570GT")]], "the McLaren is still p14")

        // The store Core Data would have written at SampleModel3: its version hashes as computed
        // from the model, the source's UUID, and Core Data's indexes, named and defined as Core
        // Data does (the patterns of SampleModel_V2.sqlite and bnr-coredatastack's many-to-many).
        let bundle = try ModelBundle.load(path: folder.path("fixtures/coredataplus-samplemodel/SampleModel.xcdatamodeld"))
        let expected = try VersionHashes(model: try XCTUnwrap(bundle.version(named: "SampleModel3")))
        let metadata = try CoreDataMetadata.read(out)
        XCTAssertEqual(metadata.versionHashes.keys.sorted(), ["Car", "LuxuryCar", "Maker", "Person", "SportCar"])
        XCTAssertEqual(metadata.versionHashes, expected.entities)
        XCTAssertEqual(metadata.versionHashesDigest, expected.digest)
        XCTAssertEqual(metadata.storeUUID, try CoreDataMetadata.read(try Database(path: store, mode: .readOnly)).storeUUID)
        var indexes: [String: String] = [:]
        for row in try out.rows("SELECT name, sql FROM main.sqlite_schema WHERE type = 'index' AND sql IS NOT NULL") {
            if case .text(let name) = row[0], case .text(let sql) = row[1] { indexes[name] = sql }
        }
        XCTAssertEqual(indexes, [
            "ZCAR_ZCREATEDBY_INDEX": "CREATE INDEX ZCAR_ZCREATEDBY_INDEX ON ZCAR (ZCREATEDBY)",
            "ZCAR_ZOWNER_INDEX": "CREATE INDEX ZCAR_ZOWNER_INDEX ON ZCAR (ZOWNER)",
            "ZCAR_Z_ENT_INDEX": "CREATE INDEX ZCAR_Z_ENT_INDEX ON ZCAR (Z_ENT)",
            "Z_1PREVIOUSOWNERS_Z_5PREVIOUSOWNERS_INDEX": "CREATE INDEX Z_1PREVIOUSOWNERS_Z_5PREVIOUSOWNERS_INDEX ON Z_1PREVIOUSOWNERS (Z_5PREVIOUSOWNERS, Z_1PREVIOUSCARS)",
            "Z_Car_UNIQUE_numberPlate": "CREATE UNIQUE INDEX Z_Car_UNIQUE_numberPlate ON ZCAR (ZNUMBERPLATE COLLATE BINARY ASC)",
            "Z_Maker_UNIQUE_name": "CREATE UNIQUE INDEX Z_Maker_UNIQUE_name ON ZMAKER (ZNAME COLLATE BINARY ASC)",
            "Z_Person_UNIQUE_firstName_lastName": "CREATE UNIQUE INDEX Z_Person_UNIQUE_firstName_lastName ON ZPERSON (ZFIRSTNAME COLLATE BINARY ASC, ZLASTNAME COLLATE BINARY ASC)",
        ])
    }

    func testStoppedWhileMakersAreSharedItResumesToTheSameStore() throws {
        let path = try examplePipeline("v2-to-v3.json")
        var straight = Migration(pipeline: path, policies: CarMakers.policies)
        straight.destination = folder.path("straight.sqlite")
        _ = try straight.run()
        // One car per chunk: stops after some of the LuxuryCar rows (which make the first BMW,
        // Lamborghini… Makers) and of the SportCar rows (which only find them).
        // The checkpoint of the first stop is put back before resuming: as after a kill
        // between a chunk's commit and its checkpoint, every row loaded since (Makers of the
        // LuxuryCar rows among them) is rolled back, their unique keys with them, and loaded again.
        let checkpoint = folder.path("SampleModel_V3.sqlite.etl-checkpoint")
        for mapping in ["LuxuryCarToLuxuryCar", "SportCarToSportCar"] {
            let cancellation = Cancellation()
            var migration = Migration(pipeline: path, policies: CarMakers.policies)
            migration.chunkSize = 1
            migration.workers = 1
            migration.cancellation = cancellation
            XCTAssertThrowsError(try migration.run { event in
                if event.stage == .create, event.mapping == mapping, event.done >= 2 { cancellation.cancel() }
            }) { error in
                guard case MigrationError.interrupted = error else { return XCTFail("expected interrupted, got \(error)") }
            }
            if mapping == "LuxuryCarToLuxuryCar" { try FileManager.default.copyItem(atPath: checkpoint, toPath: checkpoint + ".first") }
        }
        try FileManager.default.removeItem(atPath: checkpoint)
        try FileManager.default.moveItem(atPath: checkpoint + ".first", toPath: checkpoint)
        var resumed = Migration(pipeline: path, policies: CarMakers.policies)
        resumed.chunkSize = 1
        resumed.workers = 1
        let summary = try resumed.run()
        XCTAssertNotNil(summary.resumed)
        XCTAssertGreaterThan(summary.redoneRows, 0, "rows loaded after the first checkpoint were loaded again")
        try assertMakersAndPreviousOwners(folder.path("SampleModel_V3.sqlite"))
        XCTAssertEqual(try tablesButMetadata("SampleModel_V3.sqlite"), try tablesButMetadata("straight.sqlite"))
    }

    func testThePolicyFreePipelineWithUniqueByWritesTheSameStore() throws {
        let byPolicy = try examplePipeline("v2-to-v3.json")
        try FileManager.default.copyItem(atPath: repositoryPath("Examples/CarMakers/v2-to-v3-uniqueBy.json"), toPath: folder.path("v2-to-v3-uniqueBy.json"))
        _ = try Migration(pipeline: byPolicy, policies: CarMakers.policies).run()
        _ = try Migration(pipeline: folder.path("v2-to-v3-uniqueBy.json")).run()
        try assertMakersAndPreviousOwners(folder.path("SampleModel_V3-uniqueBy.sqlite"))
        XCTAssertEqual(try tablesButMetadata("SampleModel_V3.sqlite"), try tablesButMetadata("SampleModel_V3-uniqueBy.sqlite"))
    }

    func testAMappingModelWhosePolicyIsNotRegisteredSaysWhichClassItNeeds() throws {
        let path = try examplePipeline("v2-to-v3.json")
        assertRefusedAlike(Migration(pipeline: path, policies: ["SomethingElse": Policy()])) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("$.steps[0].mappingModel"), text)
            XCTAssertTrue(text.contains("entity mapping CarToCar of ") && text.contains("V2toV3.xcmappingmodel"), text)
            XCTAssertTrue(text.contains("needs the migration policy class REPLACE_AT_RUNTIME.V2to3MakerPolicy"), text)
            XCTAssertTrue(text.contains("no etl policy is registered as 'V2to3MakerPolicy' (registered policies: SomethingElse)"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("SampleModel_V3.sqlite")))
    }

    func testAMappingModelOfAnotherHopIsRefusedBeforeARowIsRead() throws {
        let set = try folder.corpus("ctdatastoremanager")
        let path = try pipeline(bundle: set.appendingPathComponent("TestMigrationStore.xcdatamodeld"),
                                source: set.appendingPathComponent("TestMigrationStore_version_1.sqlite"),
                                version: "TestMigrationStore 2", out: "out.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_2_3.xcmappingmodel" }
            """)
        assertRefusedAlike(Migration(pipeline: path)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains("$.steps[0].mappingModel"), text)
            XCTAssertTrue(text.contains("was made for TestMigrationStore 2 → TestMigrationStore 3, not for this step's TestMigrationStore → TestMigrationStore 2"), text)
            XCTAssertTrue(text.contains("the source model it archives (CTDataStoreManagerTests/CoreDataTests/MigrationTest/TestMigrationStore.xcdatamodeld/TestMigrationStore 2.xcdatamodel) differs from version TestMigrationStore in entity Entity"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    /// The mapping model's models are compared with the hop's versions by version hashes, as
    /// Core Data compares them, not by the file names Xcode recorded: a version renamed since
    /// still takes the mapping model; one edited since (same name) does not, naming the entity.
    func testTheMappingModelsModelsAreCheckedByVersionHashesNotByName() throws {
        let set = try folder.corpus("ctdatastoremanager")
        let bundle = set.appendingPathComponent("TestMigrationStore.xcdatamodeld")
        let store = set.appendingPathComponent("TestMigrationStore_version_1.sqlite")
        let step = #"{ "from": "TestMigrationStore", "to": "TestMigrationStore two", "mappingModel": "\#(set.path)/TestMigrationStore_1_2.xcmappingmodel" }"#
        try FileManager.default.moveItem(at: bundle.appendingPathComponent("TestMigrationStore 2.xcdatamodel"),
                                         to: bundle.appendingPathComponent("TestMigrationStore two.xcdatamodel"))
        let renamed = try pipeline(bundle: bundle, source: store, version: "TestMigrationStore two", out: "renamed.sqlite", steps: step)
        let summary = try Migration(pipeline: renamed).run()
        XCTAssertEqual(summary.mappings.map(\.written), [3], "the renamed version has the archived model's hashes")

        let contents = bundle.appendingPathComponent("TestMigrationStore two.xcdatamodel/contents")
        let xml = try String(contentsOf: contents, encoding: .utf8)
        XCTAssertTrue(xml.contains(#"<attribute name="name" optional="YES" attributeType="String""#))
        try xml.replacingOccurrences(of: #"<attribute name="name" optional="YES" attributeType="String""#, with: #"<attribute name="name" attributeType="String""#)
            .write(to: contents, atomically: true, encoding: .utf8)
        let edited = try pipeline(bundle: bundle, source: store, version: "TestMigrationStore two", out: "edited.sqlite", steps: step)
        assertRefusedAlike(Migration(pipeline: edited)) { error in
            XCTAssertTrue("\(error)".contains("the destination model it archives (CTDataStoreManagerTests/CoreDataTests/MigrationTest/TestMigrationStore.xcdatamodeld/TestMigrationStore 2.xcdatamodel) differs from version TestMigrationStore two in entity Entity: its version hashes differ"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("edited.sqlite")))
    }

    func testAStepGivesMappingsOrAMappingModelNotBoth() throws {
        let set = try folder.corpus("ctdatastoremanager")
        let path = try pipeline(bundle: set.appendingPathComponent("TestMigrationStore.xcdatamodeld"),
                                source: set.appendingPathComponent("TestMigrationStore_version_1.sqlite"),
                                version: "TestMigrationStore 2", out: "out.sqlite", steps: """
            { "from": "TestMigrationStore", "to": "TestMigrationStore 2", "mappingModel": "\(set.path)/TestMigrationStore_1_2.xcmappingmodel",
              "mappings": [ { "source": "Entity", "destination": "Entity" } ] }
            """)
        assertRefusedAlike(Migration(pipeline: path)) { error in
            XCTAssertTrue("\(error)".contains("$.steps[0].mappings: a step takes its mappings from \"mappingModel\" or from \"mappings\", not both"), "\(error)")
        }
    }
}
