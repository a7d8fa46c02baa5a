import Foundation
import XCTest
import ETLStore
import ETLModel
import ETLExpression
import ETLCoreData

final class CoreDataInferredMappingTests: XCTestCase {
    /// Notes v1: a note with a title and a body, in a folder.
    private func v1() throws -> Model {
        try decodeModel("""
            { "version": "notes-v1", "entities": [
              { "name": "Note", "attributes": [
                  { "name": "title", "type": "string", "optional": false },
                  { "name": "body", "type": "string" },
                  { "name": "rating", "type": "string" },
                  { "name": "pinned", "type": "boolean" } ],
                "relationships": [ { "name": "folder", "destination": "Folder", "inverse": "notes" } ] },
              { "name": "Folder", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [ { "name": "notes", "destination": "Note", "inverse": "folder", "toMany": true } ] } ] }
            """)
    }

    private func assertRefused(_ source: Model, _ destination: Model, entity: String, property: String?, _ parts: [String],
                               suggestion: [String], file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertThrowsError(try InferredMapping.infer(from: source, to: destination), file: file, line: line) { error in
            guard let error = error as? InferredMappingError else { return XCTFail("\(error)", file: file, line: line) }
            XCTAssertEqual(error.entity, entity, file: file, line: line)
            XCTAssertEqual(error.property, property, file: file, line: line)
            for part in parts {
                XCTAssertTrue(error.message.contains(part), "'\(error.message)' should contain '\(part)'", file: file, line: line)
            }
            for part in suggestion {
                XCTAssertTrue(error.suggestion.contains(part), "suggestion '\(error.suggestion)' should contain '\(part)'", file: file, line: line)
            }
            XCTAssertTrue(error.description.contains(error.suggestion), file: file, line: line)
        }
    }

    // MARK: The fixture chain

