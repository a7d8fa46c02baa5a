import XCTest
import Foundation
import ETLTestSupport
import ETLModel
import ETLExpression
import ETLPipeline

/// A step's targets are its mappings' own entities and the entities their policies create
/// ("Mapping/Entity"): each name, which destination() and the summary use, names one target.
final class TargetNameTests: XCTestCase {
    /// The valid books pipeline of `PipelineErrorTests`, with policy `addAuthor` (creating
    /// Authors) on mapping Users, and `replacements` made.
    func plan(creates: [String], _ replacements: [(String, String)] = []) throws -> Plan {
        var text = PipelineErrorTests.valid
            .replacingOccurrences(of: "\"name\": \"Users\",", with: "\"name\": \"Users\", \"policy\": \"addAuthor\",")
            .replacingOccurrences(of: "MODELS/", with: PipelineErrorTests.models + "/")
        for (old, new) in replacements {
            XCTAssertTrue(text.contains(old), old)
            text = text.replacingOccurrences(of: old, with: new)
        }
        let spec = try PipelineSpec.decode(Array(text.utf8), file: "/tmp/p.json")
        return try Planner(policies: [PolicySignature(name: "addAuthor", creates: creates)]).plan(spec)
    }

    func testAPolicysCreatedEntityIsATargetAfterEveryMapping() throws {
        let step = try plan(creates: ["Author"]).steps[0]
        XCTAssertEqual(step.targets.map(\.name), ["Users", "Books", "Authors", "Users/Author"])
        XCTAssertEqual(step.mappings[MappingID(0)].targets, [TargetID(0), TargetID(3)])
        XCTAssertEqual(step.targets[TargetID(3)].mapping, MappingID(0))
    }

    func testAnEntityListedTwiceInCreatesIsOneTarget() throws {
        let step = try plan(creates: ["Author", "Author"]).steps[0]
        XCTAssertEqual(step.targets.map(\.name), ["Users", "Books", "Authors", "Users/Author"])
    }

    /// Planned, the two would share one name: the relate stage's lookup by name trapped.
    func testAMappingNamedLikeThePolicysRowsIsRefused() {
        XCTAssertThrowsError(try plan(creates: ["Author"], [("\"name\": \"Authors\"", "\"name\": \"Users/Author\""),
                                                            ("destinations('Authors', $source)", "destinations('Users/Author', $source)")])) { error in
            guard let error = error as? DocumentError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.path, "$.steps[0].mappings[2]")
            XCTAssertTrue(error.description.contains("mapping name 'Users/Author' is also the name of the Author rows that policy 'addAuthor' of mapping Users creates"),
                          error.description)
        }
    }
}
