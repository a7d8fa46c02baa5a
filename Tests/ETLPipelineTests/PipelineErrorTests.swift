import XCTest
import Foundation
import ETLTestSupport
import ETLModel
import ETLExpression
import ETLPipeline

/// A pipeline author's mistakes: each is caught before any row is read, with the file,
/// line, column, JSON path, and what to write instead.
final class PipelineErrorTests: XCTestCase {
    static let models = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("pipelines/models").path

    /// A valid one-step pipeline (v1 → v2); tests break one thing in it.
    static let valid = """
        {
          "format": 1,
          "source": { "store": "v1.sqlite", "model": "MODELS/books-v1.json" },
          "destination": { "store": "v2.sqlite", "model": "MODELS/books-v2.json" },
          "steps": [
            { "name": "v1 to v2",
              "mappings": [
                { "name": "Users", "source": "User", "destination": "User",
                  "attributes": { "userId": "$source.userId", "name": "$source.name" } },
                { "name": "Books", "source": "Book", "destination": "Book",
                  "filter": "$source.price > 1",
                  "attributes": { "title": "upper($source.title)", "price": "$source.price" },
                  "relationships": { "users": "destinations('Users', $source.users)", "authors": "destinations('Authors', $source)" } },
                { "name": "Authors", "source": "Book", "destination": "Author",
                  "uniqueBy": "$source.authorName", "filter": "$source.authorName != null",
                  "attributes": { "name": "$source.authorName" } }
              ] }
          ]
        }
        """

    func plan(_ text: String) throws -> Plan {
        let json = text.replacingOccurrences(of: "MODELS/", with: Self.models + "/")
        let spec = try PipelineSpec.decode(Array(json.utf8), file: "/tmp/p.json")
        return try Planner().plan(spec)
    }

    /// Replaces `old` (which must occur once) in the valid pipeline and expects an error.
    func expectError(replacing old: String, with new: String, line: Int? = nil, column: Int? = nil, path: String? = nil,
                     contains parts: [String], file: StaticString = #filePath, testLine: UInt = #line) {
        XCTAssertEqual(Self.valid.components(separatedBy: old).count, 2, "'\(old)' must occur once", file: file, line: testLine)
        let text = Self.valid.replacingOccurrences(of: old, with: new)
        do {
            _ = try plan(text)
            XCTFail("expected an error", file: file, line: testLine)
        } catch let error as DocumentError {
            XCTAssertEqual(error.file, "/tmp/p.json", file: file, line: testLine)
            if let line { XCTAssertEqual(error.line, line, "line of: \(error)", file: file, line: testLine) }
            if let column { XCTAssertEqual(error.column, column, "column of: \(error)", file: file, line: testLine) }
            if let path { XCTAssertEqual(error.path, path, file: file, line: testLine) }
            for part in parts {
                XCTAssertTrue(error.description.contains(part), "\(error)\n  does not contain: \(part)", file: file, line: testLine)
            }
        } catch {
            XCTFail("expected a DocumentError, got \(error)", file: file, line: testLine)
        }
    }

