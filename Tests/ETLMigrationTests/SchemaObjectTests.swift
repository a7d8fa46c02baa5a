import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// Given CoreDataPlus's SampleModel V1 store (125 cars) with a table of an app's own
/// (`ZOTHER`), a trigger on it that deletes every car, a view, an FTS5 and an R*Tree
/// table, when it is upgraded, then the triggers, views and virtual tables are refused by
/// name unless the pipeline says `"drop"` or `"carry"`; carried, they are made once every
/// row is in (the trigger never fires: 125 cars), with the virtual tables' rows; dropped,
/// the result goes without them and the summary says so. The source stays byte-identical.
final class SchemaObjectTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func store() throws -> (bundle: URL, source: URL) {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        let db = try Database(path: source.path, mode: .readWrite)
        try db.execute("""
            CREATE TABLE ZOTHER (id INTEGER PRIMARY KEY, note TEXT);
            INSERT INTO ZOTHER VALUES (1, 'kept');
            CREATE TRIGGER wipe_cars AFTER INSERT ON ZOTHER BEGIN DELETE FROM ZCAR; END;
            CREATE VIEW cars_by_maker AS SELECT ZMAKER, count(*) AS n FROM ZCAR GROUP BY ZMAKER;
            CREATE VIRTUAL TABLE notes_fts USING fts5(body);
            INSERT INTO notes_fts (rowid, body) VALUES (7, 'red car'), (8, 'blue car'), (9, 'green bike');
            CREATE VIRTUAL TABLE places USING rtree(id, minX, maxX);
            INSERT INTO places VALUES (1, 0, 10), (2, 5, 15);
            """)
        db.close()
        return (sample.appendingPathComponent("SampleModel.xcdatamodeld"), source)
    }

    func pipeline(_ store: (bundle: URL, source: URL), objects: String?) throws -> String {
        let keys = objects.map { #", "triggers": "\#($0)", "views": "\#($0)", "virtualTables": "\#($0)""# } ?? ""
        // The source's version given: ZOTHER is no table of any version, so detection would refuse it.
        return try folder.pipeline("objects.json", """
            { "format": 1, "models": "\(store.bundle.path)", "drop": ["Person.id"], "otherTables": "carry"\(keys),
              "source": { "store": "\(store.source.path)", "layout": "coredata", "version": "SampleModel" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata", "version": "SampleModel2" } }
            """)
    }

    func testTheyAreRefusedByNameUnlessThePipelineSaysWhatToDo() throws {
        let s = try store()
        let before = try bytes(s.source.path)
        assertRefusedAlike(Migration(pipeline: try pipeline(s, objects: nil)))
        do {
            _ = try Migration(pipeline: try pipeline(s, objects: nil)).run()
            XCTFail("a trigger, a view and two virtual tables no model describes")
        } catch {
            let message = "\(error)"
            XCTAssertTrue(message.contains("has triggers that no model describes: wipe_cars. Nothing was read"), message)
            XCTAssertTrue(message.contains(#""triggers": "drop""#), message)
        }
        XCTAssertEqual(try bytes(s.source.path), before)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
    }

    func testCarriedTheyAreMadeOnceEveryRowIsInAndNeverFire() throws {
        let s = try store()
        let before = try bytes(s.source.path)
        let summary = try Migration(pipeline: try pipeline(s, objects: "carry")).run()
        XCTAssertEqual(try bytes(s.source.path), before)
        XCTAssertTrue(summary.notes.contains(#"carried triggers wipe_cars, as the pipeline's "triggers" says"#), "\(summary.notes)")
        XCTAssertTrue(summary.notes.contains(#"carried virtual tables notes_fts, places, as the pipeline's "virtualTables" says"#), "\(summary.notes)")
        XCTAssertTrue(summary.notes.contains(#"carried unknown tables ZOTHER (1 row), as the pipeline's "otherTables" says"#), "the shadow tables go with their virtual tables: \(summary.notes)")
        let out = try Database(path: folder.path("out.sqlite"), mode: .readWrite)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR"), 125, "the trigger did not fire during the run")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZOTHER"), 1)
        XCTAssertEqual(try out.rows("SELECT rowid FROM notes_fts WHERE notes_fts MATCH 'car' ORDER BY rowid"), [[.integer(7)], [.integer(8)]])
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM places WHERE maxX >= 12"), 1)
        XCTAssertEqual(try out.scalarInt("SELECT sum(n) FROM cars_by_maker"), 125)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'trigger' AND name = 'wipe_cars'"), 1, "installed, as the source has it")
        XCTAssertTrue(try out.quickCheck().isEmpty)
    }

    func testDroppedTheResultGoesWithoutThem() throws {
        let s = try store()
        let summary = try Migration(pipeline: try pipeline(s, objects: "drop")).run()
        XCTAssertTrue(summary.notes.contains(#"dropped views cars_by_maker, as the pipeline's "views" says"#), "\(summary.notes)")
        let out = try Database(path: folder.path("out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM sqlite_schema WHERE type IN ('trigger', 'view') OR name LIKE 'notes_fts%' OR name LIKE 'places%'"), 0)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR"), 125)
    }
}
