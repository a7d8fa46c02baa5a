import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL

/// Given an app whose v2 model removes `Tag.color` and adds `Tag.hexColor` (same type, no
/// renaming identifier) and removes `Tag.legacy` and the entity `Note`, when a store is
/// upgraded through the inferred hop, then the likely rename is refused before a row is
/// read, naming both fixes; so is any other removal of data the pipeline does not declare;
/// declared intended, the hop runs and every dropped value is counted in the summary and
/// the progress events.
final class InferredDropTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// The bundle, and a plain store at v1 with 40 tags (30 with a colour) and 3 notes.
    func writeStore(renamingIdentifier: Bool = false) throws -> String {
        let bundle = folder.url.appendingPathComponent("Tags.xcdatamodeld")
        let versions = [
            "v1": ModelBundleFiles.model("""
                <entity name="Tag" representedClassName="Tag">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="color" optional="YES" attributeType="String"/>
                    <attribute name="legacy" optional="YES" attributeType="Integer 64" usesScalarValueType="YES"/>
                </entity>
                <entity name="Note" representedClassName="Note">
                    <attribute name="text" optional="YES" attributeType="String"/>
                </entity>
                """),
            "v2": ModelBundleFiles.model("""
                <entity name="Tag" representedClassName="Tag">
                    <attribute name="name" optional="YES" attributeType="String"/>
                    <attribute name="hexColor" optional="YES" attributeType="String"\(renamingIdentifier ? " elementID=\"color\"" : "")/>
                </entity>
                """),
        ]
        try ModelBundleFiles.write(bundle, versions: versions.map { ($0.key, $0.value) }, current: "v2")
        let v1 = try ModelBundle.load(path: bundle.path).versions.first { $0.version == "v1" }!
        let source = folder.path("tags.sqlite")
        let db = try Database(path: source, mode: .create)
        for sql in PlainLayout(model: v1).schemaSQL() { try db.execute(sql) }
        for key in 1...40 {
            try db.run("INSERT INTO Tag (id, name, color, legacy) VALUES (?, ?, ?, ?)",
                       [.integer(Int64(key)), .text("tag \(key)"), key <= 30 ? .text("#0000\(key)") : .null, key % 4 == 0 ? .integer(1) : .null])
        }
        try db.execute("INSERT INTO Note (id, text) VALUES (1, 'a'), (2, 'b'), (3, NULL)")
        db.close()
        return source
    }

    func pipeline(drop: [String]?) throws -> String {
        let dropKey = drop.map { ", \"drop\": [" + $0.map { "\"\($0)\"" }.joined(separator: ", ") + "]" } ?? ""
        return try folder.pipeline("tags.json", """
            { "format": 1, "models": "Tags.xcdatamodeld"\(dropKey),
              "source": { "store": "tags.sqlite" },
              "destination": { "store": "out.sqlite" } }
            """)
    }

    func testALikelyRenameIsRefusedWithBothFixes() throws {
        _ = try writeStore()
        assertRefusedAlike(Migration(pipeline: try pipeline(drop: nil)))
        do {
            _ = try Migration(pipeline: try pipeline(drop: nil)).run()
            XCTFail("the drop-and-add hop must be refused")
        } catch {
            let message = "\(error)"
            XCTAssertTrue(message.contains("tags.json"), message)
            XCTAssertTrue(message.contains("removes Tag.color and adds Tag.hexColor of the same type (string)"), message)
            XCTAssertTrue(message.contains("renaming identifier 'color' in model v2"), message)
            XCTAssertTrue(message.contains(#""hexColor": "$source.color""#), "the explicit step to paste: \(message)")
            XCTAssertTrue(message.contains(#""drop": ["Tag.color"]"#), message)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testDeclaredIntendedTheHopRunsAndCountsWhatItDropped() throws {
        _ = try writeStore()
        let events = EventLog()
        let summary = try Migration(pipeline: try pipeline(drop: ["Tag.color", "Tag.legacy", "Note"])).run { events.append($0) }
        XCTAssertEqual(summary.mappings.map(\.mapping), ["TagToTag"])
        XCTAssertEqual(summary.mappings[0].dropped, 30 + 10, "30 colours and 10 legacy values")
        XCTAssertEqual(Set(summary.drops.map(\.described)), [
            "step v1 to v2 (inferred) dropped Note: 3 rows (as the pipeline's \"drop\" says)",
            "step v1 to v2 (inferred) dropped Tag.color: 30 non-null values (as the pipeline's \"drop\" says)",
            "step v1 to v2 (inferred) dropped Tag.legacy: 10 non-null values (as the pipeline's \"drop\" says)",
        ])
        XCTAssertEqual(Set(summary.drops.map { "\($0.name)=\($0.count)" }), ["Tag.color=30", "Tag.legacy=10", "Note=3"])
        let dropped = events.all.filter { $0.kind == .dropped }
        XCTAssertEqual(Dictionary(uniqueKeysWithValues: dropped.map { ($0.removed ?? "?", $0.done) }),
                       ["Tag.color": 30, "Tag.legacy": 10, "Note": 3])
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(hexColor) FROM Tag"), 0, "drop + add: what was asked")
    }

    func testWithARenamingIdentifierTheValuesArrive() throws {
        _ = try writeStore(renamingIdentifier: true)
        let summary = try Migration(pipeline: try pipeline(drop: ["Tag.legacy", "Note"])).run()
        XCTAssertEqual(summary.mappings[0].dropped, 10, "only the legacy values")
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(hexColor) FROM Tag"), 30)
    }

    func testADropNamingNothingRemovedIsAnError() throws {
        _ = try writeStore()
        assertRefusedAlike(Migration(pipeline: try pipeline(drop: ["Tag.color", "Tag.colour"])))
        assertThrows(try Migration(pipeline: try pipeline(drop: ["Tag.color", "Tag.colour"])).run(),
                     contains: ["tags.json", "$.drop[1]", "'Tag.colour' is no entity or property of any model version of the pipeline (v1, v2)",
                                "Note, Tag.color, Tag.legacy"])
    }

    func testAnUndeclaredRemovalOfDataIsRefusedBeforeARowIsRead() throws {
        let source = try writeStore(renamingIdentifier: true)
        let before = try bytes(source)
        assertRefusedAlike(Migration(pipeline: try pipeline(drop: nil)))
        assertThrows(try Migration(pipeline: try pipeline(drop: nil)).run(),
                     contains: ["tags.json", "step v1 to v2 (inferred) leaves data of source", "Tag.legacy: 10 non-null values", "Note: 3 rows",
                                #""drop": ["Tag.legacy", "Note"]"#])
        XCTAssertEqual(try bytes(source), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func assertThrows(_ body: @autoclosure () throws -> Any, contains parts: [String], line: UInt = #line) {
        do {
            _ = try body()
            XCTFail("expected an error", line: line)
        } catch {
            for part in parts { XCTAssertTrue("\(error)".contains(part), "\(error)\n  does not contain: \(part)", line: line) }
        }
    }
}

/// Progress events as the engine reports them (on its loading thread).
final class EventLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [ProgressEvent] = []
    func append(_ event: ProgressEvent) { lock.lock(); events.append(event); lock.unlock() }
    var all: [ProgressEvent] { lock.lock(); defer { lock.unlock() }; return events }
}
