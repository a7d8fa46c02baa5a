import Foundation
import XCTest
import ETLStore
import ETLTestSupport

/// The real Core Data stores of `shared/fixtures/coredata-rename-chain`, read through `Database`.
final class FixtureStoreTests: XCTestCase {
    static let versions = ["1.0.0", "1.1.0", "1.1.2", "1.2.0", "2.0.0"]

    /// A private copy of one store of the rename chain, removed after the test.
    private func store(_ version: String, file: StaticString = #filePath, line: UInt = #line) throws -> URL {
        try FixtureSet.copy("coredata-rename-chain/Example_v\(version).sqlite", into: TemporaryFolder.forTest(self, prefix: "etl-fixture"),
                            file: file, line: line)
    }

    func testFixtureCopiesLiveOutsideShared() throws {
        let copy = try store("1.0.0")
        XCTAssertFalse(copy.standardizedFileURL.path.hasPrefix(FixtureSet.root.path), copy.path)
        XCTAssertTrue(FileManager.default.isWritableFile(atPath: copy.path))
        XCTAssertTrue(FileManager.default.fileExists(atPath: FixtureSet.root.appendingPathComponent("coredata-rename-chain/Example_v1.0.0.sqlite").path))
    }

    func testEachStoreOpensReadOnlyWithCoreDataTables() throws {
        for version in Self.versions {
            let copy = try store(version)
            let db = try Database(path: copy.path, mode: .readOnly)
            XCTAssertNoThrow(try db.checkReadable(), version)
            let names = Set(try db.tables().map(\.name))
            for required in ["ZBASICENTITY", "Z_PRIMARYKEY", "Z_METADATA"] {
                XCTAssertTrue(names.contains(required), "v\(version): \(required) missing from \(names.sorted())")
            }
            XCTAssertThrowsError(try db.execute("DELETE FROM ZBASICENTITY"), "v\(version) must be read-only") { error in
                XCTAssertEqual((error as? StoreError)?.code, SQLiteCode.readOnly)
            }
        }
    }

    func testEachStoreHoldsOneKnownValueInItsVersionNamedColumn() throws {
        for version in Self.versions {
            let copy = try store(version)
            let db = try Database(path: copy.path, mode: .readOnly)
            let table = try XCTUnwrap(try db.table(named: "ZBASICENTITY"), version)
            let named = table.columns.filter { $0.name.hasSuffix("NAME") }
            XCTAssertEqual(named.count, 1, "v\(version): \(table.columns.map(\.name))")
            let column = try XCTUnwrap(named.first)
            let expected = "ZV" + version.replacingOccurrences(of: ".", with: "_") + "_NAME"
            XCTAssertEqual(column.name, expected, "the column is named after the store's version")
            XCTAssertEqual(table.columns.filter(\.isPrimaryKey).map(\.name), ["Z_PK"])

            let rows = try db.rows("SELECT \(Database.quote(column.name)) FROM ZBASICENTITY")
            XCTAssertEqual(rows, [[.text("A Known Value")]], "v\(version)")
        }
    }

    func testPrimaryKeyBookkeepingMatchesTheRows() throws {
        for version in Self.versions {
            let copy = try store(version)
            let db = try Database(path: copy.path, mode: .readOnly)
            let entry = try db.rows("SELECT Z_ENT, Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'BasicEntity'")
            XCTAssertEqual(entry.count, 1, "v\(version)")
            let rows = try db.rows("SELECT Z_ENT, max(Z_PK) FROM ZBASICENTITY")
            XCTAssertEqual(entry.first, rows.first, "v\(version): Z_PRIMARYKEY's Z_ENT and Z_MAX")
            XCTAssertEqual(try db.scalarInt("SELECT count(*) FROM Z_METADATA"), 1, "v\(version)")
        }
    }

    func testReadingLeavesTheCopyByteForByteUnchanged() throws {
        for version in Self.versions {
            let copy = try store(version)
            let before = try Data(contentsOf: copy)
            XCTAssertGreaterThan(before.count, 0)
            do {
                let db = try Database(path: copy.path, mode: .readOnly)
                try db.checkReadable()
                for table in try db.tables() {
                    _ = try db.rows("SELECT * FROM \(Database.quote(table.name))")
                }
                XCTAssertThrowsError(try db.execute("UPDATE ZBASICENTITY SET Z_OPT = Z_OPT + 1"))
            }
            let after = try Data(contentsOf: copy)
            XCTAssertEqual(after.count, before.count, "v\(version)")
            XCTAssertTrue(after == before, "v\(version): reading a store read-only changed its bytes")
        }
    }
}