    func testEachFixtureHopCarriesTheAttributeAcrossTheRename() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        for (from, to) in zip(bundle.versions, bundle.versions.dropFirst()) {
            let step = try InferredMapping.infer(from: from, to: to)
            XCTAssertEqual(step.sourceVersion, from.version)
            XCTAssertEqual(step.destinationVersion, to.version)
            XCTAssertEqual(step.mappings, [InferredEntityMapping(
                name: "BasicEntityToBasicEntity", source: "BasicEntity", destination: "BasicEntity",
                attributes: [.init(destination: to.entities[0].attributes[0].name, value: .source(from.entities[0].attributes[0].name))])],
                "\(from.version) → \(to.version)")
            XCTAssertEqual(step.droppedProperties, [])
            XCTAssertEqual(step.newEntities, [])
            XCTAssertEqual(step.droppedEntities, [])
        }
    }

    /// Renaming identifiers name the previous version only: v2.0.0 names v1_2_0_name, which
    /// v1.0.0 does not have. Straight from v1.0.0 the attribute is not matched: the inferred
    /// step maps the entity but drops the old attribute and leaves the new one null — it does
    /// not refuse (like Core Data's lightweight migration), and says what it drops. Migrate
    /// hop by hop to keep the value.
    func testSkippingVersionsMapsNothingAcrossSeveralRenames() throws {
        let bundle = try SharedFixtures.bundle(for: self)
        let step = try InferredMapping.infer(from: XCTUnwrap(bundle.version(named: "v1.0.0")), to: XCTUnwrap(bundle.version(named: "v2.0.0")))
        XCTAssertEqual(step.mappings.count, 1)
        XCTAssertEqual(step.mappings[0].attributes, [.init(destination: "v2_0_0_name", value: .null)])
        XCTAssertEqual(step.droppedProperties, ["BasicEntity.v1_0_0_name"])
    }

    // MARK: What is inferred

    func testAddedRemovedDefaultsAndRequirednessChanges() throws {
        let v2 = try decodeModel("""
            { "version": "notes-v2", "entities": [
              { "name": "Note", "attributes": [
                  { "name": "title", "type": "string", "optional": false },
                  { "name": "text", "type": "string", "renamedFrom": "body" },
                  { "name": "pinned", "type": "boolean", "optional": false, "default": false },
                  { "name": "subtitle", "type": "string" },
                  { "name": "views", "type": "integer32", "optional": false, "default": 0 },
                  { "name": "color", "type": "string", "default": "yellow" } ],
                "relationships": [ { "name": "folder", "destination": "Folder", "inverse": "notes" } ] },
              { "name": "Folder", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [ { "name": "notes", "destination": "Note", "inverse": "folder", "toMany": true } ] },
              { "name": "Tag", "attributes": [ { "name": "label", "type": "string" } ] } ] }
            """)
        let step = try InferredMapping.infer(from: v1(), to: v2)
        let note = try XCTUnwrap(step.mapping(named: "NoteToNote"))
        XCTAssertEqual(note.attributes, [
            .init(destination: "title", value: .source("title")),
            .init(destination: "text", value: .source("body")),
            .init(destination: "pinned", value: .sourceOrDefault("pinned", .integer(0))),
            .init(destination: "subtitle", value: .null),
            .init(destination: "views", value: .defaultValue(.integer(0))),
            .init(destination: "color", value: .defaultValue(.text("yellow"))),
        ])
        XCTAssertEqual(step.droppedProperties, ["Note.rating"])
        XCTAssertEqual(step.newEntities, ["Tag"])
        XCTAssertEqual(step.mappings.map(\.name), ["NoteToNote", "FolderToFolder"])
        // One side of the inverse pair: the to-one.
        XCTAssertEqual(note.relationships, [.init(destination: "folder", source: "folder", mappings: ["FolderToFolder"], isToMany: false)])
        XCTAssertEqual(step.mapping(named: "FolderToFolder")?.relationships, [])
    }

    func testEntityRenameAndToOneBecomingToMany() throws {
        let v2 = try decodeModel("""
            { "version": "notes-v2", "entities": [
              { "name": "Memo", "renamedFrom": "Note", "attributes": [
                  { "name": "title", "type": "string", "optional": false },
                  { "name": "body", "type": "string" }, { "name": "rating", "type": "string" }, { "name": "pinned", "type": "boolean" } ],
                "relationships": [ { "name": "folders", "renamedFrom": "folder", "destination": "Folder", "inverse": "memos", "toMany": true } ] },
              { "name": "Folder", "attributes": [ { "name": "name", "type": "string" } ],
                "relationships": [ { "name": "memos", "renamedFrom": "notes", "destination": "Memo", "inverse": "folders", "toMany": true } ] } ] }
            """)
        let step = try InferredMapping.infer(from: v1(), to: v2)
        XCTAssertEqual(step.mappings.map(\.name), ["NoteToMemo", "FolderToFolder"])
        let memo = try XCTUnwrap(step.mapping(named: "NoteToMemo"))
        XCTAssertEqual(memo.source, "Note")
        XCTAssertEqual(memo.attributes.count, 4)
        // Many-to-many now: one side is kept ("Folder.memos" sorts before "Memo.folders").
        XCTAssertEqual(memo.relationships, [])
        XCTAssertEqual(step.mapping(named: "FolderToFolder")?.relationships,
                       [.init(destination: "memos", source: "notes", mappings: ["NoteToMemo"], isToMany: true)])
        XCTAssertEqual(step.droppedEntities, [])
    }

    func testSubEntitiesGetTheirOwnMappingsWithInheritedAttributes() throws {
        let source = try decodeModel("""
            { "version": "a", "entities": [
              { "name": "Item", "abstract": true, "attributes": [ { "name": "title", "type": "string" } ] },
              { "name": "Song", "parent": "Item", "attributes": [ { "name": "length", "type": "double" } ] },
              { "name": "Video", "parent": "Item" } ] }
            """)
        var destination = source
        destination.version = "b"
        destination.entities[0].attributes.append(Attribute(name: "added", type: .date))
        let step = try InferredMapping.infer(from: source, to: destination)
        XCTAssertEqual(step.mappings.map(\.name), ["SongToSong", "VideoToVideo"], "no mapping for the abstract entity")
        XCTAssertEqual(step.mapping(named: "SongToSong")?.attributes.map(\.destination), ["title", "added", "length"])
        XCTAssertEqual(step.mapping(named: "VideoToVideo")?.attribute("added")?.value, .null)
    }

    // MARK: What is refused

    func testTypeChangeIsRefusedWithASuggestion() throws {
        var v2 = try v1()
        v2.version = "notes-v2"
        v2.entities[0].attributes[2].type = .integer16
        assertRefused(try v1(), v2, entity: "Note", property: "rating",
                      ["Note.rating changes type from string", "to integer16"],
                      suggestion: [#""name": "NoteToNote""#, #""source": "Note""#, #""rating": "integer($source.rating)""#,
                                   #""title": "$source.title""#, #""folder": "destination('FolderToFolder', $source.folder)""#])
    }

    func testNewRequiredAttributeWithoutDefaultIsRefused() throws {
        var v2 = try v1()
        v2.version = "notes-v2"
        v2.entities[0].attributes.append(Attribute(name: "created", type: .date, isOptional: false))
        assertRefused(try v1(), v2, entity: "Note", property: "created", ["Note.created is new, required and has no default"],
                      suggestion: [#""created": "date('2001-01-01T00:00:00Z')""#])
    }

    func testOptionalBecomingRequiredWithoutDefaultIsRefused() throws {
        var v2 = try v1()
        v2.version = "notes-v2"
        v2.entities[0].attributes[1].isOptional = false
        assertRefused(try v1(), v2, entity: "Note", property: "body", ["Note.body becomes required and has no default"],
                      suggestion: [#""body": "coalesce($source.body, '')""#])
    }

    func testRelationshipToAnEntityThatIsGoneIsRefused() throws {
        // Folder is renamed without a renaming identifier: Note.folder's rows have no mapping.
        var v2 = try v1()
        v2.version = "notes-v2"
        v2.entities[1].name = "Group"
        v2.entities[0].relationships[0].destination = "Group"
        assertRefused(try v1(), v2, entity: "Note", property: "folder",
                      ["Note.folder (from Note.folder) links to Folder rows", "no destination entity takes entity Folder"],
                      suggestion: [#""name": "NoteToNote""#])
    }

    func testToManyBecomingToOneIsRefused() throws {
        var v2 = try v1()
        v2.version = "notes-v2"
        v2.entities[1].relationships[0].isToMany = false
        v2.entities[0].relationships[0].inverse = "notes"
        assertRefused(try v1(), v2, entity: "Folder", property: "notes", ["Folder.notes becomes to-one"], suggestion: ["FolderToFolder"])
    }

    func testEveryProblemIsListed() throws {
        var v2 = try v1()
        v2.version = "notes-v2"
        v2.entities[0].attributes[2].type = .integer16
        v2.entities[1].attributes.append(Attribute(name: "position", type: .integer64, isOptional: false))
        XCTAssertThrowsError(try InferredMapping.infer(from: v1(), to: v2)) { error in
            guard let error = error as? InferredMappingError else { return XCTFail("\(error)") }
            XCTAssertEqual(error.problems.map { "\($0.entity).\($0.property ?? "")" }, ["Note.rating", "Folder.position"])
            XCTAssertTrue(error.suggestion.contains("NoteToNote") && error.suggestion.contains("FolderToFolder"), error.suggestion)
            XCTAssertTrue(error.suggestion.contains(#""folder": "destination('FolderToFolder', $source.folder)""#), error.suggestion)
            XCTAssertFalse(error.suggestion.contains(#""notes":"#), "one side of an inverse pair only: \(error.suggestion)")
            XCTAssertTrue(error.description.hasPrefix("cannot infer a mapping from notes-v1 to notes-v2: "), error.description)
        }
    }
}
