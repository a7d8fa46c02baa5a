import XCTest
import Foundation
import ETLModel
import ETLExpression
import ETLCoreData
import ETLTestSupport

/// An entity of 40,000 attributes and 5,000 to-ones (an untrusted model may have any number): imported,
/// laid out and hashed in time proportional to its size, not its square.
final class WideEntityTests: XCTestCase {
    func testAnEntityOf40000AttributesIsImportedLaidOutAndHashed() throws {
        let count = 40_000
        let folder = try TemporaryFolder()
        let bundle = folder.url.appendingPathComponent("Wide.xcdatamodeld")
        var body = #"<entity name="Wide" representedClassName="Wide">"#
        for i in 0..<count { body += #"<attribute name="a\#(i)" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>"# }
        for i in 0..<5_000 { body += #"<relationship name="r\#(i)" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Wide"/>"# }
        body += "</entity>"
        try ModelBundleFiles.write(bundle, versions: [("v1", ModelBundleFiles.model(body))], current: "v1")
        let model = try XCTUnwrap(ModelBundle.load(path: bundle.path).versions.first)
        XCTAssertEqual(model.entity(named: "Wide")?.attributes.count, count)
        let layout = CoreDataLayout(model: model)
        let schema = layout.schemaSQL()
        let create = try XCTUnwrap(schema.first { $0.hasPrefix("CREATE TABLE ZWIDE") })
        XCTAssertEqual(create.components(separatedBy: " INTEGER").count - 1, count + 3 + 5_000, "the key, Z_ENT, Z_OPT, the attributes and the to-ones")
        XCTAssertEqual(layout.column(ofAttribute: "a\(count - 1)", entity: "Wide"), "ZA\(count - 1)")
        let hashes = try VersionHashes(model: model)
        XCTAssertEqual(hashes.entities["Wide"]?.count, 32)
        // The next version drops a0 and adds b: every other attribute inferred as copied.
        var next = model
        next.version = "v2"
        next.entities[0].attributes[0] = Attribute(name: "b", type: .string, isOptional: true)
        let step = try InferredMapping.infer(from: model, to: next)
        XCTAssertEqual(step.mappings.first?.attributes.count, count)
        XCTAssertEqual(step.mappings.first?.relationships.count, 5_000)
        XCTAssertEqual(step.droppedProperties, ["Wide.a0"])
    }
}
