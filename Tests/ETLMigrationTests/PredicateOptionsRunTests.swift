import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline
import ETL
import ETLTestSupport

/// A mapping model's source filter with NSPredicate's string options runs, pushed down
/// and row by row, to the rows Foundation's own comparisons with those options pick.
final class PredicateOptionsRunTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    static let titles = ["Éclair", "eclair", "ECLAIR pie", "Straße", "STRASSE", "crème brûlée", "Creme", "apple", "Zebra", "zoo\nkeeper",
                         "e\u{301}tude", "naïve pie", "Pie"]

    func mappingModel(filter: String, at url: URL) throws {
        try MappingModelXML(source: "App/Items.xcdatamodeld/o1.xcdatamodel", destination: "App/Items.xcdatamodeld/o2.xcdatamodel",
                            mappings: [.init("Item", filter: filter, attributes: [.init("title")])]).write(to: url)
    }

    func testStringOptionsInAFilterPickTheRowsFoundationPicks() throws {
        func model(_ extra: String) -> String {
            ModelBundleFiles.model(#"<entity name="Item"><attribute name="title" optional="YES" attributeType="String"/>"# + extra + "</entity>")
        }
        let bundle = folder.url.appendingPathComponent("Items.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("o1", model("")), ("o2", model(#"<attribute name="seen" optional="YES" attributeType="Boolean"/>"#))])
        let models = try ModelBundle.load(path: bundle.path)
        let store = try BuiltStore(try XCTUnwrap(models.version(named: "o1")), at: folder.path("o1.sqlite"))
        for (index, title) in Self.titles.enumerated() { try store.insert("Item", Int64(index + 1), ["title": .text(title)]) }
        store.close()

        // Each filter, and the titles Foundation's comparisons with the same options keep.
        func found(_ text: String, _ options: String.CompareOptions) -> (String) -> Bool { { $0.range(of: text, options: options) != nil } }
        let cd: String.CompareOptions = [.caseInsensitive, .diacriticInsensitive]
        let cases: [(filter: String, keeps: (String) -> Bool)] = [
            ("title BEGINSWITH[cd] 'e'", found("e", cd.union(.anchored))),
            ("title ==[c] 'strasse'", { $0.compare("strasse", options: .caseInsensitive) == .orderedSame }),
            ("title ==[cd] 'creme'", { $0.compare("creme", options: cd) == .orderedSame }),
            ("title CONTAINS[d] 'e b'", found("e b", .diacriticInsensitive)),
            ("title ENDSWITH[c] 'PIE'", found("PIE", [.anchored, .backwards, .caseInsensitive])),
            ("title ENDSWITH[cd] 'Ée'", found("Ée", cd.union([.anchored, .backwards]))),
            // The whole text, as NSPredicate's MATCHES ("zoo\nkeeper": `.` stops at the line's end).
            ("title MATCHES[c] 'z.*'", { try! NSRegularExpression(pattern: "(?:z.*)\\z", options: [.caseInsensitive])
                .firstMatch(in: $0, options: [.anchored], range: NSRange($0.startIndex..., in: $0)) != nil }),
            ("title CONTAINS 'é'", found("é", [])),
        ]
        for (number, test) in cases.enumerated() {
            let mapping = folder.url.appendingPathComponent("m\(number)/o1ToO2.xcmappingmodel")
            try mappingModel(filter: test.filter, at: mapping)
            let expected = Self.titles.filter(test.keeps)
            XCTAssertFalse(expected.isEmpty, "\(test.filter) keeps some rows")
            XCTAssertLessThan(expected.count, Self.titles.count, "\(test.filter) drops some rows")
            for pushdown in [true, false] {
                let out = folder.path("out-\(number)-\(pushdown).sqlite")
                var migration = Migration(pipeline: try folder.coreDataPipeline(
                    bundle: bundle, source: URL(fileURLWithPath: folder.path("o1.sqlite")), destination: out, version: "o2",
                    extra: #", "mappingModels": false, "steps": [ { "from": "o1", "to": "o2", "mappingModel": "\#(mapping.path)" } ]"#))
                migration.options.pushdown = pushdown
                // Inside SQLite where the literal is ASCII (folded at import); else the literal
                // is folded as rows are read (concat(), which has no SQL twin yet).
                let execution = try StepExecution.of(try migration.plan().steps[0], policies: PolicyRegistry(), pushdown: pushdown)
                XCTAssertEqual(execution.insideSQLite, pushdown && test.filter.utf8.allSatisfy { $0 < 0x80 }, "\(test.filter): \(execution.reason ?? "")")
                _ = try migration.run()
                let read = try ReadStore(try XCTUnwrap(models.version(named: "o2")), at: out)
                XCTAssertEqual(try read.rows("Item", ["title"]).map { $0[1] }, expected.map(SQLValue.text), "\(test.filter), pushdown \(pushdown)")
            }
        }
    }
}
