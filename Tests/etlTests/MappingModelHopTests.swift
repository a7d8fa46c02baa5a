import XCTest
import Foundation
import ETL
import ETLExpression
import ETLTestSupport

/// `etl mapping show` finds a mapping model's hop as Core Data and `etl plan` do: the bundle
/// versions with the hashes of the models it archives, always checked; the bundle near it.
final class MappingModelHopTests: XCTestCase {
    var temporary: TemporaryFolder!
    var folder: URL! { temporary?.url }

    override func setUpWithError() throws { temporary = try TemporaryFolder(prefix: "etl-mapping-hop") }
    override func tearDown() { temporary = nil }

    func run(_ arguments: [String]) throws -> CommandLineTests.Result {
        try ToolProcess.run(arguments, program: "etl", in: folder)
    }

    /// The SampleModel corpus set, and its V2 → V3 mapping model (which needs a policy class).
    func sampleModel() throws -> (set: URL, mapping: URL) {
        let set = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel", into: folder)
        return (set, set.appendingPathComponent("MappingModels/V2toV3.xcmappingmodel"))
    }

    /// A file that records the destination as "SampleModel 3" (renamed since in the bundle)
    /// is found by the hashes of the model it archives.
    func testTheHopIsFoundByTheArchivedHashesNotTheRecordedNames() throws {
        let (_, mapping) = try sampleModel()
        let xml = mapping.appendingPathComponent("xcmapping.xml")
        let text = try String(contentsOf: xml, encoding: .utf8)
        try text.replacingOccurrences(of: "SampleModel3.xcdatamodel", with: "SampleModel 3.xcdatamodel").write(to: xml, atomically: true, encoding: .utf8)
        let shown = try run(["mapping", "show", mapping.path])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains(#""to": "SampleModel3""#), shown.stdout)
    }

    /// A stale file (the bundle's version edited since) is refused though it needs a policy
    /// class, which keeps it from being planned: the hashes are checked first.
    func testAStaleMappingModelIsRefusedEvenWhenItNeedsAPolicy() throws {
        let (set, mapping) = try sampleModel()
        let contents = set.appendingPathComponent("SampleModel.xcdatamodeld/SampleModel3.xcdatamodel/contents")
        let text = try String(contentsOf: contents, encoding: .utf8)
        try text.replacingOccurrences(of: #"<attribute name="firstName" optional="YES" attributeType="String"/>"#,
                                      with: #"<attribute name="firstName" optional="YES" attributeType="String"/><attribute name="nickname" optional="YES" attributeType="String"/>"#)
            .write(to: contents, atomically: true, encoding: .utf8)
        let shown = try run(["mapping", "show", mapping.path])
        XCTAssertEqual(shown.status, 2, shown.stderr)
        XCTAssertEqual(shown.stdout, "")
        XCTAssertTrue(shown.stderr.contains("differs from version SampleModel3 in entity Person"), shown.stderr)
        XCTAssertFalse(shown.stderr.contains("note: not planned"), shown.stderr)
        let port = try run(["mapping", "port", mapping.path, "--swift", folder.appendingPathComponent("Policies").path])
        XCTAssertEqual(port.status, 2, port.stderr)
        XCTAssertTrue(port.stderr.contains("differs from version SampleModel3 in entity Person"), port.stderr)
    }

    /// The bundle in a folder beside the mapping models' is found without --models.
    func testTheBundleInANeighbouringFolderIsFound() throws {
        let (set, mapping) = try sampleModel()
        try FileManager.default.createDirectory(at: set.appendingPathComponent("Model"), withIntermediateDirectories: true)
        try FileManager.default.moveItem(at: set.appendingPathComponent("SampleModel.xcdatamodeld"),
                                         to: set.appendingPathComponent("Model/SampleModel.xcdatamodeld"))
        let shown = try run(["mapping", "show", mapping.path])
        XCTAssertEqual(shown.status, 0, shown.stderr)
        XCTAssertTrue(shown.stdout.contains(#""from": "SampleModel2""#), shown.stdout)
    }

    /// What the plan refuses at the step itself is said of the mapping model's own file, not
    /// of the pipeline `show` writes to plan it (and removes).
    func testAnErrorOfTheStepNamesTheMappingModel() throws {
        let bundle = folder.appendingPathComponent("App/Notes.xcdatamodeld")
        let note = #"<entity name="Note"><attribute name="text" optional="YES" attributeType="String"/></entity>"#
        try ModelBundleFiles.write(bundle, versions: [("n1", ModelBundleFiles.model(note)), ("n2", ModelBundleFiles.model(note))], current: "n2")
        let mapping = folder.appendingPathComponent("App/n1-n2.xcmappingmodel")
        try MappingModelXML(source: "App/Notes.xcdatamodeld/n1.xcdatamodel", destination: "App/Notes.xcdatamodeld/n2.xcdatamodel",
                            mappings: [.init("Note", type: "Remove")]).write(to: mapping)
        let shown = try run(["mapping", "show", mapping.path])
        XCTAssertEqual(shown.status, 2, shown.stderr)
        XCTAssertTrue(shown.stderr.contains(mapping.appendingPathComponent("xcmapping.xml").path + ": "), shown.stderr)
        XCTAssertTrue(shown.stderr.contains("makes no rows"), shown.stderr)
        XCTAssertFalse(shown.stderr.contains("mapping-show.json"), shown.stderr)
    }
}
