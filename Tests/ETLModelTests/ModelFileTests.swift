import Foundation
import XCTest
import ETLStore
import ETLModel

/// Files of this package, found from this file's place (`<root>/Tests/ETLModelTests/`).
enum PackageFiles {
    static let root = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func modelPath(_ name: String) -> String {
        root.appendingPathComponent("pipelines/models/\(name).json").path
    }

    static func books(_ version: Int) throws -> Model {
        try ModelFile.load(path: modelPath("books-v\(version)"))
    }
}

final class ModelFileTests: XCTestCase {
    /// Asserts that decoding fails at `path`, `line`:`column` with a message containing every `parts`.
    private func assertError(_ json: String, path: String, line: Int, column: Int, _ parts: String...,
                             file: StaticString = #filePath, testLine: UInt = #line) {
        do {
            let model = try decodeModel(json)
            XCTFail("expected an error, decoded \(model.entities.map(\.name))", file: file, line: testLine)
        } catch let error as DocumentError {
            XCTAssertEqual(error.file, "model.json", file: file, line: testLine)
            XCTAssertEqual(error.path, path, "\(error)", file: file, line: testLine)
            XCTAssertEqual("\(error.line):\(error.column)", "\(line):\(column)", "\(error)", file: file, line: testLine)
            for part in parts {
                XCTAssertTrue(error.message.contains(part), "'\(error.message)' should contain '\(part)'", file: file, line: testLine)
            }
            XCTAssertTrue(error.description.hasPrefix("model.json:\(error.line):\(error.column): \(path): "), error.description,
                          file: file, line: testLine)
        } catch {
            XCTFail("expected a DocumentError, got \(error)", file: file, line: testLine)
        }
    }

    private func attributes(_ model: Model, _ entity: String) -> [String] {
        model.entity(named: entity)?.attributes.map { "\($0.name):\($0.type.rawValue)\($0.isOptional ? "?" : "")" } ?? []
    }

    private func relationships(_ model: Model, _ entity: String) -> [String] {
        model.entity(named: entity)?.relationships.map {
            "\($0.name)->\($0.destination)\($0.isToMany ? "*" : "")~\($0.inverse ?? "-")"
        } ?? []
    }

    /// Every relationship's inverse exists and points back at it.
    private func assertInversesPair(_ model: Model, file: StaticString = #filePath, line: UInt = #line) {
        for entity in model.entities {
            for r in entity.relationships {
                guard let inverse = model.inverse(of: r) else {
                    XCTFail("\(entity.name).\(r.name) has no inverse", file: file, line: line)
                    continue
                }
                XCTAssertEqual(inverse.destination, entity.name, file: file, line: line)
                XCTAssertEqual(model.inverse(of: inverse), r, "\(entity.name).\(r.name)", file: file, line: line)
            }
        }
    }

    // MARK: The books models

    func testBooksV1() throws {
        let model = try PackageFiles.books(1)
        XCTAssertEqual(model.version, "books-v1")
        XCTAssertEqual(model.entities.map(\.name), ["User", "Book"])
        XCTAssertEqual(attributes(model, "User"), ["userId:integer64", "name:string"])
        XCTAssertEqual(attributes(model, "Book"), ["title:string", "authorName:string?", "fileURL:uri?", "published:date?", "price:double?"])
        XCTAssertEqual(relationships(model, "User"), ["books->Book*~users"])
        XCTAssertEqual(relationships(model, "Book"), ["users->User*~books"])
        XCTAssertTrue(model.entities.allSatisfy { $0.parent == nil && !$0.isAbstract })
        assertInversesPair(model)
    }

    func testBooksV2() throws {
        let model = try PackageFiles.books(2)
        XCTAssertEqual(model.version, "books-v2")
        XCTAssertEqual(model.entities.map(\.name), ["User", "Book", "Author"])
        XCTAssertEqual(attributes(model, "Book"), ["title:string", "fileURL:uri?", "published:date?", "price:double?"])
        XCTAssertEqual(attributes(model, "Author"), ["name:string"])
        XCTAssertEqual(relationships(model, "Book"), ["users->User*~books", "authors->Author*~books"])
        XCTAssertEqual(relationships(model, "Author"), ["books->Book*~authors"])
        XCTAssertNil(model.attribute("authorName", of: "Book"), "v2 moved the author's name to Author")
        assertInversesPair(model)
    }

