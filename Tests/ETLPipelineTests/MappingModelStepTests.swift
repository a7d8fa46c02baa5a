import Foundation
import XCTest
import ETLModel
import ETLCoreData
@testable import ETLPipeline
@testable import ETLExpression
import ETLTestSupport

/// A `"mappingModel"` step takes its mappings from the import as they are (no JSON text in
/// between), each part at its place in the mapping model; `etl mapping show` prints the
/// same step as JSON, which decodes to the same mappings.
final class MappingModelStepTests: XCTestCase {
    func testTheStepIsThePrintedStepWithItsPartsAtTheirPlacesInTheMappingModel() throws {
        let folder = try TemporaryFolder.forTest(self)
        let note = #"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/><attribute name="title" optional="YES" attributeType="String"/></entity>"#
        let (bundle, mapping) = try NotesMappingModel.write(in: folder, note: note, expressions: [
            ("body", #"FUNCTION($entityPolicy, "shout:", $source.body)"#), ("title", #"FUNCTION($source.title, "uppercaseString")"#),
        ])
        let models = try ModelBundle.load(path: bundle.path)
        let n1 = try XCTUnwrap(models.version(named: "n1")), n2 = try XCTUnwrap(models.version(named: "n2"))
        let written = try JSONCursor.parse(Array(#"{ "from": "n1", "to": "n2", "mappingModel": "n1ToN2.xcmappingmodel" }"#.utf8), file: "pipeline.json")
        let step = try PipelineSpec.decodeStep(written, index: 0, isLast: true, destinationModel: nil, folder: folder.path, bundle: true)
        let planner = Planner(policies: [PolicySignature(name: "NotePolicy")],
                              functions: ["NotePolicy_shout_": ExpressionFunction([.string], returns: .string) { $0[0] }])
        let planned = try planner.mappingModelStep(step, from: n1, to: n2)

        let imported = try MappingModelImport.step(XCMappingModel.load(path: mapping.path), source: n1, destination: n2)
        let shown = try PipelineSpec.decodeStep(JSONCursor.parse(Array(imported.json().utf8), file: "shown.json"), index: 0, isLast: false,
                                                destinationModel: nil, folder: folder.path, bundle: true)
        func parts(_ step: StepSpec) -> [[String]] {
            step.mappings.map { m in
                [m.name, m.source, m.destination, m.policy ?? "-", m.filter?.text ?? "-"]
                    + m.attributes.map { "\($0.name) = \($0.expression.text)" } + m.relationships.map { "\($0.name) = \($0.expression.text)" }
            }
        }
        XCTAssertEqual(parts(planned), parts(shown))
        XCTAssertEqual(parts(planned), [["NoteToNote", "Note", "Note", "NotePolicy", "-", "body = NotePolicy_shout_($source.body)", "title = upper($source.title)"]])
        XCTAssertEqual(planned.name, step.name)
        XCTAssertEqual(planned.mappingModels, [mapping.path])

        let xml = mapping.appendingPathComponent("xcmapping.xml").path
        let lines = try String(contentsOfFile: xml, encoding: .utf8).components(separatedBy: "\n")
        // The line of an object's start tag, as the mapping model's reader keeps it.
        func line(of text: String) throws -> Int { try XCTUnwrap(lines.firstIndex { $0.contains(text) }, text) + 1 }
        let m = try XCTUnwrap(planned.mappings.first)
        XCTAssertEqual(m.attributes.map { "\($0.expression.cursor.file):\($0.expression.cursor.node.line): \($0.expression.cursor.path)" }, [
            "\(xml):\(try line(of: #"type="XDDEVATTRIBUTEMAPPING" id="a0_0""#)): entity mapping NoteToNote, attribute body",
            "\(xml):\(try line(of: #"type="XDDEVATTRIBUTEMAPPING" id="a0_1""#)): entity mapping NoteToNote, attribute title",
        ])
        XCTAssertEqual("\(m.cursor.file):\(m.cursor.node.line): \(m.cursor.path)",
                       "\(xml):\(try line(of: #"type="XDDEVENTITYMAPPING""#)): entity mapping NoteToNote")
    }
}
