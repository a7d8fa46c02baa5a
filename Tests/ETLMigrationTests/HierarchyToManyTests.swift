import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline
import ETL
import ETLTestSupport

/// Relationships into entity hierarchies whose rows several mappings make (one per
/// sub-entity): a to-one into a hierarchy (`Note.about` → Discussion: Forum, Thread), a
/// to-many filled by both sub-entities' mappings (`Discussion.messages` → Message: Sent,
/// Received), and a many-to-many between two hierarchies (`Message.tags` ↔ `Tag.messages`,
/// Tag: Label, Topic). Inferred, as an explicit step and as a mapping model, pushed down and
/// row by row: six runs, one store, with every link the source had.
final class HierarchyToManyTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static func model(_ extra: String) -> String { ChatHierarchy.model(extra) }
    static let entityMappings = ChatHierarchy.entityMappings
    func writeMappingModel(_ url: URL) throws { try ChatHierarchy.writeMappingModel(url) }

    /// The explicit step a person writes: `union` for the to-manies, `coalesce` for the to-one.
    static let explicitStep: String = {
        let discussions = "union(destinations('SentToSent', $source.messages), destinations('ReceivedToReceived', $source.messages))"
        let tags = "union(destinations('LabelToLabel', $source.tags), destinations('TopicToTopic', $source.tags))"
        let about = "coalesce(destination('ForumToForum', $source.about), destination('ThreadToThread', $source.about))"
        let relationships = ["messages": discussions, "tags": tags, "about": about]
        let mappings = entityMappings.map { entity, attribute, names in
            let links = names.map { name in
                // Tag.messages: the messages' side of the many-to-many, from both message mappings.
                "\"\(name)\": \"\(entity == "Label" || entity == "Topic" ? discussions : relationships[name]!)\""
            }
            return "{ \"name\": \"\(entity)To\(entity)\", \"source\": \"\(entity)\", \"destination\": \"\(entity)\", "
                + "\"attributes\": { \"\(attribute)\": \"$source.\(attribute)\" }, \"relationships\": { \(links.joined(separator: ", ")) } }"
        }
        return #", "steps": [ { "from": "h1", "to": "h2", "mappings": [ "# + mappings.joined(separator: ",\n") + " ] } ]"
    }()

    func testAToOneAndToManiesIntoHierarchiesMigrateToOneStoreByInferenceExplicitStepAndMappingModel() throws {
        let bundle = folder.url.appendingPathComponent("Chat.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("h1", Self.model("")), ("h2", Self.model(#"<attribute name="read" optional="YES" attributeType="Boolean"/>"#))])
        let mapping = folder.url.appendingPathComponent("mapping/h1ToH2.xcmappingmodel")
        try writeMappingModel(mapping)
        let models = try ModelBundle.load(path: bundle.path)
        let h1 = try XCTUnwrap(models.version(named: "h1")), h2 = try XCTUnwrap(models.version(named: "h2"))
        let (discussion, tagged, joinTable, own, other) = try buildSource(h1)
        let source = URL(fileURLWithPath: folder.path("h1.sqlite"))
        let forms = [("inferred", #", "mappingModels": false"#), ("explicit", #", "mappingModels": false"# + Self.explicitStep),
                     ("mapping-model", #", "mappingModels": false, "steps": [ { "from": "h1", "to": "h2", "mappingModel": "\#(mapping.path)" } ]"#)]
        var outputs: [String] = []
        for (form, extra) in forms {
            for pushdown in [true, false] {
                let out = folder.path("\(form)-\(pushdown ? "pushed" : "row-by-row").sqlite")
                var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: source, destination: out, version: "h2", extra: extra))
                migration.options.pushdown = pushdown
                let execution = try StepExecution.of(try migration.plan().steps[0], policies: PolicyRegistry(), pushdown: pushdown)
                XCTAssertEqual(execution.insideSQLite, pushdown, "\(form): \(execution.reason ?? "")")
                _ = try migration.run()
                outputs.append(out)
                try assertLinks(out, model: h2, discussion: discussion, tagged: tagged, joinTable: joinTable, own: own, other: other, "\(form) \(pushdown)")
            }
        }
        for out in outputs.dropFirst() { try assertSameStore(outputs[0], out, excluding: ["Z_METADATA"]) }
    }

    /// Through two inferred hops (h1 → h2 → h3, run one after the other: steps over an
    /// inheritance hierarchy are not fused), pushed down or row by row: one store, with the
    /// source's links.
    func testTwoInferredHopsWithToManiesIntoHierarchies() throws {
        let bundle = folder.url.appendingPathComponent("Chat.xcdatamodeld")
        let read = #"<attribute name="read" optional="YES" attributeType="Boolean"/>"#
        try ModelBundleFiles.write(bundle, versions: [("h1", Self.model("")), ("h2", Self.model(read)),
                                                      ("h3", Self.model(read + #"<attribute name="flag" optional="YES" attributeType="Integer 16"/>"#))])
        let models = try ModelBundle.load(path: bundle.path)
        let h3 = try XCTUnwrap(models.version(named: "h3"))
        let (discussion, tagged, joinTable, own, other) = try buildSource(try XCTUnwrap(models.version(named: "h1")))
        var outputs: [String] = []
        for pushdown in [true, false] {
            let out = folder.path("h3-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: folder.path("h1.sqlite")),
                                                                            destination: out, version: "h3", extra: #", "mappingModels": false"#))
            migration.options.pushdown = pushdown
            let plan = try migration.plan()
            XCTAssertEqual(plan.steps.count, 2)
            for step in plan.steps {
                XCTAssertEqual(try StepExecution.of(step, policies: PolicyRegistry(), pushdown: pushdown).insideSQLite, pushdown, step.name)
            }
            _ = try migration.run()
            outputs.append(out)
            try assertLinks(out, model: h3, discussion: discussion, tagged: tagged, joinTable: joinTable, own: own, other: other, "pushdown \(pushdown)")
        }
        try assertSameStore(outputs[0], outputs[1], excluding: ["Z_METADATA"])
    }

    /// Every message in its discussion, every note about its discussion, every message with its tags, as in the source.
    func assertLinks(_ out: String, model: Model, discussion: [Int64: Int64?], tagged: [(Int64, Int64)], joinTable: String, own: String, other: String,
                     _ what: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let read = try ReadStore(model, at: out)
        var titles: [SQLValue: String] = [:]
        for entity in ["Forum", "Thread"] { for row in try read.rows(entity, ["title"]) { titles[row[0]] = "\(row[1])" } }
        let messages = try ["Sent", "Received"].flatMap { try read.rows($0, ["discussion"]) }.sorted { "\($0[0])" < "\($1[0])" }
        XCTAssertEqual(messages.map { $0[1] == .null ? nil : titles[$0[1]] },
                       discussion.keys.sorted().map { discussion[$0]!.map { titles[.integer($0)]! } }, "\(what): every message in its discussion", file: file, line: line)
        XCTAssertEqual(try read.rows("Note", ["about"]).map { $0[1] }, [.integer(2), .integer(1), .null, .integer(4), .integer(2)], what, file: file, line: line)
        let pairs = try read.db.rows("SELECT \(Database.quote(own)), \(Database.quote(other)) FROM \(Database.quote(joinTable)) ORDER BY 1, 2")
        XCTAssertEqual(pairs, tagged.map { [.integer($0.0), .integer($0.1)] }, "\(what): every message's tags", file: file, line: line)
    }

    /// The h1 store: discussions, messages of both kinds in them, tags of both kinds on them, notes.
    func buildSource(_ h1: Model) throws -> (discussion: [Int64: Int64?], tagged: [(Int64, Int64)], joinTable: String, own: String, other: String) {
        let store = try BuiltStore(h1, at: folder.path("h1.sqlite"))
        for (key, entity, title) in [(Int64(1), "Forum", "f1"), (2, "Thread", "t2"), (3, "Forum", "f3"), (4, "Thread", "t4")] {
            try store.insert(entity, key, ["title": .text(title)])
        }
        let discussion: [Int64: Int64?] = [1: 1, 2: 2, 3: 2, 4: nil, 5: 3, 6: 1, 7: 4]
        for key in discussion.keys.sorted() {
            try store.insert(key % 2 == 0 ? "Received" : "Sent", key, ["text": .text("m\(key)"), "discussion": discussion[key]!.map(SQLValue.integer) ?? .null])
        }
        for (key, entity) in [(Int64(1), "Label"), (2, "Topic"), (3, "Label"), (4, "Topic")] { try store.insert(entity, key, ["name": .text("tag\(key)")]) }
        for (key, about) in [(Int64(1), Int64(2)), (2, 1), (3, nil), (4, 4), (5, 2)] {
            try store.insert("Note", key, ["body": .text("n\(key)"), "about": about.map(SQLValue.integer) ?? .null])
        }
        guard case .joinTable(let joinTable, let own, let other) = store.layout.storage(ofRelationship: "tags", entity: "Message") else {
            XCTFail("Message.tags is stored in a join table")
            throw CocoaError(.featureUnsupported)
        }
        let tagged: [(Int64, Int64)] = [(1, 1), (1, 2), (2, 2), (3, 3), (3, 4), (5, 1), (6, 4), (7, 2), (7, 3)]
        for (message, tag) in tagged {
            _ = try store.db.rows("INSERT INTO \(Database.quote(joinTable)) (\(Database.quote(own)), \(Database.quote(other))) VALUES (?, ?)", [.integer(message), .integer(tag)])
        }
        store.close()
        return (discussion, tagged, joinTable, own, other)
    }

    /// An ordered to-many into a hierarchy (`Playlist.items` → Item: Song, Video), set from
    /// its inverse to-one (inferred) or by union() of both item mappings (written out): each
    /// list keeps the source's order and `Z_FOK_` values, pushed down and row by row, as a
    /// list into one entity does.
    func testAnOrderedToManyIntoAHierarchyKeepsItsOrder() throws {
        func model(_ extra: String) -> String {
            ModelBundleFiles.model("""
                <entity name="Playlist">
                    <attribute name="name" optional="YES" attributeType="String"/>\(extra)
                    <relationship name="items" optional="YES" toMany="YES" ordered="YES" destinationEntity="Item" inverseName="playlist"/>
                </entity>
                <entity name="Item" isAbstract="YES">
                    <attribute name="title" optional="YES" attributeType="String"/>
                    <relationship name="playlist" optional="YES" maxCount="1" destinationEntity="Playlist" inverseName="items"/>
                </entity>
                <entity name="Song" parentEntity="Item"/>
                <entity name="Video" parentEntity="Item"/>
                """)
        }
        let bundle = folder.url.appendingPathComponent("Music.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("p1", model("")), ("p2", model(#"<attribute name="shared" optional="YES" attributeType="Boolean"/>"#))])
        let models = try ModelBundle.load(path: bundle.path)
        let p1 = try XCTUnwrap(models.version(named: "p1")), p2 = try XCTUnwrap(models.version(named: "p2"))
        let store = try BuiltStore(p1, at: folder.path("p1.sqlite"))
        for key in Int64(1)...2 { try store.insert("Playlist", key, ["name": .text("list\(key)")]) }
        for key in Int64(1)...7 { try store.insert(key % 3 == 0 ? "Video" : "Song", key, ["title": .text("i\(key)"), "playlist": .integer(key % 2 + 1)]) }
        let order = try XCTUnwrap(store.layout.orderColumn(ofRelationship: "items", entity: "Playlist"))
        // Each list in an order of its own, against the keys: 7000 - 1000 × key.
        _ = try store.db.rows("UPDATE ZITEM SET \(Database.quote(order)) = 7000 - 1000 * Z_PK")
        store.close()
        func positions(_ path: String, _ model: Model) throws -> [[SQLValue]] {
            let column = try XCTUnwrap(CoreDataLayout(model: model).orderColumn(ofRelationship: "items", entity: "Playlist"))
            return try Database(path: path, mode: .readOnly).rows("SELECT Z_PK, ZPLAYLIST, \(Database.quote(column)) FROM ZITEM ORDER BY Z_PK")
        }
        let before = try positions(folder.path("p1.sqlite"), p1)
        // Inferred, the to-one side sets the links; written out, the list's own side does.
        let items = "union(destinations('SongToSong', $source.items), destinations('VideoToVideo', $source.items))"
        let explicit = #", "steps": [ { "from": "p1", "to": "p2", "mappings": [ "#
            + #"{ "name": "PlaylistToPlaylist", "source": "Playlist", "destination": "Playlist", "attributes": { "name": "$source.name" }, "#
            + #""relationships": { "items": "\#(items)" } }, "#
            + #"{ "name": "SongToSong", "source": "Song", "destination": "Song", "attributes": { "title": "$source.title" } }, "#
            + #"{ "name": "VideoToVideo", "source": "Video", "destination": "Video", "attributes": { "title": "$source.title" } } ] } ]"#
        for (form, steps) in [("inferred", ""), ("explicit", explicit)] {
            for pushdown in [true, false] {
                let out = folder.path("p2-\(form)-\(pushdown).sqlite")
                var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: URL(fileURLWithPath: folder.path("p1.sqlite")),
                                                                                destination: out, version: "p2", extra: #", "mappingModels": false"# + steps))
                migration.options.pushdown = pushdown
                let summary = try migration.run()
                XCTAssertEqual(try positions(out, p2), before, "\(form), pushdown \(pushdown): every item in its list, at its place")
                XCTAssertFalse(summary.notes.contains { $0.contains("numbered anew") }, "\(summary.notes)")
            }
        }
    }

    /// SampleModel2's `Page.book` points at Book, whose sub-entity GraphicNovel has a mapping
    /// of its own: the inferred hop links each page to its book with
    /// `coalesce(destination('BookToBook', …), destination('GraphicNovelToGraphicNovel', …))`,
    /// pushed down and row by row, each page to the row (and entity) it pointed at.
    func testSampleModel2sPageBookIntoBookAndGraphicNovelIsInferred() throws {
        let source = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V1.sqlite", into: folder.url)
        let v1 = try XCTUnwrap(try ModelCache.read(try Database(path: source.path, mode: .readOnly), version: "V1"))
        var v2 = v1
        v2.entities.append(Entity(name: "Award", attributes: [Attribute(name: "name", type: .string)]))
        v2.version = "V2"
        let bundle = folder.url.appendingPathComponent("SampleModel2.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("V1", XCDataModelWriter.xml(v1)), ("V2", XCDataModelWriter.xml(v2))], current: "V2")
        // The entity column's name has the entity's number, which Award moves up by one.
        func pages(_ model: Model) throws -> String {
            "SELECT Z_PK, ZBOOK, \(try XCTUnwrap(CoreDataLayout(model: model).entityColumn(ofRelationship: "book", entity: "Page"))) FROM ZPAGE ORDER BY Z_PK"
        }
        let before = try Database(path: source.path, mode: .readOnly).rows(try pages(v1))
        let books = try Database(path: source.path, mode: .readOnly).rows("SELECT Z_PK, Z_ENT FROM ZBOOK ORDER BY Z_PK")
        XCTAssertEqual(Set(books.map { $0[1] }).count, 2, "Book and GraphicNovel rows")
        var outputs: [String] = []
        for pushdown in [true, false] {
            let out = folder.path(pushdown ? "pushed.sqlite" : "row-by-row.sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: source, destination: out, version: "V2",
                                                                            extra: #", "history": "drop", "mappingModels": false"#))
            migration.options.pushdown = pushdown
            let step = try migration.plan().steps[0]
            XCTAssertTrue(step.name.hasSuffix("(inferred)"), step.name)
            XCTAssertEqual(try StepExecution.of(step, policies: PolicyRegistry(), pushdown: pushdown).insideSQLite, pushdown)
            _ = try migration.run()
            let db = try Database(path: out, mode: .readOnly)
            let entities = Dictionary(uniqueKeysWithValues: try db.rows("SELECT Z_PK, Z_ENT FROM ZBOOK").map { ($0[0], $0[1]) })
            let after = try db.rows(try pages(v2))
            XCTAssertEqual(after.count, before.count)
            XCTAssertEqual(after.map { [$0[0], $0[1]] }, before.map { [$0[0], $0[1]] }, "every page with its book")
            XCTAssertTrue(after.allSatisfy { $0[1] == .null ? $0[2] == .null : entities[$0[1]] == $0[2] }, "each link names its row's entity")
            db.close()
            outputs.append(out)
        }
        try assertSameStore(outputs[0], outputs[1], excluding: ["Z_METADATA"])
    }
}