    func testBooksV3() throws {
        let model = try PackageFiles.books(3)
        XCTAssertEqual(model.version, "books-v3")
        XCTAssertEqual(model.entities.map(\.name), ["User", "Book", "Author", "File"])
        XCTAssertEqual(attributes(model, "File"), ["fileURL:uri"])
        XCTAssertEqual(attributes(model, "Book"), ["title:string", "published:date?", "price:double?"])
        XCTAssertEqual(relationships(model, "User"), ["files->File*~user"])
        XCTAssertEqual(relationships(model, "Book"), ["authors->Author*~books", "files->File*~book"])
        XCTAssertEqual(relationships(model, "File"), ["book->Book~files", "user->User~files"])
        let book = try XCTUnwrap(model.relationship("book", of: "File"))
        XCTAssertFalse(book.isToMany)
        XCTAssertFalse(book.isOptional)
        XCTAssertEqual(model.inverse(of: book)?.name, "files")
        XCTAssertEqual(model.inverse(of: book)?.isToMany, true)
        XCTAssertEqual(model.relationship("files", of: "User")?.isOptional, true, "optional by default")
        assertInversesPair(model)
    }

    func testMissingModelFile() {
        let path = PackageFiles.modelPath("no-such-model")
        XCTAssertThrowsError(try ModelFile.load(path: path)) { error in
            let e = error as? DocumentError
            XCTAssertEqual(e?.file, path)
            XCTAssertEqual(e?.message.contains("cannot read the model file"), true)
        }
    }

    func testAllAttributeKeysAndDefaults() throws {
        let model = try decodeModel("""
            {"version": "v9", "entities": [
              {"name": "Thing", "renamedFrom": "OldThing", "attributes": [
                {"name": "count", "type": "integer16", "default": 3},
                {"name": "big", "type": "integer64", "default": "-9223372036854775808"},
                {"name": "ratio", "type": "double", "default": 0.5},
                {"name": "flag", "type": "boolean", "default": "YES"},
                {"name": "off", "type": "boolean", "default": false},
                {"name": "label", "type": "string", "default": "none", "optional": false, "renamedFrom": "title"},
                {"name": "when", "type": "date", "default": "0"},
                {"name": "data", "type": "binary"}
              ]}
            ]}
            """)
        XCTAssertEqual(model.version, "v9")
        let thing = try XCTUnwrap(model.entity(named: "Thing"))
        XCTAssertEqual(thing.renamingIdentifier, "OldThing")
        XCTAssertEqual(thing.attributes.map(\.defaultValue), [.integer(3), .integer(Int64.min), .real(0.5), .integer(1), .integer(0), .text("none"), .real(0), nil])
        XCTAssertEqual(thing.attributes.map(\.isOptional), [true, true, true, true, true, false, true, true])
        XCTAssertEqual(model.attribute("label", of: "Thing")?.renamingIdentifier, "title")
    }

    func testAllRelationshipKeys() throws {
        let model = try decodeModel("""
            {"version": "v1", "entities": [
              {"name": "A", "relationships": [
                {"name": "bs", "destination": "B", "inverse": "a", "toMany": true, "ordered": true,
                 "optional": false, "minCount": 1, "maxCount": 5, "renamedFrom": "items"}]},
              {"name": "B", "relationships": [{"name": "a", "destination": "A", "inverse": "bs"}]}
            ]}
            """)
        let bs = try XCTUnwrap(model.relationship("bs", of: "A"))
        XCTAssertEqual(bs, Relationship(name: "bs", destination: "B", inverse: "a", isToMany: true, isOrdered: true,
                                        isOptional: false, minCount: 1, maxCount: 5, renamingIdentifier: "items"))
        XCTAssertEqual(model.relationship("a", of: "B"), Relationship(name: "a", destination: "A", inverse: "bs"))
    }

    // MARK: Errors

