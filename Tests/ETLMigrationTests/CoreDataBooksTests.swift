import XCTest
import Foundation
import ETLStore
import ETL
import ETLExpression

/// The books app written in Core Data's layout and migrated v1 → v3 through its bundle
/// (pipelines/books-coredata.json); inheritance; a change that cannot be inferred.
final class CoreDataBooksTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    func testBooksV1ToV3InCoreDataLayout() throws {
        let source = folder.path("v1.sqlite"), destination = folder.path("v3.sqlite")
        try BooksSample.write(rows: 1500, seed: 8, to: source, layout: .coredata)
        let before = try bytes(source)
        try migrateBooks(source: source, destination: destination, chunkSize: 100, workers: 2,
                         pipeline: repositoryPath("pipelines/books-coredata.json"))
        XCTAssertEqual(try bytes(source), before)
        let db = try Database(path: destination, mode: .readOnly)
        try db.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS v1")
        func count(_ sql: String) throws -> Int64 { try db.scalarInt(sql) }

        // Authors deduplicated, each linked to exactly the books that named it.
        XCTAssertEqual(try count("SELECT count(*) FROM main.ZAUTHOR"), try count("SELECT count(DISTINCT ZAUTHORNAME) FROM v1.ZBOOK"))
        let join = try XCTUnwrap(try db.rows("SELECT name FROM main.sqlite_schema WHERE name LIKE 'Z\\_%BOOKS' ESCAPE '\\'").first?.first)
        guard case .text(let joinTable) = join else { return XCTFail("no Author–Book join table") }
        let columns = try XCTUnwrap(try db.table(named: joinTable)).columns.map(\.name)
        let authorColumn = try XCTUnwrap(columns.first { $0.hasSuffix("AUTHORS") }), bookColumn = try XCTUnwrap(columns.first { $0.hasSuffix("BOOKS") })
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.\(joinTable) j JOIN main.ZAUTHOR a ON a.Z_PK = j.\(authorColumn)
            JOIN main.ZBOOK b ON b.Z_PK = j.\(bookColumn) JOIN v1.ZBOOK o ON o.ZTITLE = b.ZTITLE WHERE o.ZAUTHORNAME = a.ZNAME
            """), try count("SELECT count(*) FROM v1.ZBOOK WHERE ZAUTHORNAME IS NOT NULL"))

        // One File per (book, user) pair of books with a file, pointing at both from either side.
        let pairs = try count("SELECT count(*) FROM v1.Z_1USERS j JOIN v1.ZBOOK b ON b.Z_PK = j.Z_1BOOKS WHERE b.ZFILEURL IS NOT NULL")
        XCTAssertEqual(try count("SELECT count(*) FROM main.ZFILE"), pairs)
        XCTAssertEqual(try count("""
            SELECT count(*) FROM main.ZFILE f JOIN main.ZBOOK b ON b.Z_PK = f.ZBOOK JOIN main.ZUSER u ON u.Z_PK = f.ZUSER
            JOIN v1.ZBOOK ob ON ob.ZTITLE = b.ZTITLE AND ob.ZFILEURL = f.ZFILEURL JOIN v1.ZUSER ou ON ou.ZUSERID = u.ZUSERID
            JOIN v1.Z_1USERS j ON j.Z_1BOOKS = ob.Z_PK AND j.Z_2USERS = ou.Z_PK
            """), pairs)
        // Dates keep their instant (both stores count from 2001).
        XCTAssertEqual(try count("SELECT count(*) FROM main.ZBOOK b JOIN v1.ZBOOK o ON o.ZTITLE = b.ZTITLE WHERE b.ZPUBLISHED IS o.ZPUBLISHED"), 1500)

        // Core Data's bookkeeping: Z_ENT per entity, Z_MAX ≥ every key, Z_OPT 1.
        for row in try db.rows("SELECT Z_ENT, Z_NAME, Z_MAX FROM main.Z_PRIMARYKEY") {
            guard case .integer(let ent) = row[0], case .text(let name) = row[1], case .integer(let max) = row[2] else { return XCTFail("\(row)") }
            let table = "Z" + name.uppercased()
            XCTAssertEqual(try count("SELECT coalesce(max(Z_PK), 0) FROM main.\(table) WHERE Z_ENT = \(ent)"), max, "Z_MAX of \(name)")
            XCTAssertEqual(try count("SELECT count(*) FROM main.\(table) WHERE Z_ENT != \(ent) OR Z_OPT != 1"), 0, "\(table)")
        }
        XCTAssertEqual(try count("SELECT count(*) FROM main.Z_PRIMARYKEY"), 4)
        XCTAssertEqual(try CoreDataMetadata.read(db).storeType, "SQLite")
    }

    /// The same books in both layouts end with the same content.
    func testBothLayoutsGiveTheSameBooks() throws {
        try BooksSample.write(rows: 600, seed: 4, to: folder.path("plain-v1.sqlite"))
        try BooksSample.write(rows: 600, seed: 4, to: folder.path("cd-v1.sqlite"), layout: .coredata)
        try migrateBooks(source: folder.path("plain-v1.sqlite"), destination: folder.path("plain-v3.sqlite"))
        try migrateBooks(source: folder.path("cd-v1.sqlite"), destination: folder.path("cd-v3.sqlite"),
                         pipeline: repositoryPath("pipelines/books-coredata.json"))
        let plain = try Database(path: folder.path("plain-v3.sqlite"), mode: .readOnly)
        let cd = try Database(path: folder.path("cd-v3.sqlite"), mode: .readOnly)
        XCTAssertEqual(try plain.rows("SELECT title, published - 978307200, price FROM Book ORDER BY id"),
                       try cd.rows("SELECT ZTITLE, ZPUBLISHED, ZPRICE FROM ZBOOK ORDER BY Z_PK"))
        XCTAssertEqual(try plain.rows("SELECT name FROM Author ORDER BY id"), try cd.rows("SELECT ZNAME FROM ZAUTHOR ORDER BY Z_PK"))
        XCTAssertEqual(try plain.rows("SELECT fileURL, book_id, user_id FROM File ORDER BY id"),
                       try cd.rows("SELECT ZFILEURL, ZBOOK, ZUSER FROM ZFILE ORDER BY Z_PK"))
    }

    /// An abstract parent with two sub-entities: one shared table, rows told apart by Z_ENT.
    func testAnAbstractParentWithTwoSubEntitiesRoundTrips() throws {
        func model(_ version: String, extra: String) -> String {
            """
            { "version": "\(version)", "entities": [
              { "name": "Person", "abstract": true, "attributes": [ { "name": "name", "type": "string" } ] },
              { "name": "Employee", "parent": "Person", "attributes": [ { "name": "salary", "type": "integer64" }\(extra) ] },
              { "name": "Customer", "parent": "Person", "attributes": [ { "name": "tier", "type": "string" } ] } ] }
            """
        }
        try Data(model("people-v1", extra: "").utf8).write(to: folder.url.appendingPathComponent("people-v1.json"))
        try Data(model("people-v2", extra: ", { \"name\": \"title\", \"type\": \"string\" }").utf8).write(to: folder.url.appendingPathComponent("people-v2.json"))
        let v1 = try ModelFile.load(path: folder.path("people-v1.json"))
        let layout = CoreDataLayout(model: v1)
        let source = try Database(path: folder.path("people.sqlite"), mode: .create)
        try source.transaction {
            for sql in layout.schemaSQL() { try source.execute(sql) }
            let person = layout.table(of: "Employee").name
            for i in 1...30 {
                let entity = i % 3 == 0 ? "Customer" : "Employee"
                let ent = layout.entityNumber(of: entity)!
                try source.run("INSERT INTO \(person) (Z_PK, Z_ENT, Z_OPT, ZNAME, ZSALARY, ZTIER) VALUES (?, ?, 1, ?, ?, ?)",
                               [.integer(Int64(i)), .integer(Int64(ent)), .text("p\(i)"),
                                entity == "Employee" ? .integer(Int64(i * 1000)) : .null, entity == "Customer" ? .text("gold") : .null])
            }
            try layout.finish(source)
        }
        source.close()
        let pipeline = try folder.pipeline("people.json", """
            { "format": 1,
              "source": { "store": "people.sqlite", "model": "people-v1.json", "layout": "coredata" },
              "destination": { "store": "people-v2.sqlite", "model": "people-v2.json", "layout": "coredata" },
              "steps": [ { "mappings": [
                { "name": "Employees", "source": "Employee", "destination": "Employee",
                  "attributes": { "name": "$source.name", "salary": "$source.salary", "title": "concat('E-', $source.name)" } },
                { "name": "Customers", "source": "Customer", "destination": "Customer",
                  "attributes": { "name": "$source.name", "tier": "upper($source.tier)" } } ] } ] }
            """)
        let summary = try Migration(pipeline: pipeline).run()
        XCTAssertEqual(summary.mappings.map(\.written), [20, 10])
        let out = try Database(path: folder.path("people-v2.sqlite"), mode: .readOnly)
        let numbers = Dictionary(uniqueKeysWithValues: try out.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY").map { row -> (String, Int64) in
            guard case .text(let n) = row[0], case .integer(let e) = row[1] else { return ("", 0) }
            return (n, e)
        })
        XCTAssertEqual(Set(numbers.keys), ["Person", "Employee", "Customer"])
        XCTAssertEqual(try out.scalarInt("SELECT Z_SUPER FROM Z_PRIMARYKEY WHERE Z_NAME = 'Employee'"), numbers["Person"])
        XCTAssertEqual(try out.scalarInt("SELECT Z_SUPER FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'"), 0)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZPERSON WHERE Z_ENT = \(numbers["Employee"]!) AND ZTITLE = 'E-' || ZNAME AND ZSALARY IS NOT NULL"), 20)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZPERSON WHERE Z_ENT = \(numbers["Customer"]!) AND ZTIER = 'GOLD'"), 10)
        XCTAssertEqual(try out.scalarInt("SELECT count(DISTINCT Z_PK) FROM ZPERSON"), 30, "keys are unique across the shared table")
        // Keys of the whole tree come from the root's row (sub-entities keep 0, as Core Data writes them).
        XCTAssertGreaterThanOrEqual(try out.scalarInt("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'Person'"),
                                    try out.scalarInt("SELECT max(Z_PK) FROM ZPERSON"))
        XCTAssertEqual(try out.scalarInt("SELECT max(Z_MAX) FROM Z_PRIMARYKEY WHERE Z_NAME != 'Person'"), 0)
    }

    /// A bundle with a version that cannot be read still migrates between its other versions;
    /// a run that needs that version is refused with the version's file:line.
    func testABundleWithAnUnreadableVersionMigratesBetweenItsOtherVersions() throws {
        let bundle = folder.url.appendingPathComponent("Notes.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [
            ("n1", ModelBundleFiles.model(#"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/></entity>"#)),
            ("n2", ModelBundleFiles.model(#"<entity name="Note"><attribute name="body" optional="YES" attributeType="String"/><attribute name="rank" optional="YES" attributeType="Integer 64" defaultValueString="NO"/></entity>"#)),
            ("n3", ModelBundleFiles.model(#"<entity name="Note"><attribute name="body" attributeType="Strin"/></entity>"#)),
        ], current: "n3")
        let n1 = try XCTUnwrap(ModelBundle.load(path: bundle.path).version(named: "n1"))
        try writeEmptyCoreDataStore(of: n1, to: folder.path("notes.sqlite"))
        let store = try Database(path: folder.path("notes.sqlite"), mode: .readWrite)
        try store.execute("INSERT INTO ZNOTE (Z_PK, Z_ENT, Z_OPT, ZBODY) VALUES (1, 1, 1, 'one'), (2, 1, 1, 'two'), (3, 1, 1, NULL)")
        try store.execute("UPDATE Z_PRIMARYKEY SET Z_MAX = 3 WHERE Z_NAME = 'Note'")
        store.close()
        let source = URL(fileURLWithPath: folder.path("notes.sqlite"))

        let toN2 = try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path("n2.sqlite"), version: "n2")
        let summary = try Migration(pipeline: toN2).run()
        XCTAssertEqual(summary.mappings.map(\.written), [3])
        let out = try Database(path: folder.path("n2.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT Z_PK, ZBODY, ZRANK FROM ZNOTE ORDER BY Z_PK"),
                       [[.integer(1), .text("one"), .integer(0)], [.integer(2), .text("two"), .integer(0)], [.integer(3), .null, .integer(0)]],
                       "every row arrives; rank gets n2's default, NO read as 0")

        let toN3 = try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path("n3.sqlite"))
        assertRefusedAlike(Migration(pipeline: toN3)) { error in
            let text = "\(error)"
            XCTAssertTrue(text.contains(bundle.appendingPathComponent("n3.xcdatamodel/contents").path + ":"), text)
            XCTAssertTrue(text.contains("version n3 of") && text.contains("is needed by this run (hop n2 → n3)"), text)
            XCTAssertTrue(text.contains("unknown attributeType 'Strin'"), text)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("n3.sqlite")))
    }

    /// A type change cannot be inferred: refused before any row is read, naming the change
    /// and showing the explicit step to write.
    func testAChangeThatCannotBeInferredIsRefusedWithTheMappingToWrite() throws {
        let bundle = folder.url.appendingPathComponent("Notes.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("n1", "String"), ("n2", "Integer 64")].map { version, type in
            (version, ModelBundleFiles.model("""
                <entity name="Note"><attribute name="body" optional="YES" attributeType="String"/><attribute name="rank" optional="YES" attributeType="\(type)"/></entity>
                """))
        })
        let n1 = try ModelBundle.load(path: bundle.path).version(named: "n1")!
        try writeEmptyCoreDataStore(of: n1, to: folder.path("notes.sqlite"))
        let pipeline = try folder.pipeline("notes.json", """
            { "format": 1, "models": "Notes.xcdatamodeld",
              "source": { "store": "notes.sqlite", "layout": "coredata", "version": "n1" },
              "destination": { "store": "notes-n2.sqlite", "layout": "coredata", "version": "n2" } }
            """)
        assertRefusedAlike(Migration(pipeline: pipeline)) { error in
            let text = "\(error)"
            XCTAssertTrue(error is DocumentError, text)
            XCTAssertTrue(text.contains("n1 → n2 cannot be inferred"), text)
            XCTAssertTrue(text.contains("Note.rank"), text)
            XCTAssertTrue(text.contains("\"from\": \"n1\""), "the suggestion shows the step to write: \(text)")
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder.path("notes-n2.sqlite")))
    }
}
