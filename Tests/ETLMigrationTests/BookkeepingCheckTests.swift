import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// Given a copy of CoreDataPlus's SampleModel V1 store (125 cars, Z_MAX 125) with its Core
/// Data bookkeeping edited, when it is upgraded, then the run is refused before a row is
/// read, naming the table, the value and the count, and the source stays byte-identical;
/// unedited, all 125 cars arrive.
final class BookkeepingCheckTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func run(editing sql: String?) throws -> (error: String?, source: URL, before: Data) {
        let sample = try folder.corpus("coredataplus-samplemodel")
        let source = sample.appendingPathComponent("SampleModel_V1.sqlite")
        if let sql {
            let db = try Database(path: source.path, mode: .readWrite)
            try db.execute(sql)
            db.close()
        }
        let before = try bytes(source.path)
        let pipeline = try folder.pipeline("upgrade.json", """
            { "format": 1, "models": "\(sample.appendingPathComponent("SampleModel.xcdatamodeld").path)", "drop": ["Person.id"],
              "source": { "store": "\(source.path)", "layout": "coredata", "version": "SampleModel" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata", "version": "SampleModel2" } }
            """)
        do {
            _ = try Migration(pipeline: pipeline).run()
            return (nil, source, before)
        } catch {
            XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("out.sqlite")))
            return ("\(error)", source, before)
        }
    }

    func assertRefused(_ sql: String, naming parts: [String], line: UInt = #line) throws {
        let result = try run(editing: sql)
        XCTAssertEqual(try bytes(result.source.path), result.before, line: line)
        guard let error = result.error else { return XCTFail("\(sql): not refused", line: line) }
        for part in ["its Core Data bookkeeping does not hold", "Nothing was read"] + parts {
            XCTAssertTrue(error.contains(part), "\(error)\n  does not contain: \(part)", line: line)
        }
    }

    func testAnUneditedStoreGivesEveryCar() throws {
        XCTAssertNil(try run(editing: nil).error)
        XCTAssertEqual(try Database(path: folder.path("out.sqlite"), mode: .readOnly).scalarInt("SELECT count(*) FROM ZCAR"), 125)
    }

    func testASecondPrimaryKeyRowForAnEntityIsRefused() throws {
        try assertRefused("INSERT INTO Z_PRIMARYKEY VALUES (9, 'Car', 0, 125)", naming: ["Z_PRIMARYKEY has 2 rows for 'Car' (Z_ENT 1, 9)"])
    }

    func testRowsWhoseEntityNumberNamesNoEntityAreRefused() throws {
        try assertRefused("UPDATE ZCAR SET Z_ENT = 99 WHERE Z_PK IN (1, 2, 3)", naming: ["table ZCAR has 3 rows with Z_ENT = 99, which names no entity of Car's (1, 2, 3)"])
    }

    func testAMaxBelowAKeyIsRefused() throws {
        try assertRefused("UPDATE Z_PRIMARYKEY SET Z_MAX = 100 WHERE Z_NAME = 'Car'",
                          naming: ["Z_PRIMARYKEY gives Car Z_MAX 100, below the highest key of table ZCAR, 125 (25 rows above it)"])
    }

    func testAWrongSuperIsRefused() throws {
        try assertRefused("UPDATE Z_PRIMARYKEY SET Z_SUPER = 4 WHERE Z_NAME = 'SportCar'",
                          naming: ["Z_PRIMARYKEY row Z_ENT 2 (SportCar) has Z_SUPER 4, but its parent's number is 1"])
    }
}