    func testUnknownKeyWithSuggestion() {
        assertError("""
            {
              "version": "v1",
              "entities": [
                { "name": "Book",
                  "atributes": [] }
              ]
            }
            """, path: "$.entities[0].atributes", line: 5, column: 20, "unknown key 'atributes' (did you mean 'attributes'?)")
        assertError("""
            {"version": "v1", "entites": []}
            """, path: "$.entites", line: 1, column: 30, "unknown key 'entites' (did you mean 'entities'?)")
        assertError("""
            {"version": "v1", "entities": [{"name": "A",
              "relationships": [{"name": "r", "destinaton": "A"}]}]}
            """, path: "$.entities[0].relationships[0].destinaton", line: 2, column: 49, "(did you mean 'destination'?)")
        assertError("""
            {"version": "v1", "entities": [], "colour": "red"}
            """, path: "$.colour", line: 1, column: 45, "unknown key 'colour'; allowed here: version, entities")
    }

    func testUnknownAttributeTypeWithSuggestion() {
        assertError("""
            {
              "version": "v1",
              "entities": [
                { "name": "Book",
                  "attributes": [
                    { "name": "title", "type": "strng" }
                  ] }
              ]
            }
            """, path: "$.entities[0].attributes[0].type", line: 6, column: 36,
            "unknown attribute type 'strng' (did you mean 'string'?)", "one of: integer16, integer32, integer64, decimal")
        assertError("""
            {"version": "v1", "entities": [{"name": "A", "attributes": [{"name": "x", "type": "whatever"}]}]}
            """, path: "$.entities[0].attributes[0].type", line: 1, column: 83, "unknown attribute type 'whatever'; one of: ")
    }

    func testRelationshipToUnknownEntity() {
        assertError("""
            {
              "version": "v1",
              "entities": [
                { "name": "Author" },
                { "name": "Book",
                  "relationships": [
                    { "name": "authors", "destination": "Autor", "toMany": true }
                  ] }
              ]
            }
            """, path: "$.entities[1].relationships[0].destination", line: 7, column: 45,
            "relationship Book.authors: destination: unknown entity 'Autor' (did you mean 'Author'?)")
    }

    func testInverseThatDoesNotExist() {
        assertError("""
            {
              "version": "v1",
              "entities": [
                { "name": "Author",
                  "relationships": [{ "name": "books", "destination": "Book", "inverse": "authors", "toMany": true }] },
                { "name": "Book",
                  "relationships": [
                    { "name": "writers", "destination": "Author", "inverse": "books", "toMany": true }
                  ] }
              ]
            }
            """, path: "$.entities[0].relationships[0].inverse", line: 5, column: 78,
            "relationship Author.books: inverse 'authors' is not a relationship of Book")
    }

    func testInverseThatNamesAnotherRelationship() {
        assertError("""
            {"version": "v1", "entities": [
              {"name": "A", "relationships": [{"name": "b", "destination": "B", "inverse": "a"},
                                              {"name": "c", "destination": "B"}]},
              {"name": "B", "relationships": [{"name": "a", "destination": "A", "inverse": "c"}]}
            ]}
            """, path: "$.entities[0].relationships[0].inverse", line: 2, column: 80,
            "relationship A.b: its inverse B.a names 'c' as its own inverse")
    }

    func testInverseMustPointBackAtTheEntity() {
        // B.back names A.rel's name as its inverse, but points at C, not A: the pair is not a pair.
        assertError("""
            {"version": "v1", "entities": [
              {"name": "A", "relationships": [{"name": "rel", "destination": "B", "inverse": "back"}]},
              {"name": "B", "relationships": [{"name": "back", "destination": "C", "inverse": "rel"}]},
              {"name": "C", "relationships": [{"name": "rel", "destination": "B", "inverse": "back"}]}
            ]}
            """, path: "$.entities[0].relationships[0].inverse", line: 2, column: 82,
            "relationship A.rel: its inverse B.back points at C, not at A")
        // Along an inheritance line it is fine: Person.company ↔ Company.staff (→ Employee, a Person).
        XCTAssertNoThrow(try decodeModel("""
            {"version": "v1", "entities": [
              {"name": "Person", "relationships": [{"name": "company", "destination": "Company", "inverse": "staff"}]},
              {"name": "Employee", "parent": "Person"},
              {"name": "Company", "relationships": [{"name": "staff", "destination": "Employee", "inverse": "company", "toMany": true}]}
            ]}
            """))
    }

