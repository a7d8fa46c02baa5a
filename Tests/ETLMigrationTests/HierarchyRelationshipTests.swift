import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// Relationships into an entity hierarchy: a to-one to an abstract entity whose rows are
/// made by its sub-entities' mappings (`Note.about` → `Contact`, of which `Person` and
/// `Company`), and the to-many inverse each sub-entity's mapping fills.
final class HierarchyRelationshipTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static func model(_ extra: String) -> String {
        ModelBundleFiles.model("""
            <entity name="Contact" isAbstract="YES">
                <attribute name="name" optional="YES" attributeType="String"/>
                <relationship name="notes" optional="YES" toMany="YES" destinationEntity="Note" inverseName="about"/>
            </entity>
            <entity name="Person" parentEntity="Contact"><attribute name="age" optional="YES" attributeType="Integer 64"/></entity>
            <entity name="Company" parentEntity="Contact"><attribute name="city" optional="YES" attributeType="String"/></entity>
            <entity name="Note">
                <attribute name="text" optional="YES" attributeType="String"/>\(extra)
                <relationship name="about" optional="YES" maxCount="1" destinationEntity="Contact" inverseName="notes"/>
            </entity>
            """)
    }

    /// The inferred hop writes `about` as `coalesce(destination('Person…', $source.about),
    /// destination('Company…', $source.about))`, which plans (a row of Contact may be a row
    /// of either), and migrates every link to the row it pointed at, with the entity Core
    /// Data records beside the key; pushed down and row by row give the same store.
    func testAToOneIntoAHierarchyMigratesByInferencePushedDownAndRowByRow() throws {
        let bundle = folder.url.appendingPathComponent("Contacts.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("c1", Self.model("")),
                                                      ("c2", Self.model(#"<attribute name="pinned" optional="YES" attributeType="Boolean"/>"#))])
        let models = try ModelBundle.load(path: bundle.path)
        let store = try BuiltStore(try XCTUnwrap(models.version(named: "c1")), at: folder.path("c1.sqlite"))
        try store.insert("Person", 1, ["name": .text("Ada"), "age": .integer(36)])
        try store.insert("Person", 2, ["name": .text("Alan"), "age": .integer(41)])
        try store.insert("Company", 3, ["name": .text("Acme"), "city": .text("Bern")])
        try store.insert("Company", 4, ["name": .text("Initech"), "city": .text("Austin")])
        let about: [Int64: Int64?] = [1: 1, 2: 3, 3: 2, 4: 4, 5: nil, 6: 3]
        for key in about.keys.sorted() {
            try store.insert("Note", key, ["text": .text("n\(key)"), "about": about[key]!.map(SQLValue.integer) ?? .null])
        }
        store.close()
        let source = URL(fileURLWithPath: folder.path("c1.sqlite"))
        var dumps: [[String]] = []
        for (out, pushdown) in [("pushed.sqlite", true), ("row-by-row.sqlite", false)] {
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path(out), version: "c2"))
            migration.options.pushdown = pushdown
            let summary = try migration.run()
            XCTAssertEqual(summary.mappings.map(\.written).reduce(0, +), 10)
            let read = try ReadStore(try XCTUnwrap(models.version(named: "c2")), at: folder.path(out))
            var names: [SQLValue: SQLValue] = [:]
            for entity in ["Person", "Company"] {
                for row in try read.rows(entity, ["name"]) { names[row[0]] = row[1] }
            }
            let notes = try read.rows("Note", ["text", "about"])
            XCTAssertEqual(notes.map { $0[1] }, (Int64(1)...6).map { .text("n\($0)") })
            XCTAssertEqual(notes.map { $0[2] == .null ? .null : names[$0[2]] },
                           [.text("Ada"), .text("Acme"), .text("Alan"), .text("Initech"), .null, .text("Acme")], "every note about the contact it was about")
            // Core Data keeps the entity of the row a to-one into a hierarchy points at.
            let layout = read.layout
            if let column = layout.entityColumn(ofRelationship: "about", entity: "Note") {
                let keyColumn: String
                if case .foreignKey(_, let c) = layout.storage(ofRelationship: "about", entity: "Note") { keyColumn = c } else { keyColumn = "" }
                let contacts = layout.table(of: "Person").name
                XCTAssertEqual(try read.db.scalarInt("""
                    SELECT count(*) FROM \(Database.quote(layout.table(of: "Note").name)) n JOIN \(Database.quote(contacts)) c ON c.Z_PK = n.\(Database.quote(keyColumn))
                    WHERE n.\(Database.quote(column)) = c.Z_ENT
                    """), 5, "the entity column of each link is its row's entity")
            }
            dumps.append(try storeDump(folder.path(out), excluding: ["Z_METADATA"]))
        }
        XCTAssertEqual(dumps[0], dumps[1])
    }

    /// A to-one into a hierarchy of a mapping grouped by `uniqueBy`: two notes of one text,
    /// the first about a company, the second about a person. Row by row the first source
    /// row whose coalesce() finds a row sets the link; one statement per part would let the
    /// people's win, so such a step is not split, and both ways give one store.
    func testACoalescedToOneOfAGroupedMappingLinksAlikePushedDownAndRowByRow() throws {
        let bundle = folder.url.appendingPathComponent("Contacts.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("c1", Self.model("")), ("c2", Self.model(#"<attribute name="pinned" optional="YES" attributeType="Boolean"/>"#))])
        let models = try ModelBundle.load(path: bundle.path)
        let store = try BuiltStore(try XCTUnwrap(models.version(named: "c1")), at: folder.path("c1.sqlite"))
        try store.insert("Person", 1, ["name": .text("Ada")])
        try store.insert("Company", 2, ["name": .text("Acme")])
        try store.insert("Note", 1, ["text": .text("same"), "about": .integer(2)])
        try store.insert("Note", 2, ["text": .text("same"), "about": .integer(1)])
        try store.insert("Note", 3, ["text": .text("other"), "about": .integer(1)])
        store.close()
        let about = "coalesce(destination('People', $source.about), destination('Companies', $source.about))"
        let steps = #", "mappingModels": false, "steps": [ { "from": "c1", "to": "c2", "mappings": [ "#
            + #"{ "name": "People", "source": "Person", "destination": "Person", "attributes": { "name": "$source.name" } }, "#
            + #"{ "name": "Companies", "source": "Company", "destination": "Company", "attributes": { "name": "$source.name" } }, "#
            + #"{ "name": "Notes", "source": "Note", "destination": "Note", "uniqueBy": "$source.text", "attributes": { "text": "$source.text" }, "#
            + #""relationships": { "about": "\#(about)" } } ] } ]"#
        var outputs: [String] = []
        for pushdown in [true, false] {
            let out = folder.path("grouped-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: folder.path("c1.sqlite")),
                                                                            destination: out, version: "c2", extra: steps))
            migration.options.pushdown = pushdown
            _ = try migration.run()
            let read = try ReadStore(try XCTUnwrap(models.version(named: "c2")), at: out)
            XCTAssertEqual(try read.rows("Note", ["text", "about"]).map { [$0[1], $0[2]] }, [[.text("same"), .integer(2)], [.text("other"), .integer(1)]],
                           "pushdown \(pushdown): the first note's company")
            outputs.append(out)
        }
        try assertSameStore(outputs[0], outputs[1], excluding: ["Z_METADATA"])
    }

    /// A mapping model between two hierarchies: `Discussion` (Forum, Thread) and `Message`
    /// (Sent, Received), each sub-entity with its own entity mapping, relationships
    /// auto-generated. `Message.discussion` is a to-one into the hierarchy (either
    /// discussion mapping's row); `Discussion.messages`, filled by both message mappings, is
    /// left out because each of them sets its inverse. The import plans, and runs to the
    /// links the source had.
    func testAMappingModelBetweenTwoHierarchiesImportsAndRuns() throws {
        let bundle = folder.url.appendingPathComponent("Chat.xcdatamodeld")
        func model(_ extra: String) -> String {
            ModelBundleFiles.model("""
                <entity name="Discussion" isAbstract="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="messages" optional="YES" toMany="YES" destinationEntity="Message" inverseName="discussion"/>
                </entity>
                <entity name="Forum" parentEntity="Discussion"/>
                <entity name="Thread" parentEntity="Discussion"/>
                <entity name="Message" isAbstract="YES">
                    <attribute name="text" optional="YES" attributeType="String"/>\(extra)
                    <relationship name="discussion" optional="YES" maxCount="1" destinationEntity="Discussion" inverseName="messages"/>
                </entity>
                <entity name="Sent" parentEntity="Message"/>
                <entity name="Received" parentEntity="Message"/>
                """)
        }
        try ModelBundleFiles.write(bundle, versions: [("h1", model("")), ("h2", model(#"<attribute name="read" optional="YES" attributeType="Boolean"/>"#))])
        let mapping = folder.url.appendingPathComponent("h1ToH2.xcmappingmodel")
        let entities = [("Forum", "title", "messages"), ("Thread", "title", "messages"), ("Sent", "text", "discussion"), ("Received", "text", "discussion")]
        try MappingModelXML(source: "App/Chat.xcdatamodeld/h1.xcdatamodel", destination: "App/Chat.xcdatamodeld/h2.xcdatamodel",
                            mappings: entities.map { entity, attribute, relationship in
                                .init(entity, attributes: [.init(attribute)], relationships: [.init(relationship)])
                            }).write(to: mapping)
        let models = try ModelBundle.load(path: bundle.path)
        let imported = try MappingModelImport.step(try XCMappingModel.load(path: mapping.path), source: try XCTUnwrap(models.version(named: "h1")),
                                                   destination: try XCTUnwrap(models.version(named: "h2")))
        XCTAssertEqual(imported.mappings.map { $0.relationships.map(\.expression) }, [[], [], Array(repeating: "coalesce(destination('ForumToForum', $source.discussion), "
            + "destination('ThreadToThread', $source.discussion))", count: 1), Array(repeating: "coalesce(destination('ForumToForum', $source.discussion), "
            + "destination('ThreadToThread', $source.discussion))", count: 1)])
        XCTAssertEqual(imported.notes.filter { $0.contains(".messages links rows of several mappings (SentToSent, ReceivedToReceived)") }.count, 2, "\(imported.notes)")

        let store = try BuiltStore(try XCTUnwrap(models.version(named: "h1")), at: folder.path("h1.sqlite"))
        try store.insert("Forum", 1, ["title": .text("f")])
        try store.insert("Thread", 2, ["title": .text("t")])
        let discussion: [Int64: Int64?] = [1: 1, 2: 2, 3: 2, 4: nil, 5: 1]
        for key in discussion.keys.sorted() {
            try store.insert(key % 2 == 0 ? "Received" : "Sent", key, ["text": .text("m\(key)"), "discussion": discussion[key]!.map(SQLValue.integer) ?? .null])
        }
        store.close()
        let path = try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: folder.path("h1.sqlite")), destination: folder.path("h2.sqlite"),
                                               version: "h2", extra: #", "mappingModels": false, "steps": [ { "from": "h1", "to": "h2", "mappingModel": "\#(mapping.path)" } ]"#)
        _ = try Migration(pipeline: path).run()
        let read = try ReadStore(try XCTUnwrap(models.version(named: "h2")), at: folder.path("h2.sqlite"))
        var titles: [SQLValue: SQLValue] = [:]
        for entity in ["Forum", "Thread"] { for row in try read.rows(entity, ["title"]) { titles[row[0]] = row[1] } }
        let messages = try ["Sent", "Received"].flatMap { try read.rows($0, ["text", "discussion"]) }.sorted { "\($0[1])" < "\($1[1])" }
        XCTAssertEqual(messages.map { $0[1] }, (1...5).map { .text("m\($0)") })
        XCTAssertEqual(messages.map { $0[2] == .null ? .null : titles[$0[2]] }, [.text("f"), .text("t"), .text("t"), .null, .text("f")])
    }
}
