import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLTestSupport

/// Given CoreDataPlus's SampleModel2 store with persistent history (5,468 changes in
/// ACHANGE, 1 transaction, 2 transaction strings), when it is migrated to a version that
/// adds an entity (which renumbers the entities), then its history is never lost without
/// the pipeline saying so: refused with the tables and their row counts, dropped when the
/// pipeline says "drop", carried with ZENTITY renumbered when the pipeline says "carry" and
/// the rows keep their keys.
final class HistoryTablesTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// SampleModel2 V1 is the model the store keeps (`Z_MODELCACHE`: CoreDataPlus built it in
    /// code, so no model file exists): entities, inheritance, relationships with the code's
    /// counts (`minCount = 1` on Book.author and Page.book, `maxCount = .max` on
    /// Author.books), uniqueness constraints, the derived `pagesCount`. V2 is V1 plus an
    /// entity `Award` whose name sorts first: every entity's number moves up by one. Both are
    /// written into a bundle as Xcode's XML, as `etl model from-store --xcdatamodel` does.
    func writeBundle() throws {
        let v1 = try XCTUnwrap(try ModelCache.read(try Database(path: source, mode: .readOnly), version: "V1"))
        var v2 = v1
        v2.entities.append(Entity(name: "Award", attributes: [Attribute(name: "name", type: .string)]))
        v2.version = "V2"
        let bundle = folder.url.appendingPathComponent("SampleModel2.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("V1", XCDataModelWriter.xml(v1)), ("V2", XCDataModelWriter.xml(v2))], current: "V2")
    }

    /// The store copied, the bundle, and a pipeline with an explicit V1 → V2 step whose
    /// mappings keep every key (Book and GraphicNovel too, though both write ZBOOK);
    /// `feedbacks` adds keys to the Feedback mapping.
    func pipeline(history: String?, feedbacks: String = "") throws -> String {
        _ = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V1.sqlite", into: folder.url)
        try writeBundle()
        let books = #""uniqueID": "$source.uniqueID", "title": "$source.title", "price": "$source.price", "cover": "$source.cover", "publishedAt": "$source.publishedAt""#
        let links = #""author": "destination('Authors', $source.author)", "pages": "destinations('Pages', $source.pages)""#
        return try folder.pipeline("history.json", """
            { "format": 1, "models": "SampleModel2.xcdatamodeld"\(history.map { ", \"history\": \"\($0)\"" } ?? ""),
              "source": { "store": "SampleModel2_V1.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata" },
              "steps": [ { "from": "V1", "to": "V2", "mappings": [
                { "name": "Authors", "source": "Author", "destination": "Author",
                  "attributes": { "age": "$source.age", "alias": "$source.alias", "siteURL": "$source.siteURL" } },
                { "name": "Books", "source": "Book", "destination": "Book", "attributes": { \(books) }, "relationships": { \(links) } },
                { "name": "Novels", "source": "GraphicNovel", "destination": "GraphicNovel",
                  "attributes": { \(books), "isBlackAndWhite": "$source.isBlackAndWhite" }, "relationships": { \(links) } },
                { "name": "Pages", "source": "Page", "destination": "Page",
                  "attributes": { "isBookmarked": "$source.isBookmarked", "number": "$source.number", "content": "$source.content" } },
                { "name": "Feedbacks", "source": "Feedback", "destination": "Feedback",
                  "attributes": { "authorAlias": "$source.authorAlias", "bookID": "$source.bookID", "comment": "$source.comment", "rating": "$source.rating" }\(feedbacks) } ] } ] }
            """)
    }

    var source: String { folder.path("SampleModel2_V1.sqlite") }
    var destination: String { folder.path("out.sqlite") }

    func testWithoutASayTheRunIsRefusedWithTheTablesAndTheirCounts() throws {
        let pipeline = try pipeline(history: nil)
        assertRefusedAlike(Migration(pipeline: pipeline), contains: [
            "SampleModel2_V1.sqlite", "Core Data persistent history tables",
            "ACHANGE (5468 rows), ATRANSACTION (1 row), ATRANSACTIONSTRING (2 rows)", "Nothing was read", #""history": "drop""#,
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    func testInspectListsTheHistoryTables() throws {
        _ = try pipeline(history: nil)
        let report = try StoreInspection.inspect(path: source, bundle: folder.path("SampleModel2.xcdatamodeld"))
        XCTAssertEqual(report.unmodeledTables.map { "\($0.name) \($0.rows) \($0.kind)" }, ["ACHANGE 5468 history", "ATRANSACTION 1 history", "ATRANSACTIONSTRING 2 history"])
    }

    func testDroppedWhenThePipelineSaysSo() throws {
        let summary = try Migration(pipeline: try pipeline(history: "drop")).run()
        XCTAssertTrue(summary.notes.contains("dropped Core Data persistent history tables ACHANGE (5468 rows), ATRANSACTION (1 row), ATRANSACTIONSTRING (2 rows), as the pipeline's \"history\" says"),
                      "\(summary.notes)")
        let out = try Database(path: destination, mode: .readOnly)
        XCTAssertNil(try out.table(named: "ACHANGE"))
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ZPAGE"), 4970)
    }

    /// Every entity's rows keep their keys (Book and GraphicNovel too, though two mappings
    /// write ZBOOK): the whole history arrives, each of the 5,468 changes pointing at the same
    /// row under its entity's new number.
    func testTheWholeHistoryIsCarriedWhereEveryKeyIsKept() throws {
        let summary = try Migration(pipeline: try pipeline(history: "carry")).run()
        XCTAssertTrue(summary.notes.contains { $0.hasPrefix("carried Core Data persistent history tables ACHANGE (5468 rows)") }, "\(summary.notes)")
        let out = try Database(path: destination, mode: .readOnly)
        try out.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS src")
        XCTAssertEqual(try out.rows("SELECT DISTINCT ZENTITY FROM ACHANGE ORDER BY 1"), [[.integer(2)], [.integer(3)], [.integer(4)], [.integer(5)], [.integer(7)]],
                       "Book 1 → 2, GraphicNovel 2 → 3, Feedback 3 → 4, Page 4 → 5, Author 6 → 7")
        for (table, old) in [("ZBOOK", 1), ("ZBOOK", 2), ("ZFEEDBACK", 3), ("ZPAGE", 4), ("ZWRITER", 6)] {
            let dangling = try out.scalarInt("""
                SELECT count(*) FROM ACHANGE c WHERE c.ZENTITY = \(old + 1)
                AND EXISTS (SELECT 1 FROM src.\(table) s WHERE s.Z_PK = c.ZENTITYPK AND s.Z_ENT = \(old))
                AND NOT EXISTS (SELECT 1 FROM main.\(table) d WHERE d.Z_PK = c.ZENTITYPK AND d.Z_ENT = c.ZENTITY)
                """)
            XCTAssertEqual(dangling, 0, "\(table), entity \(old)")
        }
        XCTAssertEqual(try out.scalarInt("""
            SELECT count(*) FROM src.ZBOOK s JOIN main.ZBOOK d ON d.Z_PK = s.Z_PK AND d.Z_ENT = s.Z_ENT + 1 AND d.ZTITLE = s.ZTITLE
            """), try out.scalarInt("SELECT count(*) FROM src.ZBOOK"), "every book and graphic novel keeps its key")
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ACHANGE c JOIN src.ACHANGE s USING (Z_PK) WHERE c.ZENTITYPK = s.ZENTITYPK AND c.ZENTITY = s.ZENTITY + 1"),
                       5468, "every change kept, under its own key")
    }

    /// The derived `pagesCount` keeps Core Data's triggers: the migrated store has the
    /// fixture store's five, under the same names with the same SQL, created once the rows
    /// are in, and every book's count is its pages' (though the step maps no value to it);
    /// pushed down and row by row.
    func testTheDerivedCountsTriggersAreCoreDatas() throws {
        let pipeline = try pipeline(history: "drop")
        let fixture = try Database(path: source, mode: .readOnly)
        let expected = try fixture.rows("SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name")
        fixture.close()
        XCTAssertEqual(expected.count, 5)
        for pushdown in [true, false] {
            var migration = Migration(pipeline: pipeline)
            migration.options.pushdown = pushdown
            migration.options.replace = .force
            _ = try migration.run()
            let out = try Database(path: destination, mode: .readOnly)
            XCTAssertEqual(try out.rows("SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'trigger' ORDER BY name"), expected, "pushdown \(pushdown)")
            XCTAssertEqual(try out.rows("SELECT Z_PK, ZPAGESCOUNT FROM ZBOOK ORDER BY 1"),
                           try out.rows("SELECT b.Z_PK, (SELECT count(*) FROM ZPAGE p WHERE p.ZBOOK = b.Z_PK) FROM ZBOOK b ORDER BY 1"))
            XCTAssertGreaterThan(try out.scalarInt("SELECT sum(ZPAGESCOUNT) FROM ZBOOK"), 0)
            out.close()
        }
    }

    /// Where the rows of an entity the history refers to do not keep their keys (Feedback
    /// deduplicated by uniqueBy), carried changes would point at other rows: refused, naming why.
    func testCarryIsRefusedWhereTheKeysAreNotKept() throws {
        let pipeline = try pipeline(history: "carry", feedbacks: #", "uniqueBy": "$source.authorAlias""#)
        assertRefusedAlike(Migration(pipeline: pipeline), contains: [
            "the rows of Feedback do not keep their keys in step V1 to V2 (Feedbacks)", #""history": "drop""#,
        ])
        XCTAssertFalse(FileManager.default.fileExists(atPath: destination))
    }

    /// The V1 model the store keeps is the one that wrote it: every
    /// entity hash that can be computed is the store's. Book and GraphicNovel hold the derived
    /// `pagesCount`, whose hash no known layout reproduces: refused alone, they take the
    /// store's recorded hash where V2 defines them as V1 does, and no other entity does.
    func testTheModelsHashesAreTheStoresOwn() throws {
        let dropping = try pipeline(history: "drop")
        let bundle = try ModelBundle.load(path: folder.path("SampleModel2.xcdatamodeld"))
        let (v1, v2) = (try XCTUnwrap(bundle.version(named: "V1")), try XCTUnwrap(bundle.version(named: "V2")))
        let stored = try CoreDataMetadata.read(try Database(path: source, mode: .readOnly))
        XCTAssertThrowsError(try VersionHashes(model: v1)) { error in
            XCTAssertTrue("\(error)".contains("attribute pagesCount is derived"), "\(error)")
        }
        var computable = v1
        computable.entities.removeAll { entity in v1.attributes(of: entity.name).contains { $0.derivation != nil } }
        let computed = try VersionHashes(model: computable)
        XCTAssertEqual(computed.entities.keys.sorted(), ["Author", "Feedback", "Page", "Writer"])
        for (entity, hash) in computed.entities {
            XCTAssertEqual(hash, stored.versionHashes[entity], "\(entity): the store's own hash")
        }

        let recorded = VersionHashes.recordedHashes(in: stored, storeModel: v1, for: v2)
        XCTAssertEqual(recorded, ["Book": stored.versionHashes["Book"]!, "GraphicNovel": stored.versionHashes["GraphicNovel"]!])
        let hashes = try VersionHashes(model: v2, recorded: recorded)
        for entity in ["Author", "Book", "Feedback", "GraphicNovel", "Page", "Writer"] {
            XCTAssertEqual(hashes.entities[entity], stored.versionHashes[entity], entity)
        }
        XCTAssertNotNil(hashes.entities["Award"])

        // A store whose computable hashes are not the model's proves nothing: nothing is taken from it.
        var other = stored
        other.versionHashes["Page"] = Data(repeating: 0, count: 32)
        XCTAssertEqual(VersionHashes.recordedHashes(in: other, storeModel: v1, for: v2), [:])
        // Nor does one with an entity the model does not have.
        other = stored
        other.versionHashes["Award"] = Data(repeating: 1, count: 32)
        XCTAssertEqual(VersionHashes.recordedHashes(in: other, storeModel: v1, for: v2), [:])
        // A version that changes Book (here its derivation) gets no recorded hash for it, nor for GraphicNovel.
        var changed = v2
        let book = try XCTUnwrap(changed.entities.firstIndex { $0.name == "Book" })
        let pages = try XCTUnwrap(changed.entities[book].attributes.firstIndex { $0.name == "pagesCount" })
        changed.entities[book].attributes[pages].derivation = "pages.@sum.number"
        XCTAssertEqual(VersionHashes.recordedHashes(in: stored, storeModel: v1, for: changed), [:])
        XCTAssertThrowsError(try VersionHashes(model: changed, recorded: VersionHashes.recordedHashes(in: stored, storeModel: v1, for: changed)))

        // And the run writes them: the destination carries V2's hashes, Book's and GraphicNovel's the store's.
        _ = try Migration(pipeline: dropping).run()
        let written = try CoreDataMetadata.read(try Database(path: destination, mode: .readOnly))
        XCTAssertEqual(written.versionHashes, hashes.entities)
        XCTAssertEqual(written.versionHashesDigest, hashes.digest)
    }

    /// A history without the changes to books (as an app that pruned them has): the
    /// remaining tables and counts arrive, each change pointing at the same row under its
    /// new entity number, and Core Data goes on numbering changes after the source's.
    func testCarriedHistoryPointsAtTheSameRowsUnderTheNewEntityNumbers() throws {
        let pipeline = try pipeline(history: "carry")
        let db = try Database(path: source, mode: .readWrite)
        try db.execute("DELETE FROM ACHANGE WHERE ZENTITY IN (1, 2)")
        let changes = try db.scalarInt("SELECT count(*) FROM ACHANGE")
        db.close()
        XCTAssertEqual(changes, 5468 - 52)

        let summary = try Migration(pipeline: pipeline).run()
        XCTAssertTrue(summary.notes.contains { $0.hasPrefix("carried Core Data persistent history tables ACHANGE (5416 rows)") }, "\(summary.notes)")
        let out = try Database(path: destination, mode: .readOnly)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ACHANGE"), changes)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ATRANSACTION"), 1)
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ATRANSACTIONSTRING"), 2)
        XCTAssertEqual(try out.rows("SELECT Z_NAME, Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME IN ('Award', 'Feedback', 'Page', 'Author') ORDER BY Z_ENT"),
                       [[.text("Award"), .integer(1)], [.text("Feedback"), .integer(4)], [.text("Page"), .integer(5)], [.text("Author"), .integer(7)]],
                       "Award sorts first: the others moved up")
        XCTAssertEqual(try out.rows("SELECT DISTINCT ZENTITY FROM ACHANGE ORDER BY 1"), [[.integer(4)], [.integer(5)], [.integer(7)]],
                       "Feedback 3 → 4, Page 4 → 5, Author 6 → 7")
        try out.execute("ATTACH DATABASE \(SQLValue.text(source).sqlLiteral) AS src")
        // Every change to a row the source still has points at that row: same table, same key, same entity.
        for (table, old) in [("ZFEEDBACK", 3), ("ZPAGE", 4), ("ZWRITER", 6)] {
            let dangling = try out.scalarInt("""
                SELECT count(*) FROM ACHANGE c WHERE c.ZENTITY = \(old + 1)
                AND EXISTS (SELECT 1 FROM src.\(table) s WHERE s.Z_PK = c.ZENTITYPK)
                AND NOT EXISTS (SELECT 1 FROM main.\(table) d WHERE d.Z_PK = c.ZENTITYPK AND d.Z_ENT = c.ZENTITY)
                """)
            XCTAssertEqual(dangling, 0, table)
        }
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM ACHANGE c JOIN src.ACHANGE s USING (Z_PK) WHERE c.ZENTITYPK = s.ZENTITYPK AND c.ZTRANSACTIONID = s.ZTRANSACTIONID AND c.ZENTITY = s.ZENTITY + 1"),
                       changes, "every change kept, under its own key")
        XCTAssertEqual(try out.rows("SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_NAME = 'CHANGE'"), [[.integer(5468)]], "Core Data goes on numbering changes after 5468")
    }

    /// A plain store with a table of its own: refused, or carried as it is.
    func testAnUnknownTableIsRefusedOrCarriedAsItIs() throws {
        let model = #"{ "version": "v1", "entities": [ { "name": "Note", "attributes": [ { "name": "text", "type": "string" } ] } ] }"#
        try Data(model.utf8).write(to: folder.url.appendingPathComponent("notes.json"))
        let db = try Database(path: folder.path("notes.sqlite"), mode: .create)
        for sql in PlainLayout(model: try ModelFile.load(path: folder.path("notes.json"))).schemaSQL() { try db.execute(sql) }
        try db.execute("INSERT INTO Note (id, text) VALUES (1, 'a'); CREATE TABLE sync_state (peer TEXT PRIMARY KEY, token BLOB); CREATE INDEX sync_token ON sync_state (token); INSERT INTO sync_state VALUES ('x', x'01'), ('y', x'02')")
        db.close()
        func pipeline(_ extra: String) throws -> String {
            try folder.pipeline("notes-\(extra.isEmpty ? "plain" : "carry").json", """
                { "format": 1\(extra), "source": { "store": "notes.sqlite", "model": "notes.json" },
                  "destination": { "store": "notes-out.sqlite", "model": "notes.json" },
                  "steps": [ { "mappings": [ { "source": "Note", "destination": "Note", "attributes": { "text": "$source.text" } } ] } ] }
                """)
        }
        assertRefusedAlike(Migration(pipeline: try pipeline("")), contains: ["unknown tables", "sync_state (2 rows)", #""otherTables": "drop""#])
        let summary = try Migration(pipeline: try pipeline(#", "otherTables": "carry""#)).run()
        XCTAssertEqual(summary.notes, [#"carried unknown tables sync_state (2 rows), as the pipeline's "otherTables" says"#])
        let out = try Database(path: folder.path("notes-out.sqlite"), mode: .readOnly)
        XCTAssertEqual(try out.rows("SELECT peer, token FROM sync_state ORDER BY peer"), [[.text("x"), .blob([1])], [.text("y"), .blob([2])]])
        XCTAssertEqual(try out.scalarInt("SELECT count(*) FROM sqlite_schema WHERE name = 'sync_token'"), 1, "its index too")
    }
}