    func testDuplicateEntity() {
        assertError("""
            {
              "version": "v1",
              "entities": [
                { "name": "Book" },
                { "name": "Author" },
                  { "name": "Book" }
              ]
            }
            """, path: "$.entities[2]", line: 6, column: 7, "duplicate entity 'Book'")
    }

    func testDuplicateProperty() {
        assertError("""
            {"version": "v1", "entities": [{"name": "Book",
              "attributes": [{"name": "title", "type": "string"},
                             {"name": "title", "type": "string"}]}]}
            """, path: "$.entities[0].attributes[1]", line: 3, column: 18, "duplicate property 'title' in entity Book")
        assertError("""
            {"version": "v1", "entities": [{"name": "Book",
              "attributes": [{"name": "author", "type": "string"}],
              "relationships": [{"name": "author", "destination": "Book"}]}]}
            """, path: "$.entities[0].relationships[0]", line: 3, column: 21, "duplicate property 'author' in entity Book")
    }

    func testParentCycle() {
        assertError("""
            {"version": "v1", "entities": [
              {"name": "A", "parent": "B"},
              {"name": "B", "parent": "A"}
            ]}
            """, path: "$.entities[0].parent", line: 2, column: 27, "entity A is its own ancestor through 'parent'")
        assertError("""
            {"version": "v1", "entities": [
              {"name": "Self", "parent": "Self"}
            ]}
            """, path: "$.entities[0].parent", line: 2, column: 30, "entity Self is its own ancestor")
        assertError("""
            {"version": "v1", "entities": [
              {"name": "A", "parent": "C"}, {"name": "B", "parent": "A"}, {"name": "C", "parent": "B"}
            ]}
            """, path: "$.entities[0].parent", line: 2, column: 27, "entity A is its own ancestor")
        assertError("""
            {"version": "v1", "entities": [
              {"name": "Person"}, {"name": "Employee", "parent": "Persn"}
            ]}
            """, path: "$.entities[1].parent", line: 2, column: 54, "parent: unknown entity 'Persn' (did you mean 'Person'?)")
    }

    func testBadDefaultForAnInteger() {
        assertError("""
            {"version": "v1", "entities": [{"name": "Book", "attributes": [
              {"name": "pages", "type": "integer32",
               "default": "ten"}]}]}
            """, path: "$.entities[0].attributes[0].default", line: 3, column: 15,
            "'ten' is not a valid default for a integer32 attribute")
        assertError("""
            {"version": "v1", "entities": [{"name": "Book", "attributes": [{"name": "pages", "type": "integer64", "default": 1.5}]}]}
            """, path: "$.entities[0].attributes[0].default", line: 1, column: 114, "'1.5' is not a valid default")
        assertError("""
            {"version": "v1", "entities": [{"name": "Book", "attributes": [{"name": "pages", "type": "integer64", "default": [1]}]}]}
            """, path: "$.entities[0].attributes[0].default", line: 1, column: 114,
            "expected a default value for a integer64 attribute, found an array")
    }

    func testIntegerDefaultsMustFitTheirType() {
        for (type, ok, bad) in [("integer16", "32767", "32768"), ("integer32", "-2147483648", "-2147483649"),
                                ("integer64", "9223372036854775807", "9223372036854775808")] {
            let json = { (value: String) in
                #"{"version": "v1", "entities": [{"name": "T", "attributes": [{"name": "n", "type": "\#(type)", "default": \#(value)}]}]}"#
            }
            XCTAssertEqual(try decodeModel(json(ok)).attribute("n", of: "T")?.defaultValue, .integer(Int64(ok)!), type)
            XCTAssertThrowsError(try decodeModel(json(bad)), type) { error in
                XCTAssertEqual((error as? DocumentError)?.message, "'\(bad)' is not a valid default for a \(type) attribute")
            }
        }
    }

