import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETL
import ETLBatch
import ETLTestSupport

/// Pipelines whose models come from stores (`Z_MODELCACHE`), not from a bundle: the source's
/// own, and the target's from a store the new app version wrote (`modelFrom`). What a
/// SwiftData app, or a team that lost a model version, has.
final class ModelFromStoreTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Bookmarks V1 upgrades with no bundle at all to the model kept in Bookmarks V5, and the
    /// store is, table by table, the one the bundle's four inferred hops to BookmarksModel 5
    /// write: the same rows under the same keys, the same order, the same hashes.
    func testBookmarksV1UpgradesToTheModelKeptInV5AsTheBundleRunDoes() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let source = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite")
        let drop = #", "drop": ["BookmarkEntity.isFavorite"]"#

        let byBundle = folder.path("by-bundle.sqlite")
        let bundleRun = Migration(pipeline: try folder.coreDataPipeline(bundle: bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld"),
                                                                        source: source, destination: byBundle, version: "BookmarksModel 5",
                                                                        extra: drop))
        XCTAssertFalse(try bundleRun.plan().notes.contains { $0.contains("Z_MODELCACHE") }, "the bundle and the model V1 keeps agree: nothing to say")
        _ = try bundleRun.run()

        let byStores = folder.path("by-stores.sqlite")
        let pipeline = try folder.pipeline("from-stores.json", """
            { "format": 1,
              "source": { "store": "\(source.path)", "layout": "coredata" },
              "destination": { "store": "\(byStores)", "layout": "coredata",
                               "modelFrom": "\(bookmarks.appendingPathComponent("Bookmarks_V5.sqlite").path)" }\(drop) }
            """)
        let migration = Migration(pipeline: pipeline)
        let plan = try migration.plan()
        XCTAssertEqual(plan.steps.map(\.name), ["Bookmarks_V1 to Bookmarks_V5 (inferred)"])
        let summary = try migration.run()
        XCTAssertEqual(summary.mappings.map(\.dropped), [10], "the 10 isFavorite values, as the pipeline's drop says")

        let expected = try CoreDataMetadata.read(try Database(path: bookmarks.appendingPathComponent("Bookmarks_V5.sqlite").path, mode: .readOnly))
        XCTAssertEqual(try CoreDataMetadata.read(try Database(path: byStores, mode: .readOnly)).versionHashes, expected.versionHashes)
        let tables = try Database(path: byBundle, mode: .readOnly).tables().map(\.name)
        XCTAssertTrue(tables.contains("ZBOOKMARKENTITY") && tables.contains("Z_1FAVORITES"), "\(tables)")
        for table in tables {
            let others = Set(tables).subtracting([table])
            XCTAssertEqual(try storeDump(byStores, excluding: others), try storeDump(byBundle, excluding: others), table)
        }
        try assertSameStore(byStores, byBundle)
    }

    /// `etl batch` over an archive of stores at different versions, no bundle: each store
    /// brings its own model, and all end at the model kept in the reference store.
    func testABatchUpgradesStoresOfEveryVersionEachFromItsOwnModel() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let archive = folder.url.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        for n in 3...5 {
            for suffix in ["", "-wal"] {
                try FileManager.default.copyItem(at: bookmarks.appendingPathComponent("Bookmarks_V\(n).sqlite\(suffix)"),
                                                 to: archive.appendingPathComponent("Bookmarks_V\(n).sqlite\(suffix)"))
            }
        }
        let reference = bookmarks.appendingPathComponent("Bookmarks_V5.sqlite")
        let pipeline = try folder.pipeline("archive.json", """
            { "format": 1,
              "source": { "store": "unused.sqlite", "layout": "coredata" },
              "destination": { "store": "out.sqlite", "layout": "coredata", "modelFrom": "\(reference.path)" } }
            """)
        let stores = try BatchStoreList.find(archive.path, currentDirectory: folder.url.path, excluding: []).stores
        let report = try Batch(options: BatchOptions(pipeline: pipeline, stores: stores, output: .directory(folder.path("out")),
                                                     manifest: folder.path("batch.jsonl.zst"), jobs: 1)).run()
        let byStore = Dictionary(uniqueKeysWithValues: report.stores.map { ($0.path, $0) })
        XCTAssertEqual(byStore["Bookmarks_V3.sqlite"]?.status, .done, "\(report.stores)")
        XCTAssertEqual(byStore["Bookmarks_V3.sqlite"]?.fromVersion, "Bookmarks_V3")
        XCTAssertEqual(byStore["Bookmarks_V4.sqlite"]?.status, .done, "\(report.stores)")
        XCTAssertEqual(byStore["Bookmarks_V5.sqlite"]?.status, .skipped, "already at the target: \(report.stores)")
        let expected = try CoreDataMetadata.read(try Database(path: reference.path, mode: .readOnly)).versionHashes
        for n in 3...4 {
            let output = try XCTUnwrap(byStore["Bookmarks_V\(n).sqlite"]?.output)
            XCTAssertEqual(try CoreDataMetadata.read(try Database(path: output, mode: .readOnly)).versionHashes, expected, output)
        }
    }

    /// An explicit step between a source's kept model and `modelFrom`'s runs as written, and
    /// writes what the inferred step writes when it maps the same.
    func testAnExplicitStepRunsBetweenKeptModels() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let source = bookmarks.appendingPathComponent("Bookmarks_V4.sqlite"), reference = bookmarks.appendingPathComponent("Bookmarks_V5.sqlite")
        func pipeline(_ name: String, steps: String) throws -> String {
            try folder.pipeline("\(name).json", """
                { "format": 1, "source": { "store": "\(source.path)", "layout": "coredata" },
                  "destination": { "store": "\(folder.path("\(name).sqlite"))", "layout": "coredata", "modelFrom": "\(reference.path)" }\(steps) }
                """)
        }
        let attributes = ["isFolder", "isPendingDeletion", "modifiedAt", "title", "url", "uuid"].map { "\"\($0)\": \"$source.\($0)\"" }.joined(separator: ", ")
        let explicit = try pipeline("explicit", steps: """
            , "steps": [ { "name": "by hand", "mappings": [ { "name": "Bookmarks", "source": "BookmarkEntity", "destination": "BookmarkEntity",
                "attributes": { \(attributes) },
                "relationships": { "parent": "destination('Bookmarks', $source.parent)", "favoriteFolders": "destinations('Bookmarks', $source.favoriteFolders)" } } ] } ]
            """)
        let plan = try Migration(pipeline: explicit).plan()
        XCTAssertEqual(plan.steps.map(\.name), ["by hand"])
        XCTAssertFalse(plan.steps[0].isInferred)
        _ = try Migration(pipeline: explicit).run()
        _ = try Migration(pipeline: try pipeline("inferred", steps: "")).run()
        try assertSameStore(folder.path("explicit.sqlite"), folder.path("inferred.sqlite"))
    }

    /// A model built in code, with a derived attribute whose hash etl cannot compute: the
    /// target's hashes for it are those the reference store recorded, and no template is
    /// needed. SampleModel2 V1 → the model kept in V2 (Author.siteURL removed, Book.cover
    /// renamed frontCover: Book changed, so V1's recorded hash is not V2's), Book and
    /// GraphicNovel with the derived pagesCount.
    func testADerivedAttributeTakesTheReferenceStoresHash() throws {
        let folderURL = folder.url.appendingPathComponent("fixtures")
        let v1 = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V1.sqlite", into: folderURL)
        let v2 = try FixtureSet.copy("coredata-corpus/coredataplus-samplemodel2/SampleModel2_V2.sqlite", into: folderURL.appendingPathComponent("reference"))
        let out = folder.path("out.sqlite")
        // An explicit step: the model kept in V2 renames Book.cover frontCover without a renaming identifier.
        let books = #""uniqueID": "$source.uniqueID", "title": "$source.title", "price": "$source.price", "frontCover": "$source.cover", "publishedAt": "$source.publishedAt""#
        let links = #""author": "destination('Authors', $source.author)", "pages": "destinations('Pages', $source.pages)""#
        let pipeline = try folder.pipeline("code-model.json", """
            { "format": 1, "history": "drop",
              "source": { "store": "\(v1.path)", "layout": "coredata" },
              "destination": { "store": "\(out)", "layout": "coredata", "modelFrom": "\(v2.path)" },
              "steps": [ { "mappings": [
                { "name": "Authors", "source": "Author", "destination": "Author", "attributes": { "age": "$source.age", "alias": "$source.alias" } },
                { "name": "Books", "source": "Book", "destination": "Book", "attributes": { \(books) }, "relationships": { \(links) } },
                { "name": "Novels", "source": "GraphicNovel", "destination": "GraphicNovel",
                  "attributes": { \(books), "isBlackAndWhite": "$source.isBlackAndWhite" }, "relationships": { \(links) } },
                { "name": "Pages", "source": "Page", "destination": "Page",
                  "attributes": { "isBookmarked": "$source.isBookmarked", "number": "$source.number", "content": "$source.content" } },
                { "name": "Feedbacks", "source": "Feedback", "destination": "Feedback",
                  "attributes": { "authorAlias": "$source.authorAlias", "bookID": "$source.bookID", "comment": "$source.comment", "rating": "$source.rating" } } ] } ] }
            """)
        let summary = try Migration(pipeline: pipeline).run()
        XCTAssertFalse(summary.notes.contains { $0.contains("no Core Data version hashes") }, "\(summary.notes)")
        let expected = try CoreDataMetadata.read(try Database(path: v2.path, mode: .readOnly))
        let written = try CoreDataMetadata.read(try Database(path: out, mode: .readOnly))
        XCTAssertEqual(written.versionHashes, expected.versionHashes, "Book and GraphicNovel included")
        XCTAssertEqual(try Database(path: out, mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOK WHERE ZFRONTCOVER IS NOT NULL"),
                       try Database(path: v1.path, mode: .readOnly).scalarInt("SELECT count(*) FROM ZBOOK WHERE ZCOVER IS NOT NULL"))
    }

    /// A source already at the reference store's model (the same hashes) is up to date.
    func testASourceAtTheReferenceModelIsUpToDate() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let pipeline = try folder.pipeline("same.json", """
            { "format": 1,
              "source": { "store": "\(bookmarks.appendingPathComponent("Bookmarks_V5.sqlite").path)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("out.sqlite"))", "layout": "coredata",
                               "modelFrom": "\(bookmarks.appendingPathComponent("Bookmarks_V5.sqlite").path)" } }
            """)
        let plan = try Migration(pipeline: pipeline).plan()
        XCTAssertTrue(plan.steps.isEmpty)
        XCTAssertEqual(plan.sourceVersion, "Bookmarks_V5")
    }

    /// A store that keeps no model (written before about 2017), named as a source without a
    /// model or as `modelFrom`, is refused naming the store and what to give instead.
    func testAStoreThatKeepsNoModelIsRefusedNamingIt() throws {
        let old = try folder.corpus("ctdatastoremanager").appendingPathComponent("TestMigrationStore_version_1.sqlite")
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let asSource = try folder.pipeline("old-source.json", """
            { "format": 1, "source": { "store": "\(old.path)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("a.sqlite"))", "layout": "coredata",
                               "modelFrom": "\(bookmarks.appendingPathComponent("Bookmarks_V5.sqlite").path)" } }
            """)
        assertPlanError(try Migration(pipeline: asSource).plan(),
                                 contains: [old.path, "keeps no model of its own", "name the source's model with \"model\""])
        let asTarget = try folder.pipeline("old-target.json", """
            { "format": 1, "source": { "store": "\(bookmarks.appendingPathComponent("Bookmarks_V1.sqlite").path)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("b.sqlite"))", "layout": "coredata", "modelFrom": "\(old.path)" } }
            """)
        assertPlanError(try Migration(pipeline: asTarget).plan(),
                                 contains: [old.path, "keeps no model of its own", "modelFrom", "name the target's model with \"model\""])
    }

    /// A source whose kept model does not have its metadata's hashes is not trusted.
    func testAKeptModelThatDisagreesWithTheMetadataIsRefused() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let v1 = bookmarks.appendingPathComponent("Bookmarks_V1.sqlite"), v5 = bookmarks.appendingPathComponent("Bookmarks_V5.sqlite")
        // V1 carrying V5's model: its metadata still says V1.
        let v5Cache = try Database(path: v5.path, mode: .readOnly).rows("SELECT Z_CONTENT FROM Z_MODELCACHE")[0][0]
        try Database(path: v1.path, mode: .readWrite).run("UPDATE Z_MODELCACHE SET Z_CONTENT = ?", [v5Cache])
        let pipeline = try folder.pipeline("lying.json", """
            { "format": 1, "source": { "store": "\(v1.path)", "layout": "coredata" },
              "destination": { "store": "\(folder.path("c.sqlite"))", "layout": "coredata", "modelFrom": "\(v5.path)" } }
            """)
        assertPlanError(try Migration(pipeline: pipeline).plan(),
                                 contains: [v1.path, "DISAGREES with the metadata's version hashes", "differing: BookmarkEntity"])
    }

    /// With a bundle, a source whose kept model has the detected version's hashes but differs
    /// from it in what the hashes do not cover: the plan says so, and uses the bundle's.
    func testABundleAndAKeptModelThatDisagreeAreNamedAndTheBundleWins() throws {
        let bookmarks = try folder.corpus("ddg-bookmarks")
        let bundle = bookmarks.appendingPathComponent("BookmarksModel.xcdatamodeld")
        // BookmarksModel 5 with a fetch index fewer: the same hashes (indexes are not hashed).
        let contents = bundle.appendingPathComponent("BookmarksModel 5.xcdatamodel/contents")
        var xml = try String(contentsOf: contents, encoding: .utf8)
        let start = try XCTUnwrap(xml.range(of: "<fetchIndex name=\"byIsPendingDeletion\">"))
        let end = try XCTUnwrap(xml.range(of: "</fetchIndex>", range: start.upperBound..<xml.endIndex))
        xml.removeSubrange(start.lowerBound..<end.upperBound)
        try xml.write(to: contents, atomically: true, encoding: .utf8)

        let source = bookmarks.appendingPathComponent("Bookmarks_V5.sqlite")
        let migration = Migration(pipeline: try folder.coreDataPipeline(bundle: bundle, source: source, destination: folder.path("d.sqlite"),
                                                                         version: "BookmarksModel 6"))
        let plan = try migration.plan()
        XCTAssertEqual(plan.sourceVersion, "BookmarksModel 5")
        let notice = "the model kept in \(source.path) (Z_MODELCACHE) has the version hashes of BookmarksModel 5 but differs "
            + "from the bundle's in BookmarkEntity (settings the hashes do not cover: defaults, indexes, renaming identifiers): the bundle's is used"
        XCTAssertEqual(plan.notes.filter { $0.contains("Z_MODELCACHE") }, [notice])
        XCTAssertFalse(plan.steps[0].sourceModel.entities[0].fetchIndexes.contains { $0.name == "byIsPendingDeletion" }, "the bundle's version")
        XCTAssertTrue(try migration.run().notes.contains(notice), "the run's summary says it too")
    }
}

/// The pipeline's planning fails with an error (naming the pipeline's place) that says all of `parts`.
private func assertPlanError(_ body: @autoclosure () throws -> Any, contains parts: [String], file: StaticString = #filePath, line: UInt = #line) {
    do {
        _ = try body()
        XCTFail("expected an error containing \(parts)", file: file, line: line)
    } catch {
        for part in parts {
            XCTAssertTrue("\(error)".contains(part), "\(error)\n  does not contain: \(part)", file: file, line: line)
        }
    }
}
