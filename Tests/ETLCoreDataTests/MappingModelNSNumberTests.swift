import Foundation
import XCTest
import ETLModel
import ETLExpression
@testable import ETLCoreData
import ETLTestSupport

/// Mapping models Core Data runs that etl refused: integers and booleans are both NSNumbers,
/// a relationship's Key Path may be `$source` itself, and a relationship may be set by the
/// policy class.
final class MappingModelNSNumberTests: XCTestCase {
    static func model(_ version: String, extra: String) throws -> Model {
        try XCDataModelReader.read(Data(ModelBundleFiles.model("""
            <entity name="Note">
                <attribute name="count" optional="YES" attributeType="Integer 32" usesScalarValueType="YES"/>
                <attribute name="isSilenced" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>
                <attribute name="mutedStatus" optional="YES" attributeType="Integer 16" usesScalarValueType="YES"/>
                <attribute name="pinned" optional="YES" attributeType="Boolean" usesScalarValueType="YES"/>\(extra)
                <relationship name="original" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Note"/>
            </entity>
            """).utf8), file: "\(version)/contents", version: version)
    }

    /// A mapping model of Note → Note whose attribute mappings are `attributes` and whose
    /// relationship mapping of `original` is the XML `relationship` (its attributes).
    func mapping(attributes: [String: String], relationship: String = "", policy: String? = nil) throws -> XCMappingModel {
        let folder = try TemporaryFolder.forTest(self).appendingPathComponent("Notes.xcmappingmodel")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var objects = "", ids: [String] = []
        for (index, name) in attributes.keys.sorted().enumerated() {
            ids.append("a\(index)")
            objects += "<object type=\"XDDEVATTRIBUTEMAPPING\" id=\"a\(index)\"><attribute name=\"name\" type=\"string\">\(name)</attribute>"
                + "<attribute name=\"valueexpressionstring\" type=\"string\">\(attributes[name]!.replacingOccurrences(of: "\"", with: "&quot;"))</attribute></object>\n"
        }
        let relationships = relationship.isEmpty ? "" : """
            <relationship name="relationshipmappings" type="0/0" destination="XDDEVRELATIONSHIPMAPPING" idrefs="r0"></relationship>
            """
        if !relationship.isEmpty {
            objects += "<object type=\"XDDEVRELATIONSHIPMAPPING\" id=\"r0\"><attribute name=\"name\" type=\"string\">original</attribute>\(relationship)</object>\n"
        }
        try Data("""
            <?xml version="1.0" standalone="no"?>
            <database>
            <object type="XDDEVMAPPINGMODEL" id="z1">
              <attribute name="sourcemodelpath" type="string">App/Notes.xcdatamodeld/v1.xcdatamodel</attribute>
              <attribute name="destinationmodelpath" type="string">App/Notes.xcdatamodeld/v2.xcdatamodel</attribute>
              <relationship name="entitymappings" type="0/0" destination="XDDEVENTITYMAPPING" idrefs="e1"></relationship>
            </object>
            <object type="XDDEVENTITYMAPPING" id="e1">
              <attribute name="sourcename" type="string">Note</attribute>
              <attribute name="destinationname" type="string">Note</attribute>
              <attribute name="name" type="string">NoteToNote</attribute>
              <attribute name="mappingtypename" type="string">Undefined</attribute>
              <attribute name="mappingnumber" type="int16">1</attribute>
              \(policy.map { "<attribute name=\"migrationpolicyclassname\" type=\"string\">App.\($0)</attribute>" } ?? "")
              <relationship name="attributemappings" type="0/0" destination="XDDEVATTRIBUTEMAPPING" idrefs="\(ids.joined(separator: " "))"></relationship>
              \(relationships)
            </object>
            \(objects)</database>
            """.utf8).write(to: folder.appendingPathComponent("xcmapping.xml"))
        return try XCMappingModel.load(path: folder.path)
    }

    func imported(_ mapping: XCMappingModel) throws -> ImportedStep {
        try MappingModelImport.step(mapping, source: Self.model("v1", extra: ""), destination: Self.model("v2", extra: ""))
    }

    /// Constants 0 and 1 into a Boolean are NO and YES; another integer constant, or an
    /// integer attribute, into a Boolean is checked row by row (0 or 1, else the row is
    /// rejected naming the number); a Boolean into an Integer is 1 or 0.
    func testIntegersAndBooleansAreBothNSNumbers() throws {
        let step = try imported(try mapping(attributes: [
            "pinned": "1", "isSilenced": "$source.count", "mutedStatus": "$source.isSilenced", "count": "YES",
        ]))
        let check = "if($source.count == 0, false, if($source.count == 1, true, boolean(concat('NSNumber ', $source.count, ' in a Boolean attribute (0 or 1 only)'))))"
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: step.mappings[0].attributes.map { ($0.property, $0.expression) }),
                       ["pinned": "true", "isSilenced": check, "mutedStatus": "integer($source.isSilenced)", "count": "1"])
        let zero = try imported(try mapping(attributes: ["pinned": "0", "isSilenced": "2"]))
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: zero.mappings[0].attributes.map { ($0.property, $0.expression) }),
                       ["pinned": "false", "isSilenced": "if(2 == 0, false, if(2 == 1, true, boolean(concat('NSNumber ', 2, ' in a Boolean attribute (0 or 1 only)'))))"])
    }

    /// Key Path `$source` with a Mapping Name (UnCloudNotes v2 → v3): the row that mapping
    /// made from the source row itself. Without a Mapping Name it names nothing: refused.
    func testAKeyPathOfTheSourceItselfWithAMappingNameIsItsDestinationRow() throws {
        let step = try imported(try mapping(attributes: [:], relationship: """
            <attribute name="sourcekeypath" type="string">$source</attribute><attribute name="sourcemappingname" type="string">NoteToNote</attribute>
            """))
        XCTAssertEqual(step.mappings[0].relationships.map(\.expression), ["destination('NoteToNote', $source)"])
        XCTAssertThrowsError(try imported(try mapping(attributes: [:], relationship: #"<attribute name="sourcekeypath" type="string">$source</attribute>"#))) { error in
            XCTAssertTrue("\(error)".contains("relationship original: key path $source without a Mapping Name names no mapping"), "\(error)")
        }
    }

    /// `FUNCTION($entityPolicy, …)` on a relationship mapping: the policy sets it (its relate
    /// hook), said in a note; without a policy class, refused.
    func testARelationshipTheEntityPolicySetsIsLeftToThePolicy() throws {
        let relationship = #"<attribute name="valueexpressionstring" type="string">FUNCTION($entityPolicy, &quot;originalFor:manager:&quot;, $source, $manager)</attribute>"#
        let step = try imported(try mapping(attributes: [:], relationship: relationship, policy: "NotePolicy"))
        XCTAssertEqual(step.mappings[0].relationships.map(\.property), [])
        XCTAssertEqual(step.mappings[0].policy, "NotePolicy")
        XCTAssertTrue(step.notes.contains { $0.contains("Note.original is set by the policy class (originalFor:manager:): the etl policy 'NotePolicy' sets it in its relate hook") },
                      "\(step.notes)")
        XCTAssertThrowsError(try imported(try mapping(attributes: [:], relationship: relationship))) { error in
            XCTAssertTrue("\(error)".contains("relationship original: value expression FUNCTION($entityPolicy, \"originalFor:manager:\", $source, $manager) calls $entityPolicy, "
                                              + "but the entity mapping names no migration policy class"), "\(error)")
        }
    }
}
