import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL

/// Given a store like the wibosco example's at version 3 (40 posts, 12 with a colour, 30 in
/// one of 14 sections) and an explicit 3 → 4 step that maps only `Post`'s title, when it
/// runs, then it is refused before a row is read, naming each entity and property it leaves
/// unread with its count and the line to add, and the source is byte-identical; with the
/// drops declared (at the top level or in the step), it runs and every drop is counted per
/// property in the summary, the progress events and the notes.
final class UnreadDataTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static let entities = """
        <entity name="Post" representedClassName="Post">
            <attribute name="title" optional="YES" attributeType="String"/>
            <attribute name="hexColor" optional="YES" attributeType="String"/>
            <relationship name="section" optional="YES" maxCount="1" deletionRule="Nullify" destinationEntity="Section" inverseName="posts" inverseEntity="Section"/>
        </entity>
        <entity name="Section" representedClassName="Section">
            <attribute name="title" optional="YES" attributeType="String"/>
            <relationship name="posts" optional="YES" toMany="YES" deletionRule="Nullify" destinationEntity="Post" inverseName="section" inverseEntity="Post"/>
        </entity>
        """

    /// The bundle (versions 3 and 4, the same entities) and a plain store at version 3.
    func writeStore(version: String = "3") throws -> String {
        let bundle = folder.url.appendingPathComponent("Posts.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: ["2", "3", "4"].map { ($0, ModelBundleFiles.model(Self.entities)) }, current: "4")
        let v3 = try ModelBundle.load(path: bundle.path).versions.first { $0.version == version }!
        let source = folder.path("posts.sqlite")
        let db = try Database(path: source, mode: .create)
        for sql in PlainLayout(model: v3).schemaSQL() { try db.execute(sql) }
        for key in 1...14 { try db.run("INSERT INTO Section (id, title) VALUES (?, ?)", [.integer(Int64(key)), .text("section \(key)")]) }
        for key in 1...40 {
            try db.run("INSERT INTO Post (id, title, hexColor, section_id) VALUES (?, ?, ?, ?)",
                       [.integer(Int64(key)), .text("post \(key)"), key <= 12 ? .text("#00\(key)") : .null,
                        key <= 30 ? .integer(Int64(key % 14 + 1)) : .null])
        }
        db.close()
        return source
    }

    func pipeline(drop: String = "", stepDrop: String = "", version: String = "3") throws -> String {
        try folder.pipeline("posts.json", """
            { "format": 1, "models": "Posts.xcdatamodeld"\(drop.isEmpty ? "" : ", \"drop\": \(drop)"),
              "source": { "store": "posts.sqlite", "version": "\(version)" },
              "destination": { "store": "out.sqlite" },
              "steps": [ { "from": "3", "to": "4"\(stepDrop.isEmpty ? "" : ", \"drop\": \(stepDrop)"), "mappings": [
                { "name": "PostToPost", "source": "Post", "destination": "Post", "attributes": { "title": "$source.title" } } ] } ] }
            """)
    }

    func testAnExplicitStepThatLeavesDataUnreadIsRefusedNamingEach() throws {
        let source = try writeStore()
        let before = try bytes(source)
        let events = EventLog()
        assertRefusedAlike(Migration(pipeline: try pipeline()))
        do {
            _ = try Migration(pipeline: try pipeline()).run { events.append($0) }
            XCTFail("a step leaving 14 sections and 12 colours unread must be refused")
        } catch {
            let message = "\(error)"
            for part in ["posts.json", "step 3 to 4", "Section: 14 rows", "Post.hexColor: 12 non-null values", "Post.section: 30 non-null values",
                         #""drop": ["Post.hexColor", "Post.section", "Section"]"#, "Nothing was read"] {
                XCTAssertTrue(message.contains(part), "\(message)\n  does not contain: \(part)")
            }
        }
        XCTAssertTrue(events.all.isEmpty, "no stage started: \(events.all.map(\.kind))")
        XCTAssertEqual(try bytes(source), before, "the source is byte-identical")
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testDeclaredAtTheTopLevelTheStepRunsAndCountsEachDrop() throws {
        _ = try writeStore()
        let events = EventLog()
        let summary = try Migration(pipeline: try pipeline(drop: #"["Section", "Post.hexColor", "Post.section"]"#)).run { events.append($0) }
        XCTAssertEqual(Set(summary.drops.map { "\($0.name)=\($0.count)" }), ["Section=14", "Post.hexColor=12", "Post.section=30"])
        XCTAssertEqual(summary.mappings[0].dropped, 12 + 30)
        let dropped = events.all.filter { $0.kind == .dropped }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: dropped.map { ($0.removed ?? "?", $0.done) }),
                       ["Section": 14, "Post.hexColor": 12, "Post.section": 30])
        XCTAssertTrue(summary.drops.map(\.described).contains("step 3 to 4 dropped Section: 14 rows (as the pipeline's \"drop\" says)"), "\(summary.drops)")
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM Post"), 40)
    }

    func testDeclaredInTheStepTheStepRuns() throws {
        _ = try writeStore()
        let summary = try Migration(pipeline: try pipeline(stepDrop: #"["Section", "Post.hexColor", "Post.section"]"#)).run()
        XCTAssertEqual(summary.drops.count, 3)
        XCTAssertTrue(summary.drops.allSatisfy { $0.declaredBy == "as the step's \"drop\" says" }, "\(summary.drops)")
    }

    func testAPartialDeclarationIsRefusedNamingTheRest() throws {
        _ = try writeStore()
        assertRefusedAlike(Migration(pipeline: try pipeline(drop: #"["Section"]"#)))
        do {
            _ = try Migration(pipeline: try pipeline(drop: #"["Section"]"#)).run()
            XCTFail("Post.hexColor and Post.section are not declared")
        } catch {
            let message = "\(error)"
            XCTAssertTrue(message.contains(#""drop": ["Post.hexColor", "Post.section"]"#), message)
            XCTAssertFalse(message.contains("Section: 14 rows"), message)
        }
    }

    func testAStepDropNamingNothingTheStepLeavesIsAnError() throws {
        _ = try writeStore()
        assertRefusedAlike(Migration(pipeline: try pipeline(stepDrop: #"["Post.title"]"#)))
        do {
            _ = try Migration(pipeline: try pipeline(stepDrop: #"["Post.title"]"#)).run()
            XCTFail("the step reads Post.title")
        } catch {
            let message = "\(error)"
            XCTAssertTrue(message.contains("'Post.title' is no entity or property step 3 to 4 leaves unread"), message)
            XCTAssertTrue(message.contains("$.steps[0].drop[0]"), message)
        }
    }

    /// A store at version 2: the inferred hop 2 → 3 reads everything, the explicit 3 → 4 does
    /// not. What the source already holds under the names 3 → 4 leaves is refused before
    /// the first hop reads a row, not once it ran.
    func testALaterStepIsRefusedBeforeTheFirstReadsARow() throws {
        let source = try writeStore(version: "2")
        let before = try bytes(source)
        let events = EventLog()
        assertRefusedAlike(Migration(pipeline: try pipeline(version: "2")))
        do {
            _ = try Migration(pipeline: try pipeline(version: "2")).run { events.append($0) }
            XCTFail("step 3 to 4 leaves 14 sections and 12 colours unread")
        } catch {
            let message = "\(error)"
            for part in ["step 3 to 4 leaves data of source", "under the same names", "Section: 14 rows", "Post.hexColor: 12 non-null values"] {
                XCTAssertTrue(message.contains(part), "\(message)\n  does not contain: \(part)")
            }
        }
        XCTAssertTrue(events.all.isEmpty, "the first hop read no row: \(events.all.map(\.kind))")
        XCTAssertEqual(try bytes(source), before)
        _ = try Migration(pipeline: try pipeline(stepDrop: #"["Section", "Post.hexColor", "Post.section"]"#, version: "2")).run()
        XCTAssertEqual(try Database(path: folder.path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM Post"), 40)
    }
}
