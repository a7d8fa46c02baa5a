import Foundation
import XCTest
import ETLStore
import ETLTestSupport

/// A schema object's definition from a store etl did not write (`SchemaDefinition`): only
/// one plain CREATE statement of the object named is made; what follows it, another kind
/// of statement, another name or a temporary object is refused, and nothing runs.
final class SchemaDefinitionTests: XCTestCase {
    private var db: Database!

    override func setUpWithError() throws {
        db = try Database(path: ":memory:", mode: .create)
        try db.execute("CREATE TABLE ZCAR (Z_PK INTEGER PRIMARY KEY, ZNAME TEXT); INSERT INTO ZCAR VALUES (1, 'a'), (2, 'b')")
    }

    private func refusal(_ sql: String, _ kind: SchemaDefinition.Kind, _ name: String) -> String? {
        do {
            _ = try SchemaDefinition.check(sql, kind: kind, name: name, on: db)
            return nil
        } catch {
            return "\(error)"
        }
    }

    private func cars() throws -> Int64 { try db.scalarInt("SELECT count(*) FROM ZCAR") }

    func testOnePlainDefinitionIsMadeAsSQLiteParsesIt() throws {
        let table = try SchemaDefinition.check("CREATE TABLE \"odd \"\"name\" (a, b) /* a comment */ -- and one more\n  ", kind: .table, name: "odd \"name", on: db)
        XCTAssertEqual(table.kind, .table)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'odd \"name'"), 0, "checking makes nothing")
        try table.create(in: db)
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'odd \"name'"), 1)
        let index = try SchemaDefinition.check("CREATE INDEX byname ON ZCAR (ZNAME)", kind: .index, name: "BYNAME", on: db)
        XCTAssertEqual(index.table, "ZCAR")
        let trigger = try SchemaDefinition.check("CREATE TRIGGER wipe AFTER INSERT ON ZCAR BEGIN DELETE FROM ZCAR; INSERT INTO ZCAR (ZNAME) VALUES ('x'); END",
                                                 kind: .trigger, name: "wipe", on: db)
        XCTAssertEqual(trigger.table, "ZCAR", "a trigger's body may delete and insert: that is what it does when it fires")
        XCTAssertEqual(try SchemaDefinition.check("CREATE VIRTUAL TABLE notes USING fts5(body)", kind: .virtualTable, name: "notes", on: db).module, "fts5")
        _ = try SchemaDefinition.check("CREATE VIEW v AS SELECT * FROM ZCAR", kind: .view, name: "v", on: db)
        XCTAssertEqual(try cars(), 2)
    }

    func testWhatFollowsTheDefinitionIsRefusedAndNeverRuns() throws {
        for tail in ["; DELETE FROM ZCAR", "; COMMIT; VACUUM INTO '/tmp/etl-vacuum-elsewhere.sqlite'; BEGIN", "; ATTACH 'x.sqlite' AS x; UPDATE x.t SET a = 1",
                     "; PRAGMA writable_schema = 1", "; SELECT 1"] {
            let message = refusal("CREATE TABLE ZOTHER (id INTEGER PRIMARY KEY, note TEXT)" + tail, .table, "ZOTHER")
            XCTAssertTrue(message?.contains("holds more than one statement") == true, "\(tail): \(message ?? "made")")
        }
        XCTAssertEqual(try cars(), 2)
        XCTAssertFalse(FileManager.default.fileExists(atPath: "/tmp/etl-vacuum-elsewhere.sqlite"))
        XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'ZOTHER'"), 0)
    }

    func testAnotherKindOrNameOrPlaceIsRefused() throws {
        XCTAssertTrue(refusal("ATTACH 'elsewhere.sqlite' AS e", .table, "ZOTHER")?.contains("ATTACH") == true)
        XCTAssertTrue(refusal("DELETE FROM ZCAR", .table, "ZOTHER")?.contains("no CREATE TABLE") == true)
        XCTAssertTrue(refusal("CREATE TEMP TABLE ZOTHER (a)", .table, "ZOTHER")?.contains("temporary table") == true)
        XCTAssertTrue(refusal("CREATE TABLE ZELSE (a)", .table, "ZOTHER")?.contains("not \"ZOTHER\"") == true)
        XCTAssertTrue(refusal("CREATE VIEW ZOTHER AS SELECT 1", .table, "ZOTHER")?.contains("makes a view, not a table") == true)
        XCTAssertTrue(refusal("CREATE TABLE ZOTHER AS SELECT * FROM ZCAR", .table, "ZOTHER")?.contains("reads") == true)
        let dbpage = refusal("CREATE VIRTUAL TABLE pages USING sqlite_dbpage", .virtualTable, "pages")
        XCTAssertTrue(dbpage?.contains("module \"sqlite_dbpage\"") == true, dbpage ?? "made")
        XCTAssertTrue(refusal("-- nothing here", .table, "ZOTHER")?.contains("holds no statement") == true)
        XCTAssertTrue(refusal("CREATE TABLE ZOTHER (a) \u{0}; DELETE FROM ZCAR", .table, "ZOTHER")?.contains("NUL") == true)
        XCTAssertEqual(try cars(), 2)
    }
}