    /// What to do with tables no entity owns is `drop` or `carry`; `drop` names entities and
    /// properties of the models.
    func testUnmodeledTablesAndDropKeysAreChecked() {
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1, \"history\": \"keep\",", path: "$.history",
                    contains: ["unknown value 'keep'; one of: drop, carry"])
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1, \"cloudKit\": 1,", path: "$.cloudKit", contains: ["string"])
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1, \"drop\": [\"Book.titel\"],", path: "$.drop[0]",
                    contains: ["'Book.titel' is no entity or property of any model version of the pipeline"])
    }

    /// A mistyped `"drop"` entry gets the closest entity or property, as every other key does.
    func testAMistypedDropEntryGetsTheClosestName() {
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1, \"drop\": [\"Book.titel\"],", path: "$.drop[0]",
                    contains: ["(did you mean 'Book.title'?)"])
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1, \"drop\": [\"Autor\"],", path: "$.drop[0]",
                    contains: ["'Autor' is no entity", "(did you mean 'Author'?)"])
        // Nothing close: no guess.
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1, \"drop\": [\"Zebra.stripes\"],", path: "$.drop[0]",
                    contains: ["'Zebra.stripes' is no entity"])
        let far = Self.valid.replacingOccurrences(of: "\"format\": 1,", with: "\"format\": 1, \"drop\": [\"Zebra.stripes\"],")
        let error = thrownError(DocumentError.self) { try self.plan(far) }
        XCTAssertFalse(error?.message.contains("did you mean") ?? true)
    }

    /// A model may come from a store (`Z_MODELCACHE`): a Core Data source without "model",
    /// a destination's "modelFrom"; each mistake is named where it is written.
    func testModelsFromStoresAreChecked() {
        expectError(replacing: "\"store\": \"v1.sqlite\", \"model\": \"MODELS/books-v1.json\"", with: "\"store\": \"v1.sqlite\", \"layout\": \"plain\"",
                    path: "$.source", contains: ["missing required key 'model'", "a Core Data source, \"layout\": \"coredata\", uses the model kept in its store"])
        // Without "model" and "layout", only a Core Data store can be read: it is taken for one,
        // whose model is in the store (which, planned without it, is missing).
        expectError(replacing: "\"store\": \"v1.sqlite\", \"model\": \"MODELS/books-v1.json\"", with: "\"store\": \"v1.sqlite\"", path: "$.source",
                    contains: ["v1.sqlite", "its model is the one kept in it"])
        expectError(replacing: "\"model\": \"MODELS/books-v2.json\"", with: "\"model\": \"MODELS/books-v2.json\", \"modelFrom\": \"v2-app.sqlite\"",
                    path: "$.destination.modelFrom", contains: ["from \"model\" or from \"modelFrom\", not both"])
        expectError(replacing: "\"model\": \"MODELS/books-v2.json\"", with: "\"layout\": \"coredata\"", path: "$.destination",
                    contains: ["missing required key 'model' (or \"modelFrom\""])
        // Planned without the source store, a source whose model is kept in it cannot be.
        expectError(replacing: "\"store\": \"v1.sqlite\", \"model\": \"MODELS/books-v1.json\"", with: "\"store\": \"v1.sqlite\", \"layout\": \"coredata\"",
                    path: "$.source", contains: ["v1.sqlite", "its model is the one kept in it"])
    }

    func testTheValidPipelinePlans() throws {
        let plan = try plan(Self.valid)
        XCTAssertEqual(plan.steps.count, 1)
        XCTAssertEqual(plan.steps[0].mappings.map(\.name), ["Users", "Books", "Authors"])
        XCTAssertEqual(plan.steps[0].mappings[2].uniqueBy?.text, "$source.authorName")
        // Unmapped destination attributes are filled with their default (null here).
        XCTAssertEqual(plan.steps[0].mappings[1].attributes.map(\.attribute.name), ["title", "fileURL", "published", "price"])
        XCTAssertEqual(plan.sourcePath, "/tmp/v1.sqlite", "store paths are relative to the pipeline's folder")
    }

    func testNotJSONGivesLineAndColumn() {
        expectError(replacing: "\"format\": 1,", with: "\"format\": 1", line: 3, column: 3, path: "$", contains: ["invalid JSON", "expected ',' or '}'"])
    }

    func testUnknownKeySuggestsTheClosest() {
        expectError(replacing: "\"attributes\": { \"userId\"", with: "\"atributes\": { \"userId\"", line: 9,
                    path: "$.steps[0].mappings[0].atributes", contains: ["unknown key 'atributes'", "did you mean 'attributes'?"])
    }

    func testUnknownEntitySuggestsTheClosest() {
        expectError(replacing: "\"source\": \"Book\", \"destination\": \"Author\"", with: "\"source\": \"Bok\", \"destination\": \"Author\"",
                    path: "$.steps[0].mappings[2].source", contains: ["unknown source entity 'Bok' in model books-v1", "did you mean 'Book'?"])
    }

    func testUnknownAttributeSuggestsTheClosest() {
        expectError(replacing: "\"title\": \"upper", with: "\"titel\": \"upper",
                    path: "$.steps[0].mappings[1].attributes.titel", contains: ["unknown attribute 'titel' of destination entity Book", "did you mean 'title'?"])
    }

    func testAnAttributeWrittenAsARelationshipIsExplained() {
        expectError(replacing: "\"users\": \"destinations", with: "\"title\": \"$source.title\", \"users\": \"destinations",
                    contains: ["unknown relationship 'title'", "is an attribute: put it under \"attributes\""])
    }

    func testExpressionThatDoesNotParseGivesTheColumnInTheFile() {
        // The expression starts after the quote at column 38 of line 11; `)` is missing.
        let old = "\"title\": \"upper($source.title)\""
        let line = Self.valid.components(separatedBy: "\n").firstIndex { $0.contains(old) }! + 1
        let quote = Self.valid.components(separatedBy: "\n")[line - 1].range(of: "\"upper(")!.lowerBound
        let quoteColumn = Self.valid.components(separatedBy: "\n")[line - 1].distance(from: Self.valid.components(separatedBy: "\n")[line - 1].startIndex, to: quote) + 1
        expectError(replacing: old, with: "\"title\": \"upper($source.title\"", line: line, path: "$.steps[0].mappings[1].attributes.title",
                    contains: ["in expression \"upper($source.title\"", "expected ')'"])
        do {
            _ = try plan(Self.valid.replacingOccurrences(of: old, with: "\"title\": \"upper($source.titl)\""))
            XCTFail("expected an error")
        } catch let error as DocumentError {
            // `titl` starts at character 15 of the expression.
            XCTAssertEqual(error.column, quoteColumn + 15, "\(error)")
            XCTAssertTrue(error.message.contains("did you mean 'title'?"), error.message)
        } catch { XCTFail("\(error)") }
    }

    func testExpressionOfTheWrongTypeForTheAttribute() {
        expectError(replacing: "\"price\": \"$source.price\"", with: "\"price\": \"$source.title\"",
                    contains: ["attribute Book.price is double, but this expression is string"])
    }

    func testFilterOfTheWrongType() {
        expectError(replacing: "\"filter\": \"$source.price > 1\"", with: "\"filter\": \"$source.title\"",
                    path: "$.steps[0].mappings[1].filter", contains: ["a filter must be a boolean", "string"])
    }

    func testRelationshipNamingAnUnknownMapping() {
        expectError(replacing: "destinations('Authors', $source)", with: "destinations('Writers', $source)",
                    path: "$.steps[0].mappings[1].relationships.authors", contains: ["Writers"])
    }

    func testRelationshipToTheWrongEntity() {
        expectError(replacing: "destinations('Authors', $source)", with: "destinations('Books', $source)",
                    contains: ["relationship Book.authors points at Author", "rows of Book"])
    }

    func testDestinationLookupsOnlyInRelationships() {
        expectError(replacing: "\"name\": \"$source.authorName\"", with: "\"name\": \"destination('Users', $source)\"",
                    contains: ["only available in relationship expressions"])
    }

    func testUnknownPolicyListsWhatIsRegistered() {
        expectError(replacing: "\"name\": \"Users\",", with: "\"name\": \"Users\", \"policy\": \"splitNames\",",
                    path: "$.steps[0].mappings[0].policy", contains: ["unknown policy 'splitNames'", "no policies are registered"])
    }

    func testUnsupportedFormat() {
        expectError(replacing: "\"format\": 1", with: "\"format\": 2", path: "$.format", contains: ["unsupported pipeline format 2"])
    }

    func testMissingModelFile() {
        expectError(replacing: "MODELS/books-v2.json", with: "MODELS/books-v9.json", path: "$.destination.model",
                    contains: ["model file not found", "books-v9.json"])
    }

    func testBadOptionValues() {
        expectError(replacing: "\"steps\": [", with: "\"options\": { \"chunkSize\": 0 }, \"steps\": [", path: "$.options.chunkSize",
                    contains: ["out of range"])
        expectError(replacing: "\"steps\": [", with: "\"options\": { \"workers\": \"four\" }, \"steps\": [", path: "$.options.workers",
                    contains: ["expected a whole number"])
    }

    func testForEachMustBeToMany() {
        expectError(replacing: "\"uniqueBy\": \"$source.authorName\",", with: "\"forEach\": \"$source.title\",",
                    contains: ["forEach must be a to-many relationship"])
    }

    func testDuplicateMappingNames() {
        expectError(replacing: "\"name\": \"Authors\"", with: "\"name\": \"Users\"", contains: ["duplicate mapping name 'Users'"])
    }
}

