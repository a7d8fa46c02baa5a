import XCTest
import Foundation
import ETLStore
import ETLModel
import ETLExpression
import ETLPipeline
import ETL
import ETLTestSupport

/// A mapping model's source filter on a string's `length` (`title.length > 3`) keeps the
/// rows Core Data keeps, where NSString counts UTF-16 units (`😀😀` is 4 long, not 2),
/// pushed down and row by row.
final class UTF16LengthRunTests: XCTestCase {
    var folder: TemporaryFolder!

    override func setUpWithError() throws { folder = try TemporaryFolder() }
    override func tearDown() { folder = nil }

    /// Lengths in UTF-16 units, Unicode scalars: 4, 2; 3, 3; 6, 6; 4, 3; 4, 4; 0, 0; 2, 1; 5, 5.
    static let titles = ["😀😀", "abc", "he\u{301}llo", "ab😀", "abcd", "", "𝄞", "a\u{0}bcd"]

    func testALengthFilterKeepsTheRowsCoreDataKeeps() throws {
        let model = ModelBundleFiles.model(#"<entity name="Item"><attribute name="title" optional="YES" attributeType="String"/></entity>"#)
        let bundle = folder.url.appendingPathComponent("Items.xcdatamodeld")
        try ModelBundleFiles.write(bundle, versions: [("o1", model), ("o2", model.replacingOccurrences(of: "</entity>",
                                                      with: #"<attribute name="seen" optional="YES" attributeType="Boolean"/></entity>"#))])
        let models = try ModelBundle.load(path: bundle.path)
        let store = try BuiltStore(try XCTUnwrap(models.version(named: "o1")), at: folder.path("o1.sqlite"))
        for (index, title) in Self.titles.enumerated() { try store.insert("Item", Int64(index + 1), ["title": .text(title)]) }
        store.close()
        let mapping = folder.url.appendingPathComponent("o1ToO2.xcmappingmodel")
        try MappingModelXML(source: "App/Items.xcdatamodeld/o1.xcdatamodel", destination: "App/Items.xcdatamodeld/o2.xcdatamodel",
                            mappings: [.init("Item", filter: "title.length > 3", attributes: [.init("title")])]).write(to: mapping)
        // What Core Data keeps: NSString's length.
        let expected = Self.titles.filter { NSString(string: $0).length > 3 }
        XCTAssertEqual(expected, ["😀😀", "he\u{301}llo", "ab😀", "abcd", "a\u{0}bcd"])
        for pushdown in [true, false] {
            let out = folder.path("out-\(pushdown).sqlite")
            var migration = Migration(pipeline: try folder.coreDataPipeline(
                bundle: bundle, source: URL(fileURLWithPath: folder.path("o1.sqlite")), destination: out, version: "o2",
                extra: #", "mappingModels": false, "steps": [ { "from": "o1", "to": "o2", "mappingModel": "\#(mapping.path)" } ]"#))
            migration.options.pushdown = pushdown
            let step = try migration.plan().steps[0]
            XCTAssertEqual(step.mappings[0].filter?.text, "utf16length($source.title) > 3")
            let execution = try StepExecution.of(step, policies: PolicyRegistry(), pushdown: pushdown)
            XCTAssertEqual(execution.insideSQLite, pushdown, execution.reason ?? "")
            _ = try migration.run()
            let read = try ReadStore(try XCTUnwrap(models.version(named: "o2")), at: out)
            XCTAssertEqual(try read.rows("Item", ["title"]).map { $0[1] }, expected.map(SQLValue.text), "pushdown \(pushdown)")
        }
    }
}
