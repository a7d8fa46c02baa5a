import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// Given CoreDataPlus's SampleModel V1 store (125 cars) with a table of an app's own
/// (`ZOTHER`) whose `sqlite_schema.sql` was rewritten to carry more than its definition,
/// when it is upgraded with `"otherTables": "carry"`, then nothing of that text runs: the
/// run is refused by the table's name before a row is read, the source is byte-identical
/// and no file appears anywhere. A carried trigger or view naming a column the hop drops
/// is refused the same way, never installed broken; a carried table or index named like
/// one the destination's layout makes is refused, never merged into it.
final class CarriedSQLTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// The sample store with `ZOTHER` (one row) and `extra` SQL run on it (writable_schema on).
    func store(_ extra: String = "") throws -> (bundle: URL, source: URL) {
        try store { _ in extra }
    }

    /// `store`, with the SQL `extra` makes of the source's path.
    func store(_ extra: (String) -> String) throws -> (bundle: URL, source: URL) {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        let db = try Database(path: source.path, mode: .readWrite)
        try db.execute("CREATE TABLE ZOTHER (id INTEGER PRIMARY KEY, note TEXT); INSERT INTO ZOTHER VALUES (1, 'kept')")
        let sql = extra(source.path)
        if !sql.isEmpty { try db.execute("PRAGMA writable_schema = ON; \(sql); PRAGMA writable_schema = OFF") }
        db.close()
        return (sample.appendingPathComponent("SampleModel.xcdatamodeld"), source)
    }

    func pipeline(_ store: (bundle: URL, source: URL), objects: String = "carry") throws -> String {
        try folder.pipeline("carry.json", """
            { "format": 1, "models": "\(store.bundle.path)", "drop": ["Person.id"], "otherTables": "carry",
              "triggers": "\(objects)", "views": "\(objects)",
              "source": { "store": "\(store.source.path)", "layout": "coredata", "version": "SampleModel" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata", "version": "SampleModel2" } }
            """)
    }

    /// Runs the pipeline, expecting a refusal holding `parts`; the source unchanged, no
    /// destination and no file beside the source.
    func assertRefused(_ s: (bundle: URL, source: URL), _ parts: [String], file: StaticString = #filePath, line: UInt = #line) throws {
        let before = try bytes(s.source.path)
        let beside = try FileManager.default.contentsOfDirectory(atPath: s.source.deletingLastPathComponent().path).sorted()
        assertMigrationError(try Migration(pipeline: try pipeline(s)).run(), contains: parts, file: file, line: line)
        XCTAssertEqual(try bytes(s.source.path), before, "the source is byte-identical", file: file, line: line)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: s.source.deletingLastPathComponent().path).sorted(), beside,
                       "no -wal or other file beside the source", file: file, line: line)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")), file: file, line: line)
    }

    func testADeleteAfterTheDefinitionIsRefusedByTheTablesName() throws {
        let s = try store("UPDATE sqlite_schema SET sql = sql || '; DELETE FROM ZCAR' WHERE name = 'ZOTHER'")
        try assertRefused(s, [#"its unknown table "ZOTHER" cannot be carried"#, "holds more than one statement", "DELETE FROM ZCAR", #""otherTables": "drop""#])
        // etl plan refuses it as etl run does.
        assertMigrationError(try PlanReport.make(Migration(pipeline: try pipeline(s))), contains: [#"its unknown table "ZOTHER" cannot be carried"#])
    }

    func testAVacuumIntoElsewhereIsRefusedAndWritesNothing() throws {
        let elsewhere = folder.path("elsewhere.sqlite")
        let s = try store("UPDATE sqlite_schema SET sql = sql || '; COMMIT; VACUUM INTO ''\(elsewhere)''; BEGIN' WHERE name = 'ZOTHER'")
        try assertRefused(s, [#""ZOTHER""#, "holds more than one statement"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: elsewhere), "no copy of the store written outside etl's folders")
    }

    func testAnAttachOfTheSourceIsRefusedAndTheSourceIsNotModified() throws {
        let s = try store { "UPDATE sqlite_schema SET sql = sql || '; ATTACH ''\($0)'' AS s; UPDATE s.ZCAR SET ZMAKER = ''x''' WHERE name = 'ZOTHER'" }
        try assertRefused(s, [#""ZOTHER""#, "holds more than one statement"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: s.source.path + "-wal"))
    }

    func testATriggerOnAColumnTheHopDropsIsRefusedBeforeARowIsRead() throws {
        let s = try store("CREATE TRIGGER person_audit AFTER UPDATE ON ZPERSON BEGIN UPDATE ZOTHER SET note = NEW.ZID; END")
        try assertRefused(s, [#"its trigger "person_audit" cannot be carried"#, "no such column", #""triggers": "drop""#])
        // The source's own trigger works there: it is the new store that lacks ZID.
        let db = try Database(path: s.source.path, mode: .readWrite)
        XCTAssertNoThrow(try db.execute("UPDATE ZPERSON SET ZFIRSTNAME = ZFIRSTNAME WHERE Z_PK = 1"))
    }

    func testAViewOfAColumnTheHopDropsIsRefused() throws {
        let s = try store("CREATE VIEW person_ids AS SELECT ZID FROM ZPERSON")
        try assertRefused(s, [#"its view "person_ids" cannot be carried"#, "no such column"])
    }

    func testAnIndexNamedLikeOneTheLayoutMakesIsRefusedNotMerged() throws {
        let s = try store("CREATE INDEX Z_Car_byMakerAndNumberPlate ON ZOTHER (note)")
        try assertRefused(s, [#""ZOTHER" cannot be carried"#, #"the destination's layout makes an object named "Z_Car_byMakerAndNumberPlate""#])
    }

    /// The carried trigger that deletes every car, on a table etl inserts into: made last,
    /// after every row, so it never fires during the run (125 cars), and it works in the result.
    func testACarriedTriggerIsInstalledWorkingAndNeverFires() throws {
        let s = try store("CREATE TRIGGER wipe_cars AFTER INSERT ON ZOTHER BEGIN DELETE FROM ZCAR; END")
        _ = try Migration(pipeline: try pipeline(s)).run()
        let out = try Database(path: folder.path("out.sqlite"), mode: .readWrite)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR"), 125)
        try out.execute("INSERT INTO ZOTHER (note) VALUES ('fires')")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZCAR"), 0, "installed as the source has it")
    }

    /// A plain store whose leftover table is named like the destination's new entity:
    /// refused by name, not merged into the table the mappings wrote.
    func testATableNamedLikeADestinationEntityIsRefused() throws {
        let v1 = #"{ "version": "v1", "entities": [ { "name": "Note", "attributes": [ { "name": "text", "type": "string" } ] } ] }"#
        let v2 = #"{ "version": "v2", "entities": [ { "name": "Note", "attributes": [ { "name": "text", "type": "string" } ] }, { "name": "Author", "attributes": [ { "name": "name", "type": "string" } ] } ] }"#
        try Data(v1.utf8).write(to: folder.url.appendingPathComponent("v1.json"))
        try Data(v2.utf8).write(to: folder.url.appendingPathComponent("v2.json"))
        let db = try Database(path: folder.path("notes.sqlite"), mode: .create)
        for sql in PlainLayout(model: try ModelFile.load(path: folder.path("v1.json"))).schemaSQL() { try db.execute(sql) }
        // Not v2's own definition (the store would then be taken for one at v2, with nothing to do).
        try db.execute("INSERT INTO Note (id, text) VALUES (1, 'a'); CREATE TABLE Author (id INTEGER PRIMARY KEY, name TEXT, since TEXT); INSERT INTO Author VALUES (1, 'leftover', '2019')")
        db.close()
        let pipeline = try folder.pipeline("notes.json", """
            { "format": 1, "otherTables": "carry", "source": { "store": "notes.sqlite", "model": "v1.json" },
              "destination": { "store": "notes-out.sqlite", "model": "v2.json" },
              "steps": [ { "mappings": [ { "source": "Note", "destination": "Note", "attributes": { "text": "$source.text" } } ] } ] }
            """)
        do {
            _ = try Migration(pipeline: pipeline).run()
            XCTFail("a carried table named like the destination's Author")
        } catch {
            XCTAssertTrue("\(error)".contains(#"its unknown table "Author" cannot be carried"#), "\(error)")
            XCTAssertTrue("\(error)".contains("the destination's layout makes a table"), "\(error)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("notes-out.sqlite")))
    }
}