extension PipelineErrorTests {
    func testConfinementRefusesPathsOutsideThePipelinesFolder() throws {
        let folder = try TemporaryFolder.forTest(self, prefix: "etl-confine")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("models"), withIntermediateDirectories: true)
        func spec(_ store: String) throws -> PipelineSpec {
            try PipelineSpec.decode(Array("""
                { "format": 1,
                  "source": { "store": "\(store)", "model": "models/v1.json" },
                  "destination": { "store": "out.sqlite", "model": "models/v2.json" },
                  "steps": [ { "mappings": [ { "source": "A", "destination": "A" } ] } ] }
                """.utf8), file: folder.appendingPathComponent("p.json").path)
        }
        XCTAssertNoThrow(try spec("data/in.sqlite").checkConfined())
        for outside in ["../../etc/passwd", "/etc/passwd", "data/../../x.sqlite"] {
            XCTAssertThrowsError(try spec(outside).checkConfined(), outside) { error in
                guard let error = error as? DocumentError else { return XCTFail("\(error)") }
                XCTAssertEqual(error.path, "$.source.store")
                XCTAssertTrue(error.message.contains("outside the pipeline's folder"), error.message)
                XCTAssertTrue(error.message.contains("--confine"), error.message)
            }
        }
        // A symlink inside the folder that leads out is outside too.
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("escape").path, withDestinationPath: "/tmp")
        XCTAssertThrowsError(try spec("escape/in.sqlite").checkConfined())
    }
}

extension PipelineErrorTests {
    func testConfinementRefusesAMappingModelOutsideThePipelinesFolder() throws {
        let folder = try TemporaryFolder.forTest(self, prefix: "etl-confine")
        func spec(_ mappingModel: String) throws -> PipelineSpec {
            try PipelineSpec.decode(Array("""
                { "format": 1, "models": "Model.xcdatamodeld",
                  "source": { "store": "in.sqlite", "layout": "coredata" },
                  "destination": { "store": "out.sqlite", "layout": "coredata" },
                  "steps": [ { "from": "V1", "to": "V2", "mappingModel": "\(mappingModel)" } ] }
                """.utf8), file: folder.appendingPathComponent("p.json").path)
        }
        XCTAssertEqual(try spec("V1toV2.xcmappingmodel").steps.first?.mappingModel, folder.appendingPathComponent("V1toV2.xcmappingmodel").path)
        XCTAssertNoThrow(try spec("V1toV2.xcmappingmodel").checkConfined())
        XCTAssertThrowsError(try spec("../V1toV2.xcmappingmodel").checkConfined()) { error in
            XCTAssertEqual((error as? DocumentError)?.path, "$.steps[0].mappingModel")
        }
    }
}
