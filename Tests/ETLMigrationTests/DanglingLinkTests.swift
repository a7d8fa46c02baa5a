import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
@testable import ETLEngine
import ETL
import ETLTestSupport

/// Links of the source that name no row (issue 45): `Folder.parent_id = 999` (no such
/// folder), `parent_id = '8x'` (no key at all), the join table's pair (6, 999) (no such
/// tag). Given folders 1–6 and tags 1–2, each is rejected with its value by default, or
/// dropped, counted and named under `"danglingLinks": "drop"` — in SQLite or row by row alike.
final class DanglingLinkTests: XCTestCase {
    var folder: TemporaryFolder!
    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static func model(_ version: String) -> String {
        """
        { "version": "\(version)", "entities": [
          { "name": "Folder", "attributes": [ { "name": "name", "type": "string" } ],
            "relationships": [
              { "name": "parent", "destination": "Folder", "inverse": "children" },
              { "name": "children", "destination": "Folder", "inverse": "parent", "toMany": true },
              { "name": "tags", "destination": "Tag", "inverse": "folders", "toMany": true } ] },
          { "name": "Tag", "attributes": [ { "name": "name", "type": "string" } ],
            "relationships": [ { "name": "folders", "destination": "Folder", "inverse": "tags", "toMany": true } ] } ] }
        """
    }

    /// The source store and a pipeline copying it, with `danglingLinks` (JSON) when given.
    func pipeline(_ danglingLinks: String? = nil, name: String = "folders.json", maxRejects: Int = 10) throws -> String {
        try Data(Self.model("f1").utf8).write(to: folder.url.appendingPathComponent("f1.json"))
        try Data(Self.model("f2").utf8).write(to: folder.url.appendingPathComponent("f2.json"))
        let store = folder.path("source.sqlite")
        if !FileManager.default.fileExists(atPath: store) {
            let model = try ModelFile.load(path: folder.path("f1.json"))
            let db = try Database(path: store, mode: .create)
            for sql in PlainLayout(model: model).schemaSQL() { try db.execute(sql) }
            try db.execute("""
                INSERT INTO Tag (id, name) VALUES (1, 'red'), (2, 'blue');
                INSERT INTO Folder (id, name, parent_id) VALUES (1, 'root', NULL), (2, 'a', 1), (3, 'b', 2), (4, 'lost', 999), (5, 'odd', '8x'), (6, 'c', 1);
                INSERT INTO Folder_tags (source_id, target_id) VALUES (1, 2), (6, 1), (6, 999);
                """)
            db.close()
        }
        return try folder.pipeline(name, """
            { "format": 1,\(danglingLinks.map { "\n  \"danglingLinks\": \($0)," } ?? "")
              "source": { "store": "source.sqlite", "model": "f1.json" },
              "destination": { "store": "out-\(name).sqlite", "model": "f2.json" },
              "options": { "maxRejects": \(maxRejects) },
              "steps": [ { "name": "copy", "mappings": [
                { "name": "Tags", "source": "Tag", "destination": "Tag", "attributes": { "name": "$source.name" } },
                { "name": "Folders", "source": "Folder", "destination": "Folder", "attributes": { "name": "$source.name" },
                  "relationships": { "parent": "destination('Folders', $source.parent)", "tags": "destinations('Tags', $source.tags)" } } ] } ] }
            """)
    }

    func run(_ pipeline: String, pushdown: Bool) throws -> (summary: RunSummary, store: Database) {
        var migration = Migration(pipeline: pipeline)
        migration.options.pushdown = pushdown
        let summary = try migration.run()
        return (summary, try Database(path: summary.destination, mode: .readOnly))
    }

    func links(_ db: Database) throws -> [String] {
        try db.rows("SELECT id, parent_id FROM Folder ORDER BY id").map { "\($0[0].sqlLiteral)→\($0[1].sqlLiteral)" }
            + db.rows("SELECT source_id, target_id FROM Folder_tags ORDER BY 1, 2").map { "\($0[0].sqlLiteral)-\($0[1].sqlLiteral)" }
    }

    static let linked = ["1→NULL", "2→1", "3→2", "4→NULL", "5→NULL", "6→1", "1-2", "6-1"]

