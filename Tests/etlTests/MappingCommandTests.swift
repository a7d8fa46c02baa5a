import XCTest
import Foundation
import ETL
import ETLExpression
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

    /// A mapping model between two entity hierarchies: `etl mapping show` prints a to-one
    /// into a hierarchy as coalesce() and a to-many filled by several mappings as union(),
    /// and `etl plan` takes the printed step as it is.
    func testTheStepShownForRelationshipsIntoHierarchiesPlans() throws {
        let bundle = folder.appendingPathComponent("Chat.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("h1", ChatHierarchy.model("")),
                                                      ("h2", ChatHierarchy.model(#"<attribute name="read" optional="YES" attributeType="Boolean"/>"#))])
        let mapping = folder.appendingPathComponent("h1ToH2.xcmappingmodel")
        try ChatHierarchy.writeMappingModel(mapping)
        let shown = try run("etl", ["mapping", "show", mapping.path, "--models", bundle.path])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains("\"messages\": \"union(destinations('SentToSent', $source.messages), destinations('ReceivedToReceived', $source.messages))\""), shown.stdout)
        XCTAssertTrue(shown.stdout.contains("\"about\": \"coalesce(destination('ForumToForum', $source.about), destination('ThreadToThread', $source.about))\""), shown.stdout)

        let store = try Database(path: folder.appendingPathComponent("h1.sqlite").path, mode: .create)
        let layout = CoreDataLayout(model: try XCTUnwrap(try ModelBundle.load(path: bundle.path).version(named: "h1")))
        for sql in layout.schemaSQL() { try store.execute(sql) }
        try layout.finish(store)
        store.close()
        let pipeline = folder.appendingPathComponent("shown.json")
        try """
            { "format": 1, "models": "\(bundle.path)", "mappingModels": false,
              "source": { "store": "\(folder.appendingPathComponent("h1.sqlite").path)", "layout": "coredata" },
              "destination": { "store": "\(folder.appendingPathComponent("h2.sqlite").path)", "layout": "coredata", "version": "h2" },
              "steps": [ \(shown.stdout) ] }
            """.write(to: pipeline, atomically: true, encoding: .utf8)
        let planned = try run("etl", ["plan", pipeline.path])
        XCTAssertEqual(planned.status, 0, planned.stdout + planned.stderr)
    }

    /// What `etl mapping show` prints, `etl plan` accepts: a step the plan refuses (here a
    /// stale mapping model, whose archived source model is not the bundle's version any more)
    /// is not printed but refused with the plan's reason; `--no-check` prints it to edit. A
    /// step that needs a policy class ported cannot be planned here, and says so.
    func testAStepThePlanRefusesIsNotPrinted() throws {
        let copy = try FixtureSet.copy("coredata-mappingmodels/mioke-helper", into: folder)
        let mapping = copy.appendingPathComponent("CoreDataTest/v1_to_v2.xcmappingmodel").path
        let shown = try run("etl", ["mapping", "show", mapping])
        XCTAssertEqual(shown.status, 2, shown.stderr)
        XCTAssertEqual(shown.stdout, "", "nothing printed")
        XCTAssertTrue(shown.stderr.contains("differs from version CoreDataTest in entity Chat"), shown.stderr)
        XCTAssertTrue(shown.stderr.contains("refused by etl plan") && shown.stderr.contains("--no-check"), shown.stderr)
        let unchecked = try run("etl", ["mapping", "show", mapping, "--no-check"])
        XCTAssertEqual(unchecked.status, 0, unchecked.stderr)
        XCTAssertTrue(unchecked.stdout.contains("\"filter\": \"$source.messageID < 10000\""), unchecked.stdout)

        let samples = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel", into: folder)
        let ported = try run("etl", ["mapping", "show", samples.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel").path])
        XCTAssertEqual(ported.status, 0, ported.stderr)
        XCTAssertTrue(ported.stderr.contains("note: not planned: the step needs the migration policy classes REPLACE_AT_RUNTIME.V2to3MakerPolicy ported"),
                      ported.stderr)
    }

    func testAMappingModelWithoutItsBundleNearbyAsksForModels() throws {
        let copy = try FixtureSet.copy("coredata-corpus/ctdatastoremanager/TestMigrationStore_1_2.xcmappingmodel", into: folder)
        let shown = try run("etl", ["mapping", "show", copy.path])
        XCTAssertEqual(shown.status, 2)
        XCTAssertTrue(shown.stderr.contains("cannot find the model bundle") && shown.stderr.contains("--models"), shown.stderr)
    }

    /// `etl mapping port`: a Swift policy per migration policy class, with a function per
    /// `FUNCTION($entityPolicy, …)` selector, that type-checks against the ETL library as written.
    func testPortWritesPolicySkeletonsThatCompile() throws {
        let copy = try FixtureSet.copy("coredata-mappingmodels/billmoss-hybrid", into: folder)
        let out = folder.appendingPathComponent("Ported")
        let ported = try run("etl", ["mapping", "port", copy.appendingPathComponent("CoreDataMigration/Model4ToModel5-1.xcmappingmodel").path, "--swift", out.path])
        XCTAssertEqual(ported.status, 0, ported.stderr)
        let topic = try String(contentsOf: out.appendingPathComponent("CDMTopicToTopicMigrationPolicy.swift"), encoding: .utf8)
        XCTAssertTrue(topic.contains("public enum CDMTopicToTopicMigrationPolicy {"), topic)
        XCTAssertTrue(topic.contains("TopicToTopic, a row of Topic: ") && topic.contains("source.string(\"presenterName\")"), topic)
        // Member has an entity mapping without a source entity: the class made its rows, found by "TopicToTopic/Member".
        XCTAssertTrue(topic.contains("/// - \"TopicToTopic\", \"TopicToTopic/Member\""), topic)
        XCTAssertTrue(topic.contains("list them in `creates: [\"Member\"]`"), topic)
        XCTAssertTrue(topic.contains("// relate: { row in") && topic.contains("[\"presenter\": try row.destinations(\"TopicToTopic/Member\", [row.source.key])]"), topic)
        let again = try run("etl", ["mapping", "port", copy.appendingPathComponent("CoreDataMigration/Model4ToModel5-1.xcmappingmodel").path, "--swift", out.path])
        XCTAssertEqual(again.status, 2)
        XCTAssertTrue(again.stderr.contains("exists: etl does not overwrite a port"), again.stderr)

        // A class whose functions the value expressions call.
        let (bundle, mapping) = try NotesMappingModel.write(
            in: folder, note: #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/><attribute name="rank" optional="YES" attributeType="Integer 64"/></entity>"#,
            expressions: [("body", #"FUNCTION($entityPolicy, "shout:times:", $source.body, 2)"#), ("rank", #"FUNCTION($entityPolicy, "rankOf:", $source.body)"#)])
        let notes = try run("etl", ["mapping", "port", mapping.path, "--models", bundle.path, "--swift", out.path])
        XCTAssertEqual(notes.status, 0, notes.stderr)
        let policy = try String(contentsOf: out.appendingPathComponent("NotePolicy.swift"), encoding: .utf8)
        XCTAssertTrue(policy.contains("\"shout:times:\": ExpressionFunction([.string, .integer], returns: .string)"), policy)
        XCTAssertTrue(policy.contains("\"rankOf:\": ExpressionFunction([.string], returns: .integer)"), policy)

        // They compile against the library as built for these tests.
        let swiftc = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swiftc" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let swiftc else { throw XCTSkip("no swiftc on PATH to type-check the ported files") }
        let modules = Bundle.main.bundleURL.appendingPathComponent("Modules").path
        let checked = try ToolProcess.run(["-typecheck", "-I", modules, "-I", repositoryPath("Sources/CSQLite"), "-I", repositoryPath("Sources/CZstd"), "-I", repositoryPath("Sources/CZlib"),
                                           out.appendingPathComponent("CDMTopicToTopicMigrationPolicy.swift").path,
                                           out.appendingPathComponent("NotePolicy.swift").path], program: swiftc, in: folder)
        XCTAssertEqual(checked.status, 0, checked.stdout + checked.stderr)
    }
}
