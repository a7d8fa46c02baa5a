import XCTest
import Foundation
import ETL
import ETLTestSupport

/// `etl mapping show`: each of the corpus's mapping models printed as a step, and that
/// step run by `etl run` (by `car-makers`, etl with the ported policy, for V2toV3).
final class MappingCommandTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws {
        temporary = try TemporaryFolder(prefix: "etl-mapping")
    }

    override func tearDown() { temporary = nil }

    func run(_ program: String, _ arguments: [String]) throws -> CommandLineTests.Result {
        try ToolProcess.run(arguments, program: program, in: folder)
    }

    /// Prints each mapping model, puts the printed steps into one bundle pipeline and runs it.
    func assertShownStepsRun(set: String, bundle: String, store: String, mappingModels: [String], to version: String,
                             program: String = "etl", file: StaticString = #filePath, line: UInt = #line) throws -> [String] {
        let copy = try FixtureSet.copy("coredata-corpus/\(set)", into: folder)
        var steps: [String] = []
        var notes: [String] = []
        for mappingModel in mappingModels {
            let shown = try run("etl", ["mapping", "show", copy.appendingPathComponent(mappingModel).path])
            XCTAssertEqual(shown.status, 0, shown.stderr, file: file, line: line)
            steps.append(shown.stdout)
            notes.append(shown.stderr)
        }
        let pipeline = folder.appendingPathComponent("shown.json")
        try """
            { "format": 1, "models": "\(copy.appendingPathComponent(bundle).path)",
              "source": { "store": "\(copy.appendingPathComponent(store).path)", "layout": "coredata" },
              "destination": { "store": "\(folder.appendingPathComponent("out.sqlite").path)", "layout": "coredata", "version": "\(version)" },
              "steps": [ \(steps.joined(separator: ",\n")) ] }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let ran = try run(program, ["run", pipeline.path, "--progress", "none"])
        XCTAssertEqual(ran.status, 0, ran.stdout + ran.stderr, file: file, line: line)
        XCTAssertTrue(FileManager.default.fileExists(atPath: folder.appendingPathComponent("out.sqlite").path), file: file, line: line)
        return notes
    }

    func testBothTestMigrationStoreMappingModelsShowStepsThatRun() throws {
        let notes = try assertShownStepsRun(set: "ctdatastoremanager", bundle: "TestMigrationStore.xcdatamodeld",
                                            store: "TestMigrationStore_version_1.sqlite",
                                            mappingModels: ["TestMigrationStore_1_2.xcmappingmodel", "TestMigrationStore_2_3.xcmappingmodel"],
                                            to: "TestMigrationStore 3")
        XCTAssertEqual(notes, ["", ""], "nothing left out")
    }

    func testV2toV3ShowsAStepThatRunsWithThePortedPolicy() throws {
        let notes = try assertShownStepsRun(set: "coredataplus-samplemodel", bundle: "SampleModel.xcdatamodeld", store: "SampleModel_V2.sqlite",
                                            mappingModels: ["MappingModels/V2toV3.xcmappingmodel"], to: "SampleModel3", program: "car-makers")
        XCTAssertTrue(notes[0].contains("note: entity mapping Maker adds entity Maker"), notes[0])
        XCTAssertTrue(notes[0].contains("note: entity mapping CarToCar names the migration policy class REPLACE_AT_RUNTIME.V2to3MakerPolicy: "
                                        + "etl runs the policy the program registered as 'V2to3MakerPolicy'"), notes[0])
        let out = try Database(path: folder.appendingPathComponent("out.sqlite").path, mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZMAKER"), 10)
    }

    func testAMappingModelWithoutItsBundleNearbyAsksForModels() throws {
        let copy = try FixtureSet.copy("coredata-corpus/ctdatastoremanager/TestMigrationStore_1_2.xcmappingmodel", into: folder)
        let shown = try run("etl", ["mapping", "show", copy.path])
        XCTAssertEqual(shown.status, 2)
        XCTAssertTrue(shown.stderr.contains("cannot find the model bundle") && shown.stderr.contains("--models"), shown.stderr)
    }
}