    func testLinksToNoRowAreRejectedWithTheirValuesByEitherExecutor() throws {
        for pushdown in [true, false] {
            let (summary, db) = try run(try pipeline(name: "reject-\(pushdown).json"), pushdown: pushdown)
            XCTAssertEqual(try links(db), Self.linked, "pushdown \(pushdown)")
            let folders = try XCTUnwrap(summary.mappings.first { $0.mapping == "Folders" })
            XCTAssertEqual(folders.rejected, 3, "pushdown \(pushdown)")
            XCTAssertEqual(folders.written, 6, "every folder is migrated, without the links to nothing")
            let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile)).sorted { ($0.key, $0.error) < ($1.key, $1.error) }
            XCTAssertEqual(rejects.map(\.key), [4, 5, 6])
            XCTAssertEqual(rejects.map(\.values), [["parent": "999"], ["parent": "'8x'"], ["tags": "(6, 999)"]])
            let source = folder.path("source.sqlite")
            XCTAssertEqual(rejects[0].error, "parent_id = 999 in \(source) names no row of Folder: the row is migrated without Folder.parent (\"danglingLinks\": \"drop\" drops such links)")
            XCTAssertEqual(rejects[2].error, "the pair (6, 999) of Folder_tags(source_id, target_id) in \(source) names no row of Folder and Tag: the link is not made (\"danglingLinks\": \"drop\" drops such links)")
            XCTAssertTrue(rejects.allSatisfy { $0.mapping == "Folders" && $0.stage == "relate" })
        }
    }

    /// Rejects fail a run unless the pipeline allows some (`maxRejects`, 0 by default).
    func testByDefaultALinkToNoRowFailsTheRunNamingIt() throws {
        for pushdown in [true, false] {
            let pipeline = try pipeline(name: "default-\(pushdown).json", maxRejects: 0)
            let error = thrownError(MigrationError.self) { try self.run(pipeline, pushdown: pushdown) }
            guard case .tooManyRejects(0, let first)? = error else { return XCTFail("\(String(describing: error))") }
            XCTAssertEqual(first.first?.values, ["parent": "999"])
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out-default-\(pushdown).json.sqlite")))
        }
    }

    func testDroppedLinksToNoRowAreCountedAndNamedByEitherExecutor() throws {
        for pushdown in [true, false] {
            let (summary, db) = try run(try pipeline("\"drop\"", name: "drop-\(pushdown).json"), pushdown: pushdown)
            XCTAssertEqual(try links(db), Self.linked, "pushdown \(pushdown)")
            XCTAssertNil(summary.rejectFile)
            let folders = try XCTUnwrap(summary.mappings.first { $0.mapping == "Folders" })
            XCTAssertEqual(folders.rejected, 0)
            XCTAssertEqual(folders.dropped, 3)
            XCTAssertEqual(summary.drops.filter { $0.name.hasPrefix("Folder.") }.map { "\($0.name) \($0.count)" }.sorted(), ["Folder.parent 2", "Folder.tags 1"])
            XCTAssertTrue(summary.notes.contains("step copy: 2 links of Folder.parent named no row (999, '8x'): dropped as the pipeline's \"danglingLinks\" says"),
                          "\(summary.notes)")
            XCTAssertTrue(summary.notes.contains("step copy: 1 link of Folder.tags named no row ((6, 999)): dropped as the pipeline's \"danglingLinks\" says"),
                          "\(summary.notes)")
        }
    }

    /// A join table whose columns may hold NULL (no NOT NULL declared): a pair with a NULL
    /// side names no row, and is found as the others are (where the columns cannot hold
    /// NULL, the query does not look for one).
    func testAPairWithANullSideNamesNoRow() throws {
        let pipelines = try [true, false].map { try pipeline(name: "null-side-\($0).json") }
        let db = try Database(path: folder.path("source.sqlite"), mode: .readWrite)
        try db.execute("""
            DROP TABLE Folder_tags;
            CREATE TABLE Folder_tags (source_id INTEGER, target_id INTEGER);
            INSERT INTO Folder_tags (source_id, target_id) VALUES (1, 2), (6, 1), (6, NULL);
            """)
        db.close()
        for (pipeline, pushdown) in zip(pipelines, [true, false]) {
            let (summary, _) = try run(pipeline, pushdown: pushdown)
            let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile)).sorted { ($0.key, $0.error) < ($1.key, $1.error) }
            XCTAssertEqual(rejects.map(\.values), [["parent": "999"], ["parent": "'8x'"], ["tags": "(6, NULL)"]], "pushdown \(pushdown)")
        }
    }

    /// The lookup is left out only where a store's values prove that each names a row
    /// (`DanglingLinks.everyValueNamesARow`): here every value is an integer inside the target's
    /// keys and the proof holds; each change below breaks it and the values are looked up.
    func testTheLookupIsLeftOutOnlyWhereEveryValueProvablyNamesARow() throws {
        let db = try Database(path: folder.path("proof.sqlite"), mode: .create)
        try db.execute("""
            CREATE TABLE Tag (id INTEGER PRIMARY KEY);
            INSERT INTO Tag (id) VALUES (1), (2), (3);
            CREATE TABLE Pair (t INTEGER NOT NULL);
            CREATE TABLE Loose (t);
            CREATE TABLE Two (a INTEGER, b INTEGER);
            """)
        let tag = EntityTable(name: "Tag", keyColumn: "id")
        func proven(_ values: String, in table: String = "Pair", nullNamesNoRow: Bool = false) throws -> Bool {
            try db.execute("DELETE FROM \(table); INSERT INTO \(table) (t) VALUES \(values)")
            return try DanglingLinks.everyValueNamesARow([.init(table: table, column: "t", target: tag, nullNamesNoRow: nullNamesNoRow)], in: db)
        }
        XCTAssertTrue(try proven("(1), (3), (2), (3)"))
        XCTAssertFalse(try proven("(1), (4)"), "above the keys")
        XCTAssertFalse(try proven("(0), (2)"), "below the keys")
        XCTAssertFalse(try proven("(1), ('x')"), "a text sorts above every number")
        XCTAssertFalse(try proven("(1), (x'01')"), "a blob too")
        XCTAssertFalse(try proven("(1), (1.5), (3)"), "a real inside the keys makes the sum real")
        XCTAssertFalse(try proven("(1), (2.0)", in: "Loose"), "a real without affinity, though 2.0 finds row 2: looked up")
        XCTAssertFalse(try proven("(1), (9223372036854775807), (-9223372036854775807)", in: "Loose"), "outside, whatever the sum")
        XCTAssertTrue(try proven("(1), (NULL)", in: "Loose"), "a NULL to-one is no link")
        XCTAssertFalse(try proven("(1), (NULL)", in: "Loose", nullNamesNoRow: true), "a join table's NULL side names no row")
        let sides = ["a", "b"].map { DanglingLinks.Side(table: "Two", column: $0, target: tag, nullNamesNoRow: true) }
        try db.execute("INSERT INTO Two (a, b) VALUES (1, 3), (2, 2)")
        XCTAssertTrue(try DanglingLinks.everyValueNamesARow(sides, in: db))
        try db.execute("INSERT INTO Two (a, b) VALUES (3, 2.5)")
        XCTAssertFalse(try DanglingLinks.everyValueNamesARow(sides, in: db), "the second side's sum is real")
        try db.execute("DELETE FROM Tag WHERE id = 2")
        XCTAssertFalse(try proven("(1), (3)"), "the keys have a gap")
        try db.execute("DELETE FROM Pair")
        XCTAssertFalse(try DanglingLinks.everyValueNamesARow([.init(table: "Pair", column: "t", target: tag, nullNamesNoRow: false)], in: db), "no value")
    }

    /// A pair whose side is a real inside the target's keys: found and rejected, in SQLite and row by row.
    func testARealInsideTheKeysNamesNoRow() throws {
        let pipelines = try [true, false].map { try pipeline(name: "real-side-\($0).json") }
        let db = try Database(path: folder.path("source.sqlite"), mode: .readWrite)
        try db.execute("DELETE FROM Folder_tags WHERE target_id = 999; INSERT INTO Folder_tags (source_id, target_id) VALUES (2, 1.5)")
        db.close()
        for (pipeline, pushdown) in zip(pipelines, [true, false]) {
            let (summary, _) = try run(pipeline, pushdown: pushdown)
            let rejects = try RejectFile.read(XCTUnwrap(summary.rejectFile)).sorted { ($0.key, $0.error) < ($1.key, $1.error) }
            XCTAssertEqual(rejects.map(\.values), [["tags": "(2, 1.5)"], ["parent": "999"], ["parent": "'8x'"]], "pushdown \(pushdown)")
        }
    }

    func testOneRelationshipsLinksMayBeDroppedAndTheOthersRejected() throws {
        let (summary, _) = try run(try pipeline(#"{ "Folder.parent": "drop" }"#), pushdown: true)
        let folders = try XCTUnwrap(summary.mappings.first { $0.mapping == "Folders" })
        XCTAssertEqual(folders.rejected, 1)
        XCTAssertEqual(folders.dropped, 2)
        XCTAssertEqual(try RejectFile.read(XCTUnwrap(summary.rejectFile)).map(\.values), [["tags": "(6, 999)"]])
    }

    func testARuleForNoRelationshipOrAnUnknownActionIsRefusedWhereItIsWritten() throws {
        let unknown = thrownError(DocumentError.self) { try Migration(pipeline: try self.pipeline(#"{ "Folder.parnet": "drop" }"#)).plan() }
        XCTAssertTrue("\(String(describing: unknown))".contains("'Folder.parnet' is no relationship of any model version of the pipeline (f1, f2)"), "\(String(describing: unknown))")
        let action = thrownError(DocumentError.self) { try Migration(pipeline: try self.pipeline(#""keep""#, name: "keep.json")).plan() }
        XCTAssertTrue("\(String(describing: action))".contains("unknown value 'keep'; one of: reject, drop"), "\(String(describing: action))")
    }
}