    func testTypeErrorsOfValues() {
        assertError(#"{"version": "", "entities": []}"#, path: "$.version", line: 1, column: 13, "must not be empty")
        assertError(#"{"version": "v1"}"#, path: "$", line: 1, column: 1, "missing required key 'entities'")
        assertError(#"{"version": "v1", "entities": {}}"#, path: "$.entities", line: 1, column: 31, "expected an array, found an object")
        assertError(#"{"version": "v1", "entities": [{"name": "A", "abstract": "yes"}]}"#, path: "$.entities[0].abstract",
                    line: 1, column: 58, "expected true or false, found a string")
        assertError(#"{"version": "v1", "entities": [{"name": "A", "relationships": [{"name": "r", "destination": "A", "maxCount": -1}]}]}"#,
                    path: "$.entities[0].relationships[0].maxCount", line: 1, column: 110, "-1 is out of range")
    }

    // MARK: Model lookups

    private func hierarchy() throws -> Model {
        try decodeModel("""
            {"version": "h1", "entities": [
              {"name": "Person", "abstract": true,
               "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "company", "destination": "Company", "inverse": "staff"}]},
              {"name": "Employee", "parent": "Person",
               "attributes": [{"name": "salary", "type": "decimal"}],
               "relationships": [{"name": "manager", "destination": "Manager", "inverse": "reports"}]},
              {"name": "Manager", "parent": "Employee",
               "attributes": [{"name": "level", "type": "integer16"}],
               "relationships": [{"name": "reports", "destination": "Employee", "inverse": "manager", "toMany": true}]},
              {"name": "Customer", "parent": "Person",
               "attributes": [{"name": "since", "type": "date"}]},
              {"name": "Company",
               "attributes": [{"name": "name", "type": "string"}],
               "relationships": [{"name": "staff", "destination": "Person", "inverse": "company", "toMany": true}]}
            ]}
            """)
    }

    func testLineageRootAndDescendants() throws {
        let model = try hierarchy()
        XCTAssertEqual(model.entity(named: "Person")?.isAbstract, true)
        XCTAssertEqual(model.entity(named: "Employee")?.isAbstract, false)
        XCTAssertEqual(model.lineage(of: "Manager").map(\.name), ["Manager", "Employee", "Person"])
        XCTAssertEqual(model.lineage(of: "Person").map(\.name), ["Person"])
        XCTAssertEqual(model.lineage(of: "Nobody").map(\.name), [])
        XCTAssertEqual(model.root(of: "Manager"), "Person")
        XCTAssertEqual(model.root(of: "Customer"), "Person")
        XCTAssertEqual(model.root(of: "Company"), "Company")
        XCTAssertEqual(model.root(of: "Nobody"), "Nobody")
        XCTAssertEqual(model.descendants(of: "Person"), ["Person", "Employee", "Manager", "Customer"])
        XCTAssertEqual(model.descendants(of: "Employee"), ["Employee", "Manager"])
        XCTAssertEqual(model.descendants(of: "Customer"), ["Customer"])
        XCTAssertEqual(model.descendants(of: "Company"), ["Company"])
    }

    func testInheritedAttributesAndRelationships() throws {
        let model = try hierarchy()
        XCTAssertEqual(model.attributes(of: "Manager").map(\.name), ["name", "salary", "level"], "inherited first")
        XCTAssertEqual(model.attributes(of: "Customer").map(\.name), ["name", "since"])
        XCTAssertEqual(model.attributes(of: "Person").map(\.name), ["name"])
        XCTAssertEqual(model.relationships(of: "Manager").map(\.name), ["company", "manager", "reports"])
        XCTAssertEqual(model.relationships(of: "Customer").map(\.name), ["company"])
        XCTAssertEqual(model.attribute("name", of: "Manager")?.type, .string)
        XCTAssertEqual(model.attribute("salary", of: "Manager")?.type, .decimal)
        XCTAssertNil(model.attribute("salary", of: "Customer"), "siblings do not share")
        XCTAssertNil(model.attribute("level", of: "Employee"), "parents do not see their children's properties")
        XCTAssertEqual(model.relationship("company", of: "Manager")?.destination, "Company")
        XCTAssertNil(model.relationship("reports", of: "Employee"))

        let staff = try XCTUnwrap(model.relationship("staff", of: "Company"))
        XCTAssertEqual(model.inverse(of: staff)?.name, "company")
        let reports = try XCTUnwrap(model.relationship("reports", of: "Manager"))
        XCTAssertEqual(model.inverse(of: reports), model.relationship("manager", of: "Manager"))
        XCTAssertNil(model.inverse(of: Relationship(name: "x", destination: "Company")))
    }
}
